import { isIP } from 'node:net';
import { getDomain } from 'tldts';
import { appError } from '../errors/app-error.ts';
import { hasControlCharacter } from '../shared/text.ts';

/** A validated asset name: the host (lowercase, no trailing dot) and an optional port. */
export interface AssetName {
  name: string;
  kind: 'domain' | 'ip';
  port: number | null;
}

const labelPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function malformed(raw: string, why: string) {
  return appError(
    2012,
    `Domain name malformed: "${raw}" ${why} (expected a second-level domain, a subdomain or an IP address, with an optional port)`,
    ['name'],
  );
}

function parsePort(raw: string, text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535)
    throw malformed(raw, 'has a port outside 1-65535');
  return Number(text);
}

/** True when the text is a syntactically valid domain name of at least two labels. */
export function isDomainName(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((l) => labelPattern.test(l))) return false;
  return !/^\d+$/.test(labels[labels.length - 1]!);
}

/**
 * Parses the name of a new asset: a domain (second-level or deeper), an IPv4 address or an
 * IPv6 address, each with an optional `:port` (IPv6 as `[addr]:port`). Names are ASCII:
 * callers punycode-encode international names, so any other character is 2012.
 */
export function parseAssetName(raw: unknown): AssetName {
  if (typeof raw !== 'string') throw appError(2012, 'Domain name malformed: name must be a string', ['name']);
  const text = raw.trim();
  if (text.length === 0) throw malformed(raw, 'is empty');
  if (hasControlCharacter(text)) throw malformed(raw, 'holds a control character (such as NUL)');
  if (!/^[\x21-\x7e]+$/.test(text))
    throw malformed(raw, 'contains characters outside ASCII (send international names in punycode)');

  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(text);
  if (bracketed !== null) {
    if (isIP(bracketed[1]!) !== 6) throw malformed(raw, 'is not a valid IPv6 address');
    return {
      name: bracketed[1]!.toLowerCase(),
      kind: 'ip',
      port: bracketed[2] === undefined ? null : parsePort(raw, bracketed[2]),
    };
  }
  if (isIP(text) === 6) return { name: text.toLowerCase(), kind: 'ip', port: null };

  const [host = '', portText, extra] = text.split(':');
  if (extra !== undefined) throw malformed(raw, 'has more than one port');
  const port = portText === undefined ? null : parsePort(raw, portText);
  if (isIP(host) === 4) return { name: host, kind: 'ip', port };

  const name = host.toLowerCase().replace(/\.$/, '');
  if (!isDomainName(name)) throw malformed(raw, 'is not a valid domain name');
  if (getDomain(name, { allowPrivateDomains: false }) === null)
    throw malformed(raw, 'is a public suffix, not a domain');
  return { name, kind: 'domain', port };
}

/** The registrable domain (apex) of a domain name, or undefined for an IP address. */
export function apexOf(name: string): string | undefined {
  return getDomain(name, { allowPrivateDomains: false }) ?? undefined;
}

/** The proper ancestors of a domain name down to its apex, nearest first. */
export function ancestorsOf(name: string): string[] {
  const apex = apexOf(name);
  if (apex === undefined || apex === name) return [];
  const out: string[] = [];
  let rest = name;
  while (rest !== apex) {
    rest = rest.slice(rest.indexOf('.') + 1);
    out.push(rest);
  }
  return out;
}
