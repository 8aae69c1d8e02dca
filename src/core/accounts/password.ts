import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes with scrypt (RFC 7914), in a self-describing string
 * `scrypt$<log2 N>$<r>$<p>$<salt, base64url>$<hash, base64url>`, so stronger parameters can be
 * adopted later without losing the hashes already stored. N = 2^15, r = 8, p = 1: 32 MiB and about
 * 50 ms per hash on one core, OWASP's recommended minimum for scrypt.
 */

const defaults = { logN: 15, r: 8, p: 1 };
const keyLength = 32;

/** The shortest and longest password accepted (bytes are not the limit: characters are). */
export const passwordLimits = { min: 12, max: 1024 } as const;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** The hash of a password, with a new random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { logN, r, p } = defaults;
  const hash = await derive(password, salt, logN, r, p);
  return ['scrypt', logN, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Whether a password matches a stored hash (in constant time); false for a hash it cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  const actual = await derive(password, Buffer.from(parts[4]!, 'base64url'), logN, r, p);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A hash nobody's password matches, verified against when no account exists (same time either way). */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(32).toString('base64url'));
  return decoy;
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string, email: string): string | undefined {
  const length = [...password].length;
  if (length < passwordLimits.min) return `The password must be at least ${passwordLimits.min} characters long.`;
  if (length > passwordLimits.max) return `The password must be at most ${passwordLimits.max} characters long.`;
  if (password.trim().toLowerCase() === email.toLowerCase()) return 'The password must not be your e-mail address.';
  if (new Set(password).size < 4) return 'The password must not repeat the same few characters.';
  return undefined;
}
