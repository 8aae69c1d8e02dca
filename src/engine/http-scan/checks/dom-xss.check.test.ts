import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scriptParameterNames } from './dom-xss.check.ts';

describe('scriptParameterNames', () => {
  it('names the query parameters scripts read from the URL', () => {
    const scripts = [
      `const p = new URLSearchParams(location.search); show(p.get('name'), p.get("lang"));`,
      `const q = new URL(location.href).searchParams.get('redirect_to');`,
    ];
    assert.deepEqual(scriptParameterNames(scripts), ['name', 'lang', 'redirect_to']);
  });

  it('ignores get() calls of scripts that never read the URL', () => {
    assert.deepEqual(scriptParameterNames([`const m = new Map(); m.get('name'); headers.get('x-id');`]), []);
  });
});
