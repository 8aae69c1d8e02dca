import type { DnsRecordInput } from '../../core/zones/zone.types.ts';
import type { ProviderHostname } from '../../core/connectors/connector-run.types.ts';
import { absoluteName, quotedString, quotedText } from './record-text.ts';

/**
 * Cloudflare's DNS records (API v4 `dns_records`) in presentation form. Cloudflare gives complete
 * owner names in Punycode without a final dot; host names in `content` (CNAME, NS, PTR, MX
 * targets) also come without one, so the dot is added as zone files write them. MX priority is a
 * field of its own; SRV, CAA and URI have structured `data` that is rendered when present (SRV's
 * `content` has been returned both with and without the priority over the API's history). The
 * other types' `content` is already "formatted" presentation text (HTTPS, SVCB, DS, TLSA, …) and is
 * kept. A TTL of 1 means "automatic", which Cloudflare serves as 300 seconds.
 */

/** The fields of a record that rendering reads (the SDK's RecordResponse union has them all). */
export interface CloudflareRecord {
  name?: string;
  type?: string;
  content?: string;
  ttl?: number;
  priority?: number;
  proxied?: boolean;
  data?: {
    priority?: number;
    weight?: number;
    port?: number;
    target?: string;
    flags?: number | string;
    tag?: string;
    value?: string;
  };
}

/** Cloudflare's "automatic" TTL, and what it serves for it. */
const automaticTtl = 1;
const automaticTtlSeconds = 300;

function srvData(record: CloudflareRecord): string | undefined {
  const d = record.data;
  if (d?.target !== undefined && d.port !== undefined) {
    const priority = d.priority ?? record.priority ?? 0;
    return `${priority} ${d.weight ?? 0} ${d.port} ${absoluteName(d.target)}`;
  }
  const parts = (record.content ?? '').trim().split(/\s+/);
  if (parts.length === 3) parts.unshift(String(record.priority ?? 0));
  if (parts.length !== 4 || !parts.slice(0, 3).every((p) => /^\d+$/.test(p))) return undefined;
  return `${parts[0]} ${parts[1]} ${parts[2]} ${absoluteName(parts[3] ?? '')}`;
}

function caaData(record: CloudflareRecord): string | undefined {
  const d = record.data;
  if (d?.tag !== undefined && d.value !== undefined) return `${d.flags ?? 0} ${d.tag} ${quotedText(d.value)}`;
  return record.content;
}

/** The RDATA of a record in presentation form, or undefined when it cannot be rendered. */
function rdataOf(record: CloudflareRecord, type: string): string | undefined {
  const content = record.content ?? '';
  switch (type) {
    case 'A':
    case 'AAAA':
      return content.trim().toLowerCase();
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return content === '' ? undefined : absoluteName(content);
    case 'MX':
      return content === '' ? undefined : `${record.priority ?? record.data?.priority ?? 0} ${absoluteName(content)}`;
    case 'TXT':
      return quotedText(content);
    case 'SRV':
      return srvData(record);
    case 'CAA':
      return caaData(record);
    case 'URI': {
      const d = record.data;
      if (d?.target === undefined) return content === '' ? undefined : content;
      return `${record.priority ?? d.priority ?? 0} ${d.weight ?? 0} ${quotedString(d.target)}`;
    }
    default:
      return content === '' ? undefined : content.trim();
  }
}

/** The records of one zone in presentation form (skipping those that cannot be rendered). */
export function presentRecords(records: readonly CloudflareRecord[]): DnsRecordInput[] {
  const out: DnsRecordInput[] = [];
  for (const record of records) {
    const type = (record.type ?? '').toUpperCase();
    const name = (record.name ?? '').toLowerCase().replace(/\.$/, '');
    const data = rdataOf(record, type);
    if (type === '' || name === '' || data === undefined || data === '') continue;
    const ttl = record.ttl === undefined || record.ttl === automaticTtl ? automaticTtlSeconds : record.ttl;
    out.push({ name, type, ttl, data });
  }
  return out;
}

/**
 * The names Cloudflare serves through its CDN: a proxied record's name resolves to Cloudflare's
 * edge, which serves the account's site there. Each name once.
 */
export function proxiedHostnames(records: readonly CloudflareRecord[]): ProviderHostname[] {
  const names = new Set<string>();
  for (const record of records) {
    if (record.proxied !== true || record.name === undefined) continue;
    names.add(record.name.toLowerCase().replace(/\.$/, ''));
  }
  return [...names].map((name) => ({ name, source: 'cloudflare proxied record' }));
}
