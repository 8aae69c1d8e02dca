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
