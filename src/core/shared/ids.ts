import { randomBytes, randomUUID } from 'node:crypto';

const tokenPattern = /^[0-9a-f]{32}$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new opaque token: 32 lowercase hex characters, as the original service issues them. */
export function newToken(): string {
  return randomBytes(16).toString('hex');
}

/** True when the value has the shape of a token (32 lowercase hex characters). */
export function isToken(value: string): boolean {
  return tokenPattern.test(value);
}

/** A new random UUID (v4). */
export function newUuid(): string {
  return randomUUID();
}

/** True when the value has the shape of a UUID. */
export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/** Random bytes drawn from a pooled buffer: one system call per 4 KB instead of one per id. */
let pool = Buffer.alloc(0);
let poolOffset = 0;
function pooledHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/**
 * A time-ordered token (the shape of newToken: 32 lowercase hex characters): 48 bits of
 * milliseconds, then 80 random bits. Tokens issued in bulk land at the end of their index
 * instead of at random places in it; the random part keeps them unguessable.
 */
export function newSequentialToken(at = Date.now()): string {
  return at.toString(16).padStart(12, '0') + pooledHex(10);
}
