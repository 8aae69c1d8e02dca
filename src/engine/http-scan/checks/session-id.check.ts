import { createHash } from 'node:crypto';
import { pause } from '../check-kit/pause.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { headerValue, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import { sendCheckRequest } from './check-request.ts';
import { sendAsFreshVisitor, setCookiePairs } from './fresh-visitor.ts';
import { parseCookiePairs } from '../check-kit/injection.ts';

/** Stable id of the predictable session identifier check. */
export const sessionIdCheckId = 'session-id';

/** Fresh values asked for per cookie. */
export const sessionIdSamples = 6;
/** Cookies sampled per origin at most. */
export const maxSampledCookiesPerOrigin = 10;
/** Estimated entropy under which an identifier is weak (OWASP: at least 64 bits). */
export const minimumEntropyBits = 64;
/** Counters up to this value are recognised under MD5, SHA-1 and SHA-256. */
export const hashedCounterLimit = 65_536;

const KIND: FindingKind = {
  checkId: sessionIdCheckId,
  title: 'Predictable session identifier',
  cwe: 330,
  // Guessing a live identifier takes tries and a victim logged in at that moment (AC:H); it gives that user's rights.
  cvssVector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N',
  cvss2Vector: 'AV:N/AC:H/Au:N/C:P/I:P/A:N',
  severity: 'medium',
  owasp: 'A07:2021-Identification and Authentication Failures',
  description:
    'A cookie the site gives each new visitor is predictable: fresh values asked for one after another are sequential numbers, the current time, a hash of a small counter or of the time, or carry too little randomness.',
  risk: "An attacker who sees one identifier (their own) can compute other visitors' identifiers and take over their sessions, logged-in accounts included, without knowing a password.",
  remediation:
    "Let the framework's session manager create identifiers (PHP's session handling, express-session, Spring Session …): at least 64 bits of entropy from a cryptographically secure generator (`random_bytes`, `crypto.randomBytes`, `SecureRandom`), never a counter, a time or a hash of either. Create a new identifier at login.",
  references: [
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Session_Management_Cheat_Sheet.html#session-id-entropy',
      name: 'OWASP Session Management Cheat Sheet: Session ID entropy',
    },
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/06-Session_Management_Testing/01-Testing_for_Session_Management_Schema',
      name: 'OWASP WSTG: Testing for session management schema',
    },
  ],
};

/** Names of cookies that carry a session (PHPSESSID, JSESSIONID, connect.sid, session, auth_token …). */
export const sessionCookieName = /sess|sid|auth|token|login|jwt|remember|ident|user|account/i;

/** Why a series of fresh values is predictable. */
export interface SessionIdWeakness {
  kind: 'sequential' | 'timestamp' | 'hashed-counter' | 'hashed-timestamp' | 'low-entropy';
  /** A sentence for the evidence. */
  detail: string;
}

const HASHES: Record<number, 'md5' | 'sha1' | 'sha256'> = { 32: 'md5', 40: 'sha1', 64: 'sha256' };
const counterTables = new Map<string, Map<string, number>>();

/** hash(n) → n for n below hashedCounterLimit, built once per process and algorithm. */
function counterTable(algorithm: string): Map<string, number> {
  let table = counterTables.get(algorithm);
  if (table === undefined) {
    table = new Map();
    for (let n = 0; n < hashedCounterLimit; n++) table.set(createHash(algorithm).update(String(n)).digest('hex'), n);
    counterTables.set(algorithm, table);
  }
  return table;
}

/** The value a hash of `text` would be under `algorithm`. */
const hashOf = (algorithm: string, text: string): string => createHash(algorithm).update(text).digest('hex');

/**
 * The estimated entropy of a series of values: the positions (from the left) whose character
 * varies across the values, times log2 of the distinct characters seen at those positions.
 * Positions past the shortest value count as varying.
 */
export function estimatedEntropyBits(values: string[]): number {
  const shortest = Math.min(...values.map((v) => v.length));
  const longest = Math.max(...values.map((v) => v.length));
  const seen = new Set<string>();
  let varying = 0;
  for (let i = 0; i < longest; i++) {
    const column = values.map((v) => v[i] ?? '');
    if (i < shortest && column.every((c) => c === column[0])) continue;
    varying += 1;
    for (const c of column) if (c !== '') seen.add(c);
  }
  return seen.size < 2 ? 0 : varying * Math.log2(seen.size);
}

