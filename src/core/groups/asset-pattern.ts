import ipaddr from 'ipaddr.js';
import { appError } from '../errors/app-error.ts';
import { hasControlCharacter } from '../shared/text.ts';

/**
 * The asset pattern language, defined once here and used by group asset listings and the
 * vulnerability filter:
 *
 * - A domain pattern is a dot-separated list of labels, each a DNS label or `*`. `*` stands
 *   for one or more whole labels, anywhere: `*.example.com` matches every subdomain of
 *   example.com at any depth but not example.com itself; `api.*.example.com` matches
 *   api.eu.example.com and api.eu.west.example.com. `*` inside a label (`ap*.example.com`) is
 *   invalid. A pattern without `*` matches exactly one name. A lone `*` matches every domain.
 * - Matching is case-insensitive over ASCII (international names in punycode, `xn--…`); a
 *   trailing dot is ignored on both sides.
 * - An IP pattern is an address (matches that address exactly, in any spelling) or a CIDR range
 *   (`192.0.2.0/24`, `2001:db8::/32`; matches every address inside). IP patterns never match
 *   domain names and domain patterns never match IP addresses.
 */
export const assetPatternLanguage =
  'Patterns: a domain pattern is dot-separated labels where `*` stands for one or more whole labels ' +
  '(`*.example.com` matches every subdomain at any depth, not example.com itself; `*` inside a label is invalid); ' +
  'a pattern without `*` matches exactly. Matching is case-insensitive; send international names in punycode. ' +
  'IP addresses match exactly (`192.0.2.10`) or by CIDR (`192.0.2.0/24`, `2001:db8::/32`).';

/** A validated pattern, ready to match. `text` is its canonical (lowercase) spelling. */
export type ParsedPattern =
  | { kind: 'domain'; text: string; labels: string[] }
  | { kind: 'ip'; text: string; address: ipaddr.IPv4 | ipaddr.IPv6 }
  | { kind: 'cidr'; text: string; base: ipaddr.IPv4 | ipaddr.IPv6; bits: number };

/** Longest accepted pattern text (the longest domain name). */
export const maxPatternLength = 253;

const labelPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const ipLike = /^[0-9a-f:.]+$/i;

function invalid(why: string) {
  return appError(9012, `Asset pattern invalid: ${why}`, ['pattern']);
}

/** Parses and validates a pattern (9012 naming why it is invalid). */
export function parseAssetPattern(raw: unknown): ParsedPattern {
  if (raw === undefined || raw === null) throw invalid('pattern is required');
  if (typeof raw !== 'string') throw invalid('pattern must be a string');
  if (raw.length === 0) throw invalid('the pattern is empty');
  if (/\s/.test(raw)) throw invalid('a pattern contains no spaces');
  if (hasControlCharacter(raw)) throw invalid('a pattern may not hold a control character (such as NUL)');
  if (!/^[\x21-\x7e]+$/.test(raw)) throw invalid('a pattern is ASCII (send international names in punycode)');
  if (raw.length > maxPatternLength) throw invalid(`a pattern has at most ${maxPatternLength} characters`);
  const text = raw.toLowerCase();
  if (text.includes('/')) return parseCidrPattern(text);
  if (text.includes(':') && ipLike.test(text)) {
    if (!ipaddr.isValid(text)) throw invalid(`"${raw}" is not a valid IP address`);
    return { kind: 'ip', text, address: ipaddr.process(text) };
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return { kind: 'ip', text, address: ipaddr.parse(text) };
  return parseDomainPattern(raw, text.replace(/\.$/, ''));
}

function parseCidrPattern(text: string): ParsedPattern {
  const [address = '', prefix = ''] = text.split('/');
  if (
    !/^\d{1,3}$/.test(prefix) ||
    !(ipaddr.IPv4.isValidFourPartDecimal(address) || (address.includes(':') && ipaddr.IPv6.isValid(address)))
  ) {
    throw invalid(`"${text}" is not a valid CIDR range`);
  }
  try {
    const [base, bits] = ipaddr.parseCIDR(text);
    return { kind: 'cidr', text, base, bits };
  } catch {
    throw invalid(`"${text}" is not a valid CIDR range`);
  }
}

function parseDomainPattern(raw: string, text: string): ParsedPattern {
  const labels = text.split('.');
  for (const label of labels) {
    if (label === '*') continue;
    if (label.includes('*'))
      throw invalid(`"${raw}": * must be a whole label (as in *.example.com), not part of the label "${label}"`);
    if (label === '') throw invalid(`"${raw}" has an empty label`);
    if (!labelPattern.test(label))
      throw invalid(`"${raw}" has an invalid label "${label}" (letters, digits and inner dashes)`);
  }
  const literals = labels.filter((l) => l !== '*');
  if (literals.length > 0 && literals.every((l) => /^\d+$/.test(l))) {
    throw invalid(
      `"${raw}" looks like an IP address with wildcards; IP addresses match exactly or by CIDR (e.g. 192.0.2.0/24)`,
    );
  }
  return { kind: 'domain', text, labels };
}

function parseName(
  name: string,
): { kind: 'ip'; address: ipaddr.IPv4 | ipaddr.IPv6 } | { kind: 'domain'; labels: string[] } | undefined {
  const text = name.trim().toLowerCase();
  if (ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(':') && ipaddr.IPv6.isValid(text))) {
    return { kind: 'ip', address: ipaddr.process(text) };
  }
  const host = text.replace(/\.$/, '');
  return host === '' ? undefined : { kind: 'domain', labels: host.split('.') };
}

/**
 * Glob matching over labels where `*` consumes one or more labels: each `*` is one mandatory
 * label followed by a zero-or-more run, matched greedily with backtracking to the last run
 * (linear in practice, O(labels × pattern) at worst, no regular expressions).
 */
function matchLabels(pattern: string[], name: string[]): boolean {
  let p = 0;
  let n = 0;
  let starP = -1;
  let starN = -1;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] === '*') {
      // The mandatory label of this `*`, then remember where the optional run starts.
      n++;
      p++;
      starP = p;
      starN = n;
    } else if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (starP !== -1) {
      starN++;
      n = starN;
      p = starP;
    } else return false;
  }
  return p === pattern.length;
}

type ParsedName = NonNullable<ReturnType<typeof parseName>>;

function matchesParsed(pattern: ParsedPattern, name: ParsedName): boolean {
  if (pattern.kind === 'domain') return name.kind === 'domain' && matchLabels(pattern.labels, name.labels);
  if (name.kind !== 'ip') return false;
  const address = name.address;
  if (address.kind() !== (pattern.kind === 'ip' ? pattern.address : pattern.base).kind()) return false;
  if (pattern.kind === 'ip') return address.toNormalizedString() === pattern.address.toNormalizedString();
  return (address as ipaddr.IPv4).match(pattern.base as ipaddr.IPv4, pattern.bits);
}

/** True when the asset name (domain or IP address) matches the pattern. */
export function matchesAssetPattern(pattern: ParsedPattern, name: string): boolean {
  const parsed = parseName(name);
  return parsed !== undefined && matchesParsed(pattern, parsed);
}

/** True when the name matches at least one of the patterns (the filter of groups' assets); the name is parsed once. */
export function matchesAnyPattern(patterns: ParsedPattern[], name: string): boolean {
  if (patterns.length === 0) return false;
  const parsed = parseName(name);
  return parsed !== undefined && patterns.some((pattern) => matchesParsed(pattern, parsed));
}
