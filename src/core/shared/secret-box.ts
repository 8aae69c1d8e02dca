import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Symmetric protection with the server key: AES-256-GCM for secrets stored at rest (signing
 * secrets) and HMAC-SHA-256 for values handed to clients that must come back unchanged (markers).
 */
export class SecretBox {
  private readonly encKey: Buffer;
  private readonly macKey: Buffer;
  private readonly serverKey: Buffer;

  constructor(serverKey: Buffer) {
    if (serverKey.length !== 32) throw new Error('the server key must be 32 bytes');
    this.encKey = createHmac('sha256', serverKey).update('perimeter:encrypt').digest();
    this.macKey = createHmac('sha256', serverKey).update('perimeter:mac').digest();
    this.serverKey = serverKey;
  }

  /**
   * A keyed permutation of 16-byte blocks (AES-128, one key per purpose): identifiers made from
   * internal values (a row id and a time) that clients can neither read nor forge.
   */
  blockCipher(purpose: string): BlockCipher {
    const key = createHmac('sha256', this.serverKey).update(`perimeter:block:${purpose}`).digest().subarray(0, 16);
    const run = (decrypt: boolean, blocks: Buffer) => {
      if (blocks.length % 16 !== 0) throw new Error('blocks must be 16 bytes each');
      // ECB over independent blocks: each block is one value, never a stream.
      const cipher = decrypt ? createDecipheriv('aes-128-ecb', key, null) : createCipheriv('aes-128-ecb', key, null);
      cipher.setAutoPadding(false);
      return Buffer.concat([cipher.update(blocks), cipher.final()]);
    };
    return { encrypt: (blocks) => run(false, blocks), decrypt: (blocks) => run(true, blocks) };
  }

  /** Encrypts to `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** Decrypts what encrypt produced; throws when it was tampered with or made with another key. */
  decrypt(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined)
      throw new Error('sealed value malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.encKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** A MAC of the value, base64url, truncated to 16 bytes. */
  mac(value: string): string {
    return createHmac('sha256', this.macKey).update(value).digest().subarray(0, 16).toString('base64url');
  }
}

/** Encrypts and decrypts whole 16-byte blocks (any number at once). */
export interface BlockCipher {
  encrypt(blocks: Buffer): Buffer;
  decrypt(blocks: Buffer): Buffer;
}
