import Cloudflare from 'cloudflare';
import type { ProviderHostname, ProviderInventory, ProviderZone } from '../../core/connectors/connector-run.types.ts';
import type { AdapterContext, ConnectorAdapter } from './connector-adapter.ts';
import { presentRecords, proxiedHostnames, type CloudflareRecord } from './cloudflare-records.ts';
import { cloudflareFailure, cloudflareTransport, type CloudflareTransport } from './cloudflare-transport.ts';
import { abortReason, untilAborted } from '../../shared/abortable.ts';

/**
 * CDN_D, Cloudflare, through its official TypeScript SDK (`cloudflare`): the zones the API token
 * can read (only those of `account_id` when it is set), every DNS record of each, and the names of
 * proxied records as CDN host names. The SDK pages by `page`/`per_page` (the v4 envelope's
 * `result_info`); the adapter stops at `total_pages` rather than asking for one more, empty page.
 *
 * Retries are the SDK's own (`maxRetries` 3): it honours Retry-After (and `retry-after-ms`) on 429
 * and 5xx answers and otherwise backs off from 0.5 s; cloudflare-transport.ts keeps it from waiting
 * minutes and from retrying a connection the egress guard refused. Every request goes through
 * `context.fetch` with the run's signal; the SDK never reads credentials from the environment
 * (apiKey, apiEmail and userServiceKey are set to null) and never logs (logLevel off).
 * `context.endpoint`, when set, replaces https://api.cloudflare.com/client/v4 whole.
 */

const defaultBaseUrl = 'https://api.cloudflare.com/client/v4';
/** The largest page of zones Cloudflare serves. */
const zonesPerPage = 50;
/** Records per page (Cloudflare allows far more; a page this size stays a few MB). */
const recordsPerPage = 5000;

/** What the adapter needs of a page of the SDK's V4PagePaginationArray. */
interface SdkPage<T> {
  getPaginatedItems(): T[];
  result_info: { page?: number };
  iterPages(): AsyncGenerator<SdkPage<T>>;
}

/** Every item of a listing: page after page, until `result_info.total_pages` (or an empty page). */
async function* itemsOf<T>(first: PromiseLike<SdkPage<T>>, signal: AbortSignal): AsyncGenerator<T> {
  for await (const page of (await first).iterPages()) {
    yield* page.getPaginatedItems();
    const info = page.result_info as { page?: number; total_pages?: number };
    if (typeof info.total_pages === 'number' && (info.page ?? 1) >= info.total_pages) return;
    if (signal.aborted) throw abortReason(signal);
  }
}

function clientOf(context: AdapterContext, transport: CloudflareTransport): Cloudflare {
  return new Cloudflare({
    apiToken: context.options.api_token ?? '',
    apiKey: null,
    apiEmail: null,
    userServiceKey: null,
    baseURL: context.endpoint ?? defaultBaseUrl,
    fetch: transport.fetch,
    maxRetries: 3,
    timeout: context.requestTimeoutMs,
    logLevel: 'off',
  });
}

async function readInventory(
  client: Cloudflare,
  context: AdapterContext,
  signal: AbortSignal,
): Promise<ProviderInventory> {
  const accountId = context.options.account_id;
  const query = { per_page: zonesPerPage, ...(accountId === undefined ? {} : { account: { id: accountId } }) };
  const zones: ProviderZone[] = [];
  const hostnames = new Map<string, ProviderHostname>();
  for await (const zone of itemsOf(client.zones.list(query, { signal }), signal)) {
    const records: CloudflareRecord[] = [];
    const listing = client.dns.records.list({ zone_id: zone.id, per_page: recordsPerPage }, { signal });
    // The SDK's RecordResponse union has every field rendering reads, each type's `data` among them.
    for await (const record of itemsOf(listing, signal)) records.push(record as unknown as CloudflareRecord);
    zones.push({ name: zone.name.toLowerCase().replace(/\.$/, ''), records: presentRecords(records) });
    for (const hostname of proxiedHostnames(records)) hostnames.set(hostname.name, hostname);
  }
  return { zones, addresses: [], hostnames: [...hostnames.values()] };
}

async function collect(context: AdapterContext): Promise<ProviderInventory> {
  const transport = cloudflareTransport(context);
  const client = clientOf(context, transport);
  try {
    // The SDK sleeps between retries without watching the signal: the run must not wait for it.
    return await untilAborted(readInventory(client, context, transport.signal), context.signal);
  } catch (err) {
    throw cloudflareFailure(err, context, transport);
  }
}

/** The Cloudflare (CDN_D) adapter: zones and DNS records, proxied names as CDN host names. */
export const cloudflareAdapter: ConnectorAdapter = { provider: 'CDN_D', collect };
