import { headerValue, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';
import { corsPathPattern } from './cors.check.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';

/** Stable id of the sensitive data in API answers check. */
export const sensitiveDataCheckId = 'sensitive-data-exposure';

const KIND: FindingKind = {
  checkId: sensitiveDataCheckId,
  title: 'Sensitive data in an API answer',
  cwe: 200,
  // Read by whoever may call the API (a logged-in ordinary user: PR:L); other users' secrets (C:H).
  cvssVector: 'AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N',
  cvss2Vector: 'AV:N/AC:L/Au:S/C:P/I:N/A:N',
  severity: 'medium',
  owasp: 'A01:2021-Broken Access Control',
  description:
    'A JSON answer of the application carries data its reader should not get: password hashes, the e-mail addresses of several users, or other users’ API keys, secrets or tokens.',
  risk: "Password hashes can be cracked offline (unsalted MD5/SHA hashes in seconds) and the passwords tried elsewhere; other users' e-mail addresses feed phishing and account enumeration; their tokens open their accounts.",
  remediation:
    'Answer with an explicit allow-list of fields per audience (a response DTO or serializer), never the database row as it is; leave password hashes, tokens and secrets out of every answer; show a user other users’ contact data only where the business needs it; store passwords with a slow salted hash (Argon2id, bcrypt).',
  references: [
    {
      link: 'https://owasp.org/API-Security/editions/2023/en/0xa3-broken-object-property-level-authorization/',
      name: 'OWASP API Security Top 10 2023: API3 Broken Object Property Level Authorization',
    },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html',
      name: 'OWASP Password Storage Cheat Sheet',
    },
  ],
};

/** A value that is a salted password hash in a crypt format, whatever its field is called. */
const CRYPT_HASH =
  /^(?:\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}|\$argon2(?:id|i|d)\$[^\s"]{20,}|\$[156]\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86})$/;
/** An unsalted MD5, SHA-1 or SHA-256 hex digest. */
const HEX_DIGEST = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$/i;
/** Field names of a password. */
const PASSWORD_FIELD = /pass(?:word|wd)?|pwd|credential/i;
/** Field names of a hash: a password hash only in a user record (elsewhere a checksum or commit). */
const HASH_FIELD = /hash|digest/i;
/** Field names of secrets. */
const SECRET_FIELD = /api[_-]?key|apikey|secret|token|access[_-]?key|private[_-]?key|session[_-]?id|otp[_-]?seed/i;
const EMAIL = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;
/** Field names that make an object a user record. */
const USER_FIELD = /^(?:id|_id|user(?:name|_?id)?|login|name|first_?name|last_?name|role|email|e_?mail)$/i;

/** What a JSON answer exposes: one sentence per kind, and the values as they appear in the answer. */
export interface SensitiveExposure {
  kind: 'password-hash' | 'emails' | 'secrets';
  detail: string;
  /** The first exposed value, as JSON text (quoted), for the evidence. */
  value: string;
}

/** Every object of a JSON value, nested ones included. */
function* objectsOf(value: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(value)) for (const item of value) yield* objectsOf(item);
  else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    yield record;
    for (const child of Object.values(record)) yield* objectsOf(child);
  }
}

/** True for an object that looks like a user record: an e-mail or two user-like fields. */
function isUserLike(record: Record<string, unknown>): boolean {
  const keys = Object.keys(record);
  return keys.filter((k) => USER_FIELD.test(k)).length >= 2;
}

/** True for a secret-looking value: 16+ characters without spaces, letters and digits. */
const isSecretValue = (value: string): boolean => /^\S{16,}$/.test(value) && /\d/.test(value) && /[A-Za-z]/.test(value);

/**
 * Judges a parsed JSON answer: password hashes (crypt formats anywhere, hex digests in fields
 * named like a password or hash), the e-mail addresses of two or more user-like records, and
 * secrets (fields named like api_key, secret, token with a secret-looking value) of two or more
 * user-like records with different values. Empty when nothing sensitive shows.
 */
