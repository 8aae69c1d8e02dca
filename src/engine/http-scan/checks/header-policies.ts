import type { HttpExchange } from '../check-kit/guarded-http-client.ts';

/** Every value of a response header (lowercased name match), in order. */
export function headerValues(exchange: HttpExchange, name: string): string[] {
  return exchange.headers.filter((h) => h.name === name).map((h) => h.value);
}

/** One Content-Security-Policy: directive name (lowercase) to its source list (as written). */
export type CspPolicy = Map<string, string[]>;

/**
 * The enforced policies of a response: each Content-Security-Policy header, and each
 * comma-separated policy inside one, parsed as CSP3 does (the first of a repeated directive wins).
 */
export function cspPolicies(exchange: HttpExchange): CspPolicy[] {
  const policies: CspPolicy[] = [];
  for (const value of headerValues(exchange, 'content-security-policy')) {
    for (const text of value.split(',')) {
      const policy: CspPolicy = new Map();
      for (const directive of text.split(';')) {
        const [name, ...sources] = directive.trim().split(/\s+/);
        if (name === undefined || name === '' || policy.has(name.toLowerCase())) continue;
        policy.set(name.toLowerCase(), sources);
      }
      if (policy.size > 0) policies.push(policy);
    }
  }
  return policies;
}

/** A weakness of the script sources of a policy, with the source that causes it. */
export interface CspWeakness {
  kind: 'unsafe-inline' | 'wildcard';
  /** The directive that governs scripts (`script-src` or its fallback `default-src`). */
  directive: string;
  /** The offending source as written (`'unsafe-inline'`, `*`, `https:` …). */
  source: string;
}

// Sources that admit scripts from any host: a wildcard, or a bare scheme.
const ANY_HOST_SOURCES = new Set(['*', 'http:', 'https:', 'data:']);
const NONCE_OR_HASH = /^'(?:nonce-|sha256-|sha384-|sha512-)/i;

/** The weaknesses of one policy's script sources; undefined when the policy does not govern scripts. */
function policyScriptWeaknesses(policy: CspPolicy): CspWeakness[] | undefined {
  const directive = policy.has('script-src') ? 'script-src' : policy.has('default-src') ? 'default-src' : undefined;
  if (directive === undefined) return undefined;
  const sources = policy.get(directive) ?? [];
  const lowered = sources.map((s) => s.toLowerCase());
  // A nonce or hash makes CSP2+ browsers ignore 'unsafe-inline'; with 'strict-dynamic' they also ignore host and scheme sources.
  const hasNonceOrHash = sources.some((s) => NONCE_OR_HASH.test(s));
  const isStrictDynamic = hasNonceOrHash && lowered.includes("'strict-dynamic'");
  const weaknesses: CspWeakness[] = [];
  const inline = sources.find((s) => s.toLowerCase() === "'unsafe-inline'");
  if (inline !== undefined && !hasNonceOrHash) weaknesses.push({ kind: 'unsafe-inline', directive, source: inline });
  const wildcard = sources.find((s) => ANY_HOST_SOURCES.has(s.toLowerCase()));
  if (wildcard !== undefined && !isStrictDynamic) weaknesses.push({ kind: 'wildcard', directive, source: wildcard });
  return weaknesses;
}

/**
 * How the enforced policies still let scripts in: inline script without a nonce or hash, or
 * scripts from any host. Several policies all apply, so a weakness counts only when every policy
 * that governs scripts has it. Empty when no policy governs scripts (that is not judged here).
 */
export function cspScriptWeaknesses(policies: CspPolicy[]): CspWeakness[] {
  const perPolicy = policies.map(policyScriptWeaknesses).filter((w): w is CspWeakness[] => w !== undefined);
  const [first, ...rest] = perPolicy;
  if (first === undefined) return [];
  return first.filter((weakness) => rest.every((other) => other.some((w) => w.kind === weakness.kind)));
}

/** Six months, the smallest HSTS max-age the OWASP and browser preload guidance accept. */
export const minimumHstsMaxAge = 15_768_000;

/** The max-age of a Strict-Transport-Security value, or undefined when it has no valid one (browsers then ignore it). */
export function hstsMaxAge(value: string): number | undefined {
  for (const directive of value.split(';')) {
    const match = /^\s*max-age\s*=\s*"?(\d+)"?\s*$/i.exec(directive);
    if (match !== null) return Number(match[1]);
  }
  return undefined;
}

const REFERRER_POLICIES = new Set([
  'no-referrer',
  'no-referrer-when-downgrade',
  'same-origin',
  'origin',
  'strict-origin',
  'origin-when-cross-origin',
  'strict-origin-when-cross-origin',
  'unsafe-url',
]);

/** The policy a browser applies from Referrer-Policy values: the last token it knows; undefined when none. */
export function effectiveReferrerPolicy(values: string[]): string | undefined {
  let policy: string | undefined;
  for (const token of values.flatMap((v) => v.split(','))) {
    const name = token.trim().toLowerCase();
    if (REFERRER_POLICIES.has(name)) policy = name;
  }
  return policy;
}

/**
 * True when another site may frame the response: no CSP frame-ancestors directive that
 * restricts framing (CSP3 browsers prefer it over X-Frame-Options) and no X-Frame-Options DENY
 * or SAMEORIGIN (ALLOW-FROM is ignored by current browsers).
 */
export function isFrameable(exchange: HttpExchange): boolean {
  const ancestors = cspPolicies(exchange)
    .map((p) => p.get('frame-ancestors'))
    .filter((sources): sources is string[] => sources !== undefined);
  if (ancestors.length > 0)
    return ancestors.every((sources) => sources.some((s) => ANY_HOST_SOURCES.has(s.toLowerCase())));
  const frameOptions = (headerValues(exchange, 'x-frame-options')[0] ?? '').trim().toLowerCase();
  return frameOptions !== 'deny' && frameOptions !== 'sameorigin';
}
