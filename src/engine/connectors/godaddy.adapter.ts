import type { AdapterContext, ConnectorAdapter } from './connector-adapter.ts';
import type { ProviderInventory, ProviderZone } from '../../core/connectors/connector-run.types.ts';
import type { DnsRecordInput } from '../../core/zones/zone.types.ts';
import { ConnectorRunError } from '../../core/connectors/connector-run.types.ts';
import { createRestClient, retryAfterMs, type RestClient, type RetryPolicy } from './rest-client.ts';
import { absoluteName, quotedText } from './record-text.ts';

/**
 * REGISTRAR_G: GoDaddy, through its documented REST API (it has no official Node SDK). Every
 * active domain of the account is a zone; its records come from the DNS records endpoint, paged
 * by offset. The key and secret travel only in the `Authorization: sso-key` header.
 */

/** GoDaddy's production API. */
const goDaddyApi = 'https://api.godaddy.com';

/** How the adapter pages and retries (tests use small pages and short waits). */
export interface GoDaddyAdapterSettings {
  domainPageSize: number;
  recordPageSize: number;
  retry: Partial<RetryPolicy>;
}

const defaultSettings: GoDaddyAdapterSettings = {
  domainPageSize: 1000,
  recordPageSize: 500,
  retry: {},
};

/** GoDaddy's error body names its code: `{"code": "UNABLE_TO_AUTHENTICATE", "message": …}`. */
function describeError(body: unknown): string | undefined {
  const code = (body as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code !== '' ? code.slice(0, 100) : undefined;
}

/** A throttled answer's `retryAfterSec` (GoDaddy's body field), else Retry-After, else a second. */
function throttleDelay(headers: Headers, body: unknown): number {
  const seconds = (body as { retryAfterSec?: unknown } | undefined)?.retryAfterSec;
  if (typeof seconds === 'number' && Number.isFinite(seconds)) return seconds * 1000;
  return retryAfterMs(headers) ?? 1000;
}

/** One record as GoDaddy's API lists it. */
interface GoDaddyRecord {
  type?: string;
  name?: string;
  data?: string;
  ttl?: number;
  priority?: number;
  port?: number;
  weight?: number;
  service?: string;
  protocol?: string;
}

/** A name relative to the zone ('@' the apex) made absolute. */
function inZone(name: string, zone: string): string {
  const relative = name.trim().toLowerCase().replace(/\.$/, '');
  return relative === '@' || relative === '' ? zone : `${relative}.${zone}`;
}

function targetOf(data: string, zone: string): string {
  return data.trim() === '@' ? `${zone}.` : absoluteName(data);
}

/** A SRV record's owner: `_service._protocol.<name>` unless the name already carries them. */
function srvOwner(record: GoDaddyRecord, zone: string): string {
  const owner = inZone(record.name ?? '@', zone);
  const prefix = [record.service, record.protocol].filter((p): p is string => typeof p === 'string' && p !== '');
  const labels = prefix.map((p) => (p.startsWith('_') ? p : `_${p}`).toLowerCase());
  return labels.length === 0 || owner.startsWith(`${labels.join('.')}.`) ? owner : `${labels.join('.')}.${owner}`;
}

/** A GoDaddy record in presentation form, or undefined for a type the adapter cannot render. */
export function goDaddyRecord(record: GoDaddyRecord, zone: string): DnsRecordInput | undefined {
  const type = (record.type ?? '').toUpperCase();
  const data = record.data ?? '';
  const ttl = typeof record.ttl === 'number' ? record.ttl : 3600;
  const name = inZone(record.name ?? '@', zone);
  switch (type) {
    case 'A':
    case 'AAAA':
    case 'CAA':
      return { name, ttl, type, data: data.trim() };
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return { name, ttl, type, data: targetOf(data, zone) };
    case 'MX':
      return { name, ttl, type, data: `${record.priority ?? 0} ${targetOf(data, zone)}` };
    case 'TXT':
      return { name, ttl, type, data: quotedText(data) };
    case 'SRV':
      return {
        name: srvOwner(record, zone),
        ttl,
        type,
        data: `${record.priority ?? 0} ${record.weight ?? 0} ${record.port ?? 0} ${targetOf(data, zone)}`,
      };
    default:
      return undefined;
  }
}

function asArray(body: unknown, what: string): unknown[] {
  if (Array.isArray(body)) return body;
  throw new ConnectorRunError('provider', `GoDaddy answered ${what} with an unexpected document`);
}

async function listDomains(client: RestClient, s: GoDaddyAdapterSettings) {
  const domains: string[] = [];
  let marker: string | undefined;
  for (;;) {
    const query = { statuses: 'ACTIVE', limit: s.domainPageSize, ...(marker === undefined ? {} : { marker }) };
    const body = await client.getJson('/v1/domains', query);
    const page = asArray(body, 'the domain list').map((d) => String((d as { domain?: unknown }).domain ?? ''));
    domains.push(...page.filter((d) => d !== ''));
    if (page.length < s.domainPageSize || page.length === 0) return domains;
    marker = page[page.length - 1];
  }
}

async function listRecords(
  client: RestClient,
  domain: string,
  s: GoDaddyAdapterSettings,
): Promise<DnsRecordInput[] | undefined> {
  const zone = domain.toLowerCase().replace(/\.$/, '');
  const records: DnsRecordInput[] = [];
  const path = `/v1/domains/${encodeURIComponent(domain)}/records`;
  for (let offset = 0; ; offset += s.recordPageSize) {
    const { status, body } = await client.get(path, { offset, limit: s.recordPageSize }, [404]);
    // A domain whose DNS GoDaddy does not host has no zone there (404 NOT_FOUND): not a failure.
    if (status === 404) return undefined;
    const page = asArray(body, 'a record list') as GoDaddyRecord[];
    for (const record of page) {
      const rendered = goDaddyRecord(record, zone);
      if (rendered !== undefined) records.push(rendered);
    }
    if (page.length < s.recordPageSize) return records;
  }
}

/** A GoDaddy adapter with its own paging and retry settings (the tests' small pages). */
export function createGoDaddyAdapter(settings: Partial<GoDaddyAdapterSettings> = {}): ConnectorAdapter {
  const s = { ...defaultSettings, ...settings };
  return {
    provider: 'REGISTRAR_G',
    async collect(context: AdapterContext): Promise<ProviderInventory> {
      const key = context.options.api_key ?? '';
      const secret = context.options.api_secret ?? '';
      const client = createRestClient({
        provider: 'GoDaddy',
        baseUrl: context.endpoint ?? goDaddyApi,
        headers: { authorization: `sso-key ${key}:${secret}` },
        fetch: context.fetch,
        signal: context.signal,
        timeoutMs: context.requestTimeoutMs,
        // GoDaddy asks for waits of a minute; a shorter wait and a retry beats giving up.
        retry: { delayOf: throttleDelay, isLongDelayShortened: true, ...s.retry },
        describeError,
      });
      const zones: ProviderZone[] = [];
      for (const domain of await listDomains(client, s)) {
        context.signal.throwIfAborted();
        const records = await listRecords(client, domain, s);
        if (records !== undefined) zones.push({ name: domain.toLowerCase().replace(/\.$/, ''), records });
      }
      return { zones, addresses: [], hostnames: [] };
    },
  };
}

/** REGISTRAR_G with GoDaddy's page sizes and a few capped retries. */
export const goDaddyAdapter: ConnectorAdapter = createGoDaddyAdapter();
