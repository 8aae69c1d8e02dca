import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { SecretBox } from '../shared/secret-box.ts';
import { NameTokenCodec } from './name-token.ts';

describe('tokens of discovered names', () => {
  const codec = new NameTokenCodec(new SecretBox(randomBytes(32)).blockCipher('discovered-name-token'));

  it('makes a 32-hex token per row and reads the row back from it', () => {
    const refs = [
      { id: 1, firstSeen: 1_700_000_000_000 },
      { id: 2, firstSeen: 1_700_000_000_000 },
      { id: Number.MAX_SAFE_INTEGER, firstSeen: 2 ** 48 - 1 },
    ];
    const tokens = codec.tokensOf(refs);
    assert.equal(new Set(tokens).size, 3);
    for (const [i, token] of tokens.entries()) {
      assert.match(token, /^[0-9a-f]{32}$/);
      assert.deepEqual(codec.decode(token), refs[i]);
      assert.equal(codec.tokenOf(refs[i]!), token);
    }
  });

  it("reads nothing from a token it did not make, another key's included", () => {
    const other = new NameTokenCodec(new SecretBox(randomBytes(32)).blockCipher('discovered-name-token'));
    const token = other.tokenOf({ id: 7, firstSeen: 1 });
    assert.equal(codec.decode(token), undefined);
    assert.equal(codec.decode(randomBytes(16).toString('hex').replace(/./, 'f')), undefined);
    assert.equal(codec.decode('not a token'), undefined);
    assert.equal(codec.decode('A'.repeat(32)), undefined);
  });
});