/**
 * Judges fresh values of one cookie, in the order they were received, asked for between
 * `fromMs` and `toMs` (epoch milliseconds): undefined when they look random enough or do not
 * change (a preference, not a session). Recognised: the current time in seconds or
 * milliseconds (within a day), sequential numbers (each above the last by at most 1000), MD5,
 * SHA-1 or SHA-256 of a counter below hashedCounterLimit or of the time in seconds, and an
 * estimated entropy under minimumEntropyBits.
 */
export function judgeSessionIds(values: string[], fromMs: number, toMs: number): SessionIdWeakness | undefined {
  if (values.length < 4) return undefined;
  const distinct = new Set(values);
  if (distinct.size === 1) return undefined;
  const list = values.map((v) => JSON.stringify(v)).join(', ');
  if (values.every((v) => /^\d{9,16}$/.test(v))) {
    const numbers = values.map(Number);
    const day = 86_400;
    const isSeconds = numbers.every((n) => n >= fromMs / 1000 - day && n <= toMs / 1000 + day);
    const isMillis = numbers.every((n) => n >= fromMs - day * 1000 && n <= toMs + day * 1000);
    if (isSeconds || isMillis)
      return {
        kind: 'timestamp',
        detail: `the values ${list} are the current time in ${isSeconds ? 'seconds' : 'milliseconds'} since 1970`,
      };
  }
  // Values repeating across fresh visitors are not per-session identifiers (the time in seconds is judged above).
  if (distinct.size < values.length - 1) return undefined;
  if (values.every((v) => /^\d{1,15}$/.test(v))) {
    const numbers = values.map(Number);
    const steps = numbers.slice(1).map((n, i) => n - numbers[i]!);
    if (steps.every((s) => s > 0 && s <= 1000))
      return { kind: 'sequential', detail: `the values ${list} count up (steps of ${steps.join(', ')})` };
  }
  const algorithm = values.every((v) => /^[0-9a-f]+$/i.test(v)) ? HASHES[values[0]!.length] : undefined;
  if (algorithm !== undefined && values.every((v) => v.length === values[0]!.length)) {
    const table = counterTable(algorithm);
    const counters = values.map((v) => table.get(v.toLowerCase()));
    if (counters.every((n) => n !== undefined))
      return {
        kind: 'hashed-counter',
        detail: `the values ${list} are ${algorithm.toUpperCase()} hashes of the numbers ${counters.join(', ')}`,
      };
    const from = Math.floor(fromMs / 1000) - 5;
    const to = Math.ceil(toMs / 1000) + 5;
    const times = values.map((v) => {
      for (let t = from; t <= to; t++) if (hashOf(algorithm, String(t)) === v.toLowerCase()) return t;
      return undefined;
    });
    if (times.every((t) => t !== undefined))
      return {
        kind: 'hashed-timestamp',
        detail: `the values ${list} are ${algorithm.toUpperCase()} hashes of the current time in seconds (${times.join(', ')})`,
      };
  }
  const bits = estimatedEntropyBits(values);
  if (bits < minimumEntropyBits)
    return {
      kind: 'low-entropy',
      detail: `the values ${list} carry about ${Math.round(bits)} bits of randomness, under ${minimumEntropyBits}`,
    };
  return undefined;
}

/** The value a response sets for cookie `name`, or undefined. */
function setValue(exchange: HttpExchange, name: string): string | undefined {
  return setCookiePairs(exchange).find(([n]) => n === name)?.[1];
}

/** The pause between two samples: identifiers built from the time need the clock to move. */
const samplePauseMs = 300;

/** The Cookie header of a request without cookie `name` ('' when none is left). */
function cookiesWithout(header: string, name: string): string {
  return parseCookiePairs(header)
    .filter(([n]) => n !== name)
    .map(([n, v]) => `${n}=${v}`)
    .join('; ');
}

/**
 * Asks for fresh values of cookie `name` by the page's own request (GET, or the POST the crawler
 * sent), nothing kept, sessionIdSamples times. First as the scan sends it (its session kept
 * alive by the session keeper): a cookie set anew at every answer. When an answer does not
 * set it, or sets the value it had, as a visitor without it: the other cookies of the latest crawled request of the origin
 * (`latestCookies()`, the live session), the cookie left out, so the site hands out a new one.
 * Undefined when fewer than four answers set the cookie.
 */
