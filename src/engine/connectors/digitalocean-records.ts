import type { DnsRecordInput } from '../../core/zones/zone.types.ts';
import { quotedText } from './record-text.ts';

/**
 * DigitalOcean's domain records (API v2 `domain_records`) in presentation form. DigitalOcean keeps
 * names relative to the domain: the owner `name` is `@` for the apex or a relative name (`www`,
 * `_sip._tcp`), and host names in `data` (CNAME, MX, NS, SRV targets) are `@` for the apex, a
 * fully qualified name that the API returns without its final dot (`mail.example.net`), or,
 * written with one, kept as given. A single label (`mail`) cannot be a public host's full name and
 * is read as relative, as zone files do; a name with a dot is read as fully qualified, as the API
 * returns them. SOA (synthesised, `data` is only the TTL) and unknown types are skipped.
 */

/** One record of `GET /v2/domains/{name}/records` (as the SDK's Domain_record reads it: any field may be null). */
export interface DigitalOceanRecord {
  id?: number | null;
  type?: string | null;
  name?: string | null;
  data?: string | null;
  priority?: number | null;
  port?: number | null;
  ttl?: number | null;
  weight?: number | null;
  flags?: number | null;
  tag?: string | null;
}

/** The absolute owner name (lower case, no final dot) of a record name relative to the zone. */
export function ownerName(name: string | null | undefined, zone: string): string {
  const n = (name ?? '@').trim().toLowerCase();
  if (n === '@' || n === '') return zone;
  if (n.endsWith('.')) return n.slice(0, -1);
  if (n === zone || n.endsWith(`.${zone}`)) return n;
  return `${n}.${zone}`;
}

/** A host name of `data` as an absolute name with its final dot. */
export function hostTarget(data: string, zone: string): string {
  const d = data.trim().toLowerCase();
  if (d === '@' || d === '') return `${zone}.`;
  if (d.endsWith('.')) return d;
  if (!d.includes('.')) return `${d}.${zone}.`;
  return `${d}.`;
}

/** The RDATA of a record in presentation form, or undefined for a type that is not rendered. */
function rdataOf(record: DigitalOceanRecord, type: string, zone: string): string | undefined {
  const data = record.data ?? '';
  const n = (v: number | null | undefined) => String(v ?? 0);
  switch (type) {
    case 'A':
    case 'AAAA':
      return data.trim().toLowerCase();
    case 'CNAME':
    case 'NS':
      return hostTarget(data, zone);
    case 'MX':
      return `${n(record.priority)} ${hostTarget(data, zone)}`;
    case 'SRV':
      return `${n(record.priority)} ${n(record.weight)} ${n(record.port)} ${hostTarget(data, zone)}`;
    case 'TXT':
      return quotedText(data);
    case 'CAA': {
      // An issuer's domain is given with a final dot in DigitalOcean's examples; the value is a
      // domain name, not a DNS name, so the dot goes (iodef values are URLs and stay whole).
      const tag = (record.tag ?? 'issue').toLowerCase();
      const value = tag === 'iodef' ? data : data.replace(/\.$/, '');
      return `${n(record.flags)} ${tag} ${quotedText(value)}`;
    }
    default:
      return undefined;
  }
}

/** The records of one domain in presentation form (skipping the types not rendered). */
export function presentRecords(
  records: readonly DigitalOceanRecord[],
  zone: string,
  zoneTtl: number,
): DnsRecordInput[] {
  const out: DnsRecordInput[] = [];
  for (const record of records) {
    const type = (record.type ?? '').toUpperCase();
    const data = rdataOf(record, type, zone);
    if (data === undefined || data === '') continue;
    out.push({ name: ownerName(record.name, zone), type, ttl: record.ttl ?? zoneTtl, data });
  }
  return out;
}
