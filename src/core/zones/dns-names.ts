import type { ZoneSource } from '../assets/asset.types.ts';
import type { DnsRecordInput } from './zone.types.ts';

/** The sources in the order added_by lists them, and their bit in a name's `sources`. */
export const zoneSources: readonly ZoneSource[] = [
  'zone-file',
  'zone-transfer',
  'zone-lookup',
  'dns-scrape',
  'certificate-scrape',
  'page-scrape',
  'brute-force',
  'permutation',
  'surface-monitoring',
  'connector',
];

/** The bit of each source in a discovered name's `sources`. */
export function sourceBits(sources: readonly ZoneSource[]): number {
  let bits = 0;
  for (const source of sources) bits |= 1 << zoneSources.indexOf(source);
  return bits;
}

/** The sources a bit set stands for, in zoneSources order. */
export function sourcesOf(bits: number): ZoneSource[] {
  return zoneSources.filter((_, i) => (bits & (1 << i)) !== 0);
}

/**
 * The labels of a name in presentation form (owner form: `foo\.bar.example.com`), escapes
 * kept: only a dot that no backslash escapes separates labels, so `foo\.bar` is one label
 * (its wire label holds a dot byte), as the engine writes names it read from a zone file or
 * the wire. A final separating dot gives a final empty label.
 */
export function nameLabels(name: string): string[] {
  if (!name.includes('\\')) return name.split('.');
  const labels: string[] = [];
  let start = 0;
  for (let i = 0; i < name.length; i += 1) {
    const code = name.charCodeAt(i);
    if (code === 0x5c)
      i += 1; // the escaped character (or the first digit of \DDD) never separates
    else if (code === 0x2e) {
      labels.push(name.slice(start, i));
      start = i + 1;
    }
  }
  labels.push(name.slice(start));
  return labels;
}

/** The name one label up (`www.example.com` → `example.com`), undefined for a single label; escaped dots are not separators. */
export function parentName(name: string): string | undefined {
  if (!name.includes('\\')) {
    const dot = name.indexOf('.');
    return dot === -1 ? undefined : name.slice(dot + 1);
  }
  const first = nameLabels(name)[0] as string;
  return first.length === name.length ? undefined : name.slice(first.length + 1);
}

/** Owner form of a presentation name: lower-case ASCII, without a final separating dot (an escaped final dot stays). */
export function ownerName(name: string): string {
  const lower = name.toLowerCase();
  if (!lower.endsWith('.') || lower === '.') return lower;
  const labels = nameLabels(lower);
  return labels[labels.length - 1] === '' ? lower.slice(0, -1) : lower;
}

/**
 * A name with its labels in reverse order (`www.example.com` → `com.example.www`): the storage
 * key of discovered names. Everything under a domain D then sorts between `rev(D).` and
 * `rev(D)/` (the byte after the dot), one key range. Labels are split where nameLabels splits
 * them, so `foo\.example.com` → `com.foo\.example`: under `com`, not under `example.com`.
 * It is its own inverse: the name of a key is reverseName(key).
 */
export function reverseName(name: string): string {
  if (name.includes('\\')) return nameLabels(name).reverse().join('.');
  let out = '';
  let end = name.length;
  for (let dot = name.lastIndexOf('.'); dot !== -1; dot = name.lastIndexOf('.', dot - 1)) {
    out += `${name.slice(dot + 1, end)}.`;
    end = dot;
    if (dot === 0) break;
  }
  return out + name.slice(0, end);
}

/** The key range [from, to) holding the names strictly under a domain. */
export function rangeUnder(domain: string): { from: string; to: string } {
  const key = reverseName(domain);
  return { from: `${key}.`, to: `${key}/` };
}

/** A name's record set of one source as stored: [type, ttl, data] triples. */
export type StoredRecords = Array<[string, number, string]>;

/** The record set of a name: one record per type and data (the last TTL seen wins). */
export function recordSet(
  records: readonly DnsRecordInput[],
  into: Map<string, [string, number, string]> = new Map(),
): StoredRecords {
  for (const r of records) into.set(`${r.type} ${r.data}`, [r.type, r.ttl, r.data]);
  return [...into.values()];
}

/** Merges a stored set with newly seen records of the same source (one indexing run). */
export function mergeRecordSets(stored: StoredRecords, records: readonly DnsRecordInput[]): StoredRecords {
  return recordSet(records, new Map(stored.map((r) => [`${r[0]} ${r[2]}`, r])));
}
