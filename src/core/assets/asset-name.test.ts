import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { ancestorsOf, parseAssetName } from './asset-name.ts';

describe('parseAssetName', () => {
  const good: Array<[string, string, 'domain' | 'ip', number | null]> = [
    ['example.com', 'example.com', 'domain', null],
    ['Shop.Example.COM.', 'shop.example.com', 'domain', null],
    ['a.b.example.co.uk', 'a.b.example.co.uk', 'domain', null],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example', 'domain', null],
    ['example.com:8443', 'example.com', 'domain', 8443],
    ['192.0.2.10', '192.0.2.10', 'ip', null],
    ['192.0.2.10:8080', '192.0.2.10', 'ip', 8080],
    ['2001:DB8::1', '2001:db8::1', 'ip', null],
    ['[2001:db8::1]:443', '2001:db8::1', 'ip', 443],
  ];
  for (const [raw, name, kind, port] of good) {
    it(`accepts ${raw}`, () => assert.deepEqual(parseAssetName(raw), { name, kind, port }));
  }

  const bad = [
    '',
    'com',
    'co.uk',
    'bücher.example',
    'exa mple.com',
    '-a.example.com',
    'example.com:0',
    'example.com:70000',
    'a:b:c',
    '999.1.1.1',
    'example..com',
    'x'.repeat(64) + '.com',
    '[::zz]:80',
    'example.123',
  ];
  for (const raw of bad) {
    it(`refuses ${JSON.stringify(raw)} with 2012`, () => {
      assert.throws(
        () => parseAssetName(raw),
        (err: unknown) => err instanceof AppError && err.code === 2012,
      );
    });
  }
  it('refuses a non-string with 2012', () => {
    assert.throws(
      () => parseAssetName(42),
      (err: unknown) => err instanceof AppError && err.code === 2012,
    );
  });
});

describe('ancestorsOf', () => {
  it('lists the parents down to the apex, nearest first', () => {
    assert.deepEqual(ancestorsOf('a.b.example.co.uk'), ['b.example.co.uk', 'example.co.uk']);
    assert.deepEqual(ancestorsOf('example.com'), []);
  });
});
