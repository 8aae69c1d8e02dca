import type { AdapterContext, ConnectorAdapter } from './connector-adapter.ts';
import { ConnectorRunError, type ProviderInventory } from '../../core/connectors/connector-run.types.ts';
import type { DnsRecordInput } from '../../core/zones/zone.types.ts';
import { createRestClient, type RestClient, type RetryPolicy } from './rest-client.ts';
import { ownerName, presentationData } from './record-text.ts';

/**
 * DNS_H: NS1 (IBM NS1 Connect), through its documented REST API v1 with the `X-NSONE-Key` header.
 * GET /v1/zones lists the zones, GET /v1/zones/{zone} gives each zone with its records' summary
 * (`short_answers` in presentation form). Both are paged the way NS1 pages them and its official
 * Go client follows: a `Link: <…>; rel="next"` header names the next page until the last one.
 * A throttled answer (429) is retried after the X-RateLimit-Period it gives.
 */

/** NS1's API. */
const ns1Api = 'https://api.nsone.net';

/** The NS1 rate-limit window header (seconds) a 429 carries. */
const periodHeader = 'x-ratelimit-period';

/** NS1's error body: `{"message": "Unauthorized"}`. */
function describeError(body: unknown): string | undefined {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message.slice(0, 100) : undefined;
}

/** A throttled answer's X-RateLimit-Period (the window, in seconds), else a second. */
function throttleDelay(headers: Headers): number {
  const seconds = Number(headers.get(periodHeader) ?? '');
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000;
}

/** A record's summary in a zone document. */
interface Ns1RecordSummary {
  domain?: string;
  type?: string;
  ttl?: number;
  short_answers?: unknown;
}

/** The next page's path and query from a Link header (the client keeps it on the configured base), or undefined. */
export function nextPage(link: string | null): string | undefined {
  if (link === null) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;(?:[^;]*;)*\s*rel="?next"?/i.exec(part.trim());
    if (match?.[1] === undefined) continue;
    const target = new URL(match[1], ns1Api);
    // A page link may name NS1's public host behind a proxy: only its path and query are used.
    if (!target.pathname.startsWith('/v1/')) return undefined;
    return `${target.pathname}${target.search}`;
  }
  return undefined;
}

/** A zone document's records, one DnsRecordInput per short answer. */
function recordsOf(summaries: readonly Ns1RecordSummary[], defaultTtl: number): DnsRecordInput[] {
  const records: DnsRecordInput[] = [];
  for (const summary of summaries) {
    const type = (summary.type ?? '').toUpperCase();
    const answers = Array.isArray(summary.short_answers) ? summary.short_answers : [];
    for (const answer of answers) {
      const data = typeof answer === 'string' ? presentationData(type, answer) : undefined;
      if (data === undefined || summary.domain === undefined) continue;
      records.push({ name: ownerName(summary.domain), ttl: summary.ttl ?? defaultTtl, type, data });
    }
  }
  return records;
}

function asObject(body: unknown, what: string): Record<string, unknown> {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new ConnectorRunError('provider', `NS1 answered ${what} with an unexpected document`);
}

async function listZones(client: RestClient) {
  const names: string[] = [];
  for (let url: string | undefined = '/v1/zones'; url !== undefined;) {
    const answer = await client.get(url);
    if (!Array.isArray(answer.body))
      throw new ConnectorRunError('provider', 'NS1 answered the zone list with an unexpected document');
    for (const zone of answer.body) {
      const name = (zone as { zone?: unknown }).zone;
      if (typeof name === 'string' && name !== '') names.push(name);
    }
    url = nextPage(answer.headers.get('link'));
  }
  return names;
}

async function zoneRecords(client: RestClient, zone: string, signal: AbortSignal): Promise<DnsRecordInput[]> {
  const records: DnsRecordInput[] = [];
  for (let url: string | undefined = `/v1/zones/${encodeURIComponent(zone)}`; url !== undefined;) {
    signal.throwIfAborted();
    const answer = await client.get(url);
    const document = asObject(answer.body, `zone ${zone}`);
    const summaries = Array.isArray(document.records) ? (document.records as Ns1RecordSummary[]) : [];
    records.push(...recordsOf(summaries, typeof document.ttl === 'number' ? document.ttl : 3600));
    url = nextPage(answer.headers.get('link'));
  }
  return records;
}

/** An NS1 adapter with its own retry settings (the tests' short waits). */
export function createNs1Adapter(retry: Partial<RetryPolicy> = {}): ConnectorAdapter {
  return {
    provider: 'DNS_H',
    async collect(context: AdapterContext): Promise<ProviderInventory> {
      const client = createRestClient({
        provider: 'NS1',
        baseUrl: context.endpoint ?? ns1Api,
        headers: { 'x-nsone-key': context.options.api_key ?? '' },
        fetch: context.fetch,
        signal: context.signal,
        timeoutMs: context.requestTimeoutMs,
        retry: { delayOf: throttleDelay, isLongDelayShortened: true, ...retry },
        describeError,
      });
      const zones = [];
      for (const zone of await listZones(client))
        zones.push({ name: ownerName(zone), records: await zoneRecords(client, zone, context.signal) });
      return { zones, addresses: [], hostnames: [] };
    },
  };
}

/** DNS_H with a few capped retries. */
export const ns1Adapter: ConnectorAdapter = createNs1Adapter();
