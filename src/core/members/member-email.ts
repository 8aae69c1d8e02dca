import { isDomainName } from '../assets/asset-name.ts';

const localPart = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/**
 * Normalises an e-mail address (trimmed, lowercase) or answers undefined when it is malformed:
 * an ASCII local part of at most 64 characters and a domain name (international domains in
 * punycode), 254 characters at most in all.
 */
export function normalizeEmail(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const email = raw.trim().toLowerCase();
  if (email.length > 254) return undefined;
  const at = email.lastIndexOf('@');
  if (at < 1) return undefined;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  return local.length <= 64 && localPart.test(local) && isDomainName(domain) ? email : undefined;
}
