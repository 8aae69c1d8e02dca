import { Secret, TOTP } from 'otpauth';

/**
 * Time-based one-time passwords (RFC 6238) through the otpauth library: SHA-1, 6 digits, 30-second
 * steps (what every authenticator app reads from a QR code), a code accepted one step either side
 * of the server's clock.
 */

const period = 30;

/** A new random secret (160 bits, RFC 4226's recommended length), in base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secret: string, label = 'perimeter'): TOTP {
  return new TOTP({
    issuer: 'perimeter',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period,
    secret: Secret.fromBase32(secret),
  });
}

/** The otpauth:// URI an authenticator app reads (from the QR code, or typed). */
export function totpUri(secret: string, email: string): string {
  return totpOf(secret, email).toString();
}

/**
 * The 30-second step a code is valid for at `at` (one step of drift either way), or undefined
 * when it is not a valid code. The caller records the step so that a code is used once.
 */
export function totpStep(secret: string, code: string, at: Date): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpOf(secret).validate({ token, timestamp: at.getTime(), window: 1 });
  if (delta === null) return undefined;
  return Math.floor(at.getTime() / 1000 / period) + delta;
}

/** The code of a secret at a time (tests and the enrolment page's self-check only). */
export function totpCode(secret: string, at: Date): string {
  return totpOf(secret).generate({ timestamp: at.getTime() });
}
