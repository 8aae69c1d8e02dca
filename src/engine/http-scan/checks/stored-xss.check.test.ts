import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCanaries, storedXssCanary } from './stored-xss.check.ts';

describe('stored XSS canaries', () => {
  it('are unique and break out of attributes into a tag', () => {
    const canary = storedXssCanary();
    assert.match(canary, /^"'><prmtr[0-9a-f]{12}>$/);
    assert.notEqual(storedXssCanary(), canary);
  });

  it("are found verbatim only, with their offsets; encoded ones and the reflected check's canaries are not", () => {
    const a = storedXssCanary();
    const b = storedXssCanary();
    const body = `<li>${a}</li><li>&quot;&#39;&gt;&lt;prmtr${b.slice(9, 21)}&gt;</li><li>"'><prmtr0123456789></li><li>${b}</li>`;
    assert.deepEqual(findCanaries(body), [
      { value: a, offset: 4 },
      { value: b, offset: body.lastIndexOf(b) },
    ]);
    assert.deepEqual(findCanaries('<p>nothing</p>'), []);
  });
});