export function judgeJsonAnswer(document: unknown): SensitiveExposure[] {
  const hashes: Array<[string, string]> = [];
  const emails = new Set<string>();
  const secrets = new Map<string, string>();
  for (const record of objectsOf(document)) {
    const isUser = isUserLike(record);
    for (const [key, value] of Object.entries(record)) {
      if (typeof value !== 'string') continue;
      const isHashField = PASSWORD_FIELD.test(key) || (isUser && HASH_FIELD.test(key));
      if (CRYPT_HASH.test(value) || (isHashField && HEX_DIGEST.test(value))) hashes.push([key, value]);
      else if (isUser && EMAIL.test(value) && /mail/i.test(key)) emails.add(value.toLowerCase());
      else if (isUser && SECRET_FIELD.test(key) && isSecretValue(value)) secrets.set(value, key);
    }
  }
  const found: SensitiveExposure[] = [];
  if (hashes.length > 0) {
    const [key, value] = hashes[0]!;
    found.push({
      kind: 'password-hash',
      detail: `${hashes.length} password hash${hashes.length === 1 ? '' : 'es'} (field ${key}: ${value.slice(0, 7)}…)`,
      value: JSON.stringify(value),
    });
  }
  if (emails.size >= 2) {
    const list = [...emails];
    found.push({
      kind: 'emails',
      detail: `the e-mail addresses of ${list.length} users (${list.slice(0, 3).join(', ')}${list.length > 3 ? ' …' : ''})`,
      value: JSON.stringify(list[0]),
    });
  }
  if (secrets.size >= 2) {
    const [value, key] = [...secrets][0]!;
    found.push({
      kind: 'secrets',
      detail: `${secrets.size} users' secrets in fields named like ${[...new Set(secrets.values())].join(', ')} (${key}: ${value.slice(0, 4)}…)`,
      value: JSON.stringify(value),
    });
  }
  return found;
}

/** Parses a JSON body, or undefined. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Sensitive data in API answers, passive: each JSON answer of the crawl (a JSON content type,
 * status 200) as the scan reads it, with the profile's session when it has one, judged by
 * judgeJsonAnswer. HTML pages are not judged (a page may show its own user's address or a
 * documentation example). Once per origin and route (id-like path segments grouped).
 */
export function createSensitiveDataCheck(): PageCheck {
  const reported = new Set<string>();
  return {
    id: sensitiveDataCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      const type = headerValue(page.exchange, 'content-type')?.toLowerCase() ?? '';
      if (page.exchange.status !== 200 || !/\bjson\b/.test(type) || page.exchange.isTruncated) return;
      const route = `${page.originText}${corsPathPattern(page.url.pathname)}`;
      if (reported.has(route)) return;
      const document = parseJson(page.exchange.body);
      if (document === undefined || typeof document !== 'object') return;
      const found = judgeJsonAnswer(document);
      if (found.length === 0) return;
      reported.add(route);
      const first = found[0]!;
      const offset = page.exchange.body.indexOf(first.value);
      await context.report(
        buildFinding(KIND, {
          location: route,
          host: page.origin.host,
          exchange: page.exchange,
          ...(offset < 0 ? {} : { evidence: { value: first.value, offset } }),
          title: `${KIND.title}: ${found.map((f) => (f.kind === 'password-hash' ? 'password hashes' : f.kind === 'emails' ? "other users' e-mail addresses" : "other users' secrets")).join(', ')}`,
          observation: `The JSON answer of ${page.exchange.request.method} ${page.url.pathname}${page.url.search}${page.exchange.request.headers.some((h) => h.name.toLowerCase() === 'cookie') ? ', read with the scan’s session,' : ''} carries ${found.map((f) => f.detail).join('; ')}.`,
        }),
      );
    },
  };
}