async function sample(
  page: CrawledPage,
  name: string,
  context: CheckContext,
  latestCookies: () => string,
): Promise<{ values: string[]; fromMs: number; toMs: number; last: HttpExchange; how: string } | undefined> {
  const request = page.exchange.request;
  const contentType = request.headers.find((h) => h.name.toLowerCase() === 'content-type')?.value;
  const body =
    request.method === 'POST' && request.body !== undefined && contentType !== undefined
      ? { contentType, text: request.body }
      : undefined;
  const values: string[] = [];
  let last: HttpExchange | undefined;
  let isWithout = false;
  const fromMs = Date.now();
  for (let i = 0; i < sessionIdSamples + 3 && values.length < sessionIdSamples; i++) {
    if (i > 0) await pause(samplePauseMs, context.signal);
    if (context.signal.aborted) return undefined;
    const options = { method: request.method, ...(body === undefined ? {} : { body }) };
    const exchange = isWithout
      ? await sendAsFreshVisitor(page.url, context, { ...options, cookie: cookiesWithout(latestCookies(), name) })
      : await sendCheckRequest(page.url, context, { ...options, storeCookies: false });
    const value = exchange === undefined ? undefined : setValue(exchange, name);
    if (exchange === undefined || value === undefined || (!isWithout && values.at(-1) === value)) {
      // Not set anew at every answer (or set to the same value again, a rolling expiry): ask without it.
      if (!isWithout) values.length = 0;
      isWithout = true;
      continue;
    }
    values.push(value);
    last = exchange;
  }
  const toMs = Date.now();
  const how = isWithout ? 'without it' : 'as the scan sends it';
  return last === undefined || values.length < 4 ? undefined : { values, fromMs, toMs, last, how };
}

/**
 * Predictable session identifiers. Each cookie a crawled page (a GET, or a POST the crawler
 * sent) sets is asked for sessionIdSamples times more by that request again (see sample: as
 * sent, or without the cookie), nothing stored, a short pause between; the values are judged by judgeSessionIds (a time or low entropy only in a cookie named like a session,
 * sessionCookieName; counters and hashes of counters in any cookie). Once per origin and cookie name, at most
 * maxSampledCookiesPerOrigin cookies per origin, at `origin/?session_cookie=NAME`.
 */
export function createSessionIdCheck(): PageCheck {
  const sampled = new Set<string>();
  const perOrigin = new Map<string, number>();
  const latest = new Map<string, string>();
  return {
    id: sessionIdCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      const sent = page.exchange.request.headers.find((h) => h.name.toLowerCase() === 'cookie')?.value;
      if (sent !== undefined) latest.set(page.originText, sent);
      const method = page.exchange.request.method;
      if ((method !== 'GET' && method !== 'POST') || page.exchange.status >= 400) return;
      for (const [name] of setCookiePairs(page.exchange)) {
        const key = `${page.originText} ${name}`;
        const count = perOrigin.get(page.originText) ?? 0;
        if (sampled.has(key) || count >= maxSampledCookiesPerOrigin) continue;
        sampled.add(key);
        perOrigin.set(page.originText, count + 1);
        const series = await sample(page, name, context, () => latest.get(page.originText) ?? '');
        if (series === undefined) continue;
        const weakness = judgeSessionIds(series.values, series.fromMs, series.toMs);
        // A time or a short random value is a session's flaw only in a session cookie (`last_visit` is a time by design).
        const isWeakOnlyInSessions = weakness?.kind === 'timestamp' || weakness?.kind === 'low-entropy';
        if (weakness === undefined || (isWeakOnlyInSessions && !sessionCookieName.test(name))) continue;
        const header =
          series.last.headers.find((h) => h.name === 'set-cookie' && h.value.startsWith(`${name}=`))?.value ??
          headerValue(series.last, 'set-cookie') ??
          '';
        await context.report(
          buildFinding(KIND, {
            location: `${page.originText}/?session_cookie=${encodeURIComponent(name)}`,
            host: page.origin.host,
            exchange: series.last,
            title: `${KIND.title}: ${name}`,
            observation: `${series.values.length} fresh values of cookie ${name}, asked for by ${method} ${page.url.pathname}${page.url.search} ${series.how}: ${weakness.detail}.`,
            extraHighlights: [
              { field: 'response.headers.set-cookie', value: header, offset: 0, length: header.length },
            ],
          }),
        );
      }
    },
  };
}
