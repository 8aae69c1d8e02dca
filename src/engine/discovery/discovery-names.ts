import { randomBytes } from 'node:crypto';
import type { ZoneRecord } from '../dns/zone-record.ts';

/** A host name the discovery follows: LDH labels (and `_`), 1–63 bytes each, 253 in all. */
const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * The owner form of a host name (lower-case, no trailing dot, a leading `*.` dropped), or
 * undefined when the text is not one. Only names the bulk resolver can ask for as they are.
 */
export function normaliseHost(text: string): string | undefined {
  let name = text.trim().toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name.startsWith('*.')) name = name.slice(2);
  if (name.length === 0 || name.length > 253 || !HOST_NAME.test(name)) return undefined;
  return name;
}

/** True when the name is the root or under it (both in owner form). */
export function isUnderRoot(name: string, root: string): boolean {
  return (
    name === root ||
    (name.length > root.length && name.endsWith(root) && name.charCodeAt(name.length - root.length - 1) === 0x2e)
  );
}

/** The name one label up, or undefined at a single label. */
export function parentOf(name: string): string | undefined {
  const dot = name.indexOf('.');
  return dot === -1 ? undefined : name.slice(dot + 1);
}

/** A label no zone holds on purpose: tells a wildcard from real names. */
export function randomLabel(): string {
  return `pmtr-${randomBytes(8).toString('hex')}`;
}

/** The character strings of a TXT record's data (`"a" "b"`), unescaped and joined (RFC 7208 §3.3). */
export function txtText(data: string): string {
  let out = '';
  const quoted = /"((?:[^"\\]|\\.)*)"/g;
  for (let match = quoted.exec(data); match !== null; match = quoted.exec(data)) {
    out += (match[1] ?? '').replace(/\\(\d{3}|.)/g, (_, escaped: string) =>
      escaped.length === 3 ? String.fromCharCode(Number(escaped)) : escaped,
    );
  }
  return out;
}

// SPF mechanisms and modifiers that name hosts: include:, a:, mx:, exists:, ptr:, redirect=.
const SPF_TERM = /(?:^|\s)[+?~-]?(?:include:|a:|mx:|exists:|ptr:|redirect=)([^\s/]+)/gi;

/** Host names an SPF record points at (macros and CIDR suffixes dropped). */
export function spfTargets(text: string): string[] {
  if (!/^v=spf1(?:\s|$)/i.test(text)) return [];
  const targets: string[] = [];
  SPF_TERM.lastIndex = 0;
  for (let match = SPF_TERM.exec(text); match !== null; match = SPF_TERM.exec(text)) {
    const target = match[1] ?? '';
    if (!target.includes('%')) targets.push(target);
  }
  return targets;
}

/** The host names one record points at: CNAME, DNAME, MX, NS, SRV and SOA targets, SPF terms of TXT. */
export function recordTargets(record: ZoneRecord): string[] {
  const fields = record.data.split(/\s+/);
  switch (record.type) {
    case 'CNAME':
    case 'DNAME':
    case 'NS':
      return [fields[0] ?? ''];
    case 'MX':
      return [fields[1] ?? ''];
    case 'SRV':
      return [fields[3] ?? ''];
    case 'SOA':
      return [fields[0] ?? ''];
    case 'TXT':
      return spfTargets(txtText(record.data));
    default:
      return [];
  }
}

/** Escapes a name for a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A scanner of free text (pages, scripts, headers, certificate fields) for host names equal to
 * or under the root: a label sequence ending in `.root`, not glued to a longer name.
 */
export function createHostScanner(root: string): (text: string) => string[] {
  const pattern = new RegExp(
    `(?<![a-z0-9_.-])(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\\.)*${escapeRegExp(root)}(?![a-z0-9_-]|\\.[a-z0-9_-])`,
    'gi',
  );
  return (text) => {
    const found = new Set<string>();
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const name = normaliseHost(match[0]);
      if (name !== undefined) found.add(name);
    }
    return [...found];
  };
}
