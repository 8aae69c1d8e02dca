import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectionPoint } from '../check-kit/injection.ts';
import { looksLikeUrlParameter } from './ssrf.check.ts';

const point = (name: string, value: string, location: InjectionPoint['location'] = 'query'): InjectionPoint => ({
  method: 'GET',
  url: new URL('http://127.0.0.1/p'),
  body: undefined,
  location,
  name,
  value,
});

describe('server-side request forgery targets', () => {
  it('tests URL-ish names and absolute URL values, not path segments or other parameters', () => {
    for (const name of [
      'url',
      'imageUrl',
      'src',
      'callback',
      'webhook',
      'feed',
      'next',
      'dest',
      'target',
      'fetch',
      'proxy',
      'link',
      'uri',
      'avatar',
    ])
      assert.equal(looksLikeUrlParameter(point(name, 'x')), true, name);
    assert.equal(looksLikeUrlParameter(point('q', 'https://cdn.example/logo.png')), true);
    assert.equal(looksLikeUrlParameter(point('q', ' HTTP://cdn.example/')), true);
    assert.equal(looksLikeUrlParameter(point('q', 'shoe')), false);
    assert.equal(looksLikeUrlParameter(point('q', '/relative/path')), false);
    assert.equal(looksLikeUrlParameter(point('0', 'https://x', 'path')), false);
  });
});
