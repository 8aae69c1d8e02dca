import { isToken } from '../shared/ids.ts';
import type { BlockCipher } from '../shared/secret-box.ts';

/** The last two bytes of a token's block: a check that a decrypted token was made here. */
const check = 0x7a3c;

/** Where a discovered name's row is: its id and first sighting (epoch ms). */
export interface NameRef {
  id: number;
  firstSeen: number;
}

/**
 * Tokens of discovered names, made from the row's id and first sighting instead of being stored
 * and indexed: the 16-byte block (id, time, check) encrypted with a server key is the token's
 * 32 hex characters, the shape of every other token. A token names one row for good: a row id
 * used again after a delete comes with a different first sighting.
 */
export class NameTokenCodec {
  constructor(private readonly cipher: BlockCipher) {}

  /** The tokens of the rows, in order (one cipher call for all of them). */
  tokensOf(refs: readonly NameRef[]): string[] {
    if (refs.length === 0) return [];
    const blocks = Buffer.alloc(16 * refs.length);
    refs.forEach((ref, i) => {
      blocks.writeBigUInt64BE(BigInt(ref.id), i * 16);
      blocks.writeUIntBE(ref.firstSeen, i * 16 + 8, 6);
      blocks.writeUInt16BE(check, i * 16 + 14);
    });
    const sealed = this.cipher.encrypt(blocks).toString('hex');
    return refs.map((_, i) => sealed.slice(i * 32, i * 32 + 32));
  }

  tokenOf(ref: NameRef): string {
    return this.tokensOf([ref])[0]!;
  }

  /** The row a token names, or undefined when it is not a discovered name's token. */
  decode(token: string): NameRef | undefined {
    if (!isToken(token)) return undefined;
    const block = this.cipher.decrypt(Buffer.from(token, 'hex'));
    if (block.readUInt16BE(14) !== check) return undefined;
    const id = block.readBigUInt64BE(0);
    if (id > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
    return { id: Number(id), firstSeen: block.readUIntBE(8, 6) };
  }
}
