import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { MarkerCodec } from './marker.ts';
import { SecretBox } from './secret-box.ts';

describe('markers', () => {
  const codec = new MarkerCodec(new SecretBox(randomBytes(32)));

  it('decodes what it encoded, again and again (the MAC of a recent payload is remembered)', () => {
    const marker = codec.encode(7, 'vulnerabilities', 1234);
    for (let i = 0; i < 3; i++) assert.equal(codec.decode(7, 'vulnerabilities', marker), 1234);
    assert.equal(codec.encode(7, 'vulnerabilities', 1234), marker);
  });

  it('refuses an altered MAC or payload, another team, another list and another server key, remembered or not', () => {
    const marker = codec.encode(7, 'vulnerabilities', 99);
    const [payload, mac] = marker.split('.') as [string, string];
    const flipped = `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const forged = `${Buffer.from(JSON.stringify([7, 'vulnerabilities', 100])).toString('base64url')}.${mac}`;
    const other = new MarkerCodec(new SecretBox(randomBytes(32)));
    for (const [team, scope, text, by] of [
      [7, 'vulnerabilities', flipped, codec],
      [7, 'vulnerabilities', forged, codec],
      [7, 'vulnerabilities', `${marker}.x`, codec],
      [8, 'vulnerabilities', marker, codec],
      [7, 'assets', marker, codec],
      [7, 'vulnerabilities', marker, other],
    ] as const) {
      assert.throws(
        () => by.decode(team, scope, text),
        (err) => err instanceof AppError && err.code === 4150,
      );
    }
    assert.equal(codec.decode(7, 'vulnerabilities', undefined), undefined);
    assert.equal(codec.decode(7, 'vulnerabilities', ''), undefined);
  });
});
