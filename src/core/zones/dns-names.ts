import type { AssetStatus } from '../assets/asset.types.ts';
import type { DnsRecordInput, ZoneSource } from './zone.types.ts';

/** The sources in the order added_by lists them, and their bit in a name's `sources`. */
export const zoneSources: readonly ZoneSource[] = ['zone-file', 'zone-transfer', 'zone-lookup'];

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
 * A name with its labels in reverse order (`www.example.com` → `com.example.www`): the storage
 * key of discovered names. Everything under a domain D then sorts between `rev(D).` and
 * `rev(D)/` (the byte after the dot), one key range. It is its own inverse: the name of a key
 * is reverseName(key).
 */
export function reverseName(name: string): string {
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
export function recordSet(records: readonly DnsRecordInput[], into: Map<string, [string, number, string]> = new Map()): StoredRecords {
  for (const r of records) into.set(`${r.type} ${r.data}`, [r.type, r.ttl, r.data]);
  return [...into.values()];
}

/** Merges a stored set with newly seen records of the same source (one indexing run). */
export function mergeRecordSets(stored: StoredRecords, records: readonly DnsRecordInput[]): StoredRecords {
  return recordSet(records, new Map(stored.map((r) => [`${r[0]} ${r[2]}`, r])));
}

/**
 * A name found by DNS under one of the team's root domain assets. It is listed as a subdomain
 * of that root (taking the root's status: ownership of the root covers the names under it)
 * without an asset row; one is made when the name is acted upon.
 */
export interface DiscoveredName {
  teamId: number;
  name: string;
  rootId: number;
  token: string;
  /** An asset of the team has this name (made by hand, or from this name when acted upon). */
  shadowed: boolean;
  status: AssetStatus;
  sources: ZoneSource[];
  firstSeen: Date;
  updated: Date;
  lastSeen: Date;
}
