import {
  ConnectorRunError,
  type ProviderAddress,
  type ProviderZone,
} from '../../core/connectors/connector-run.types.ts';
import type { AdapterContext, ConnectorAdapter } from './connector-adapter.ts';
import { createDigitalOceanSdk, onBaseUrl } from './digitalocean-client.ts';
import { sdkFailure } from './digitalocean-errors.ts';
import { presentRecords } from './digitalocean-records.ts';
import type {
  DigitalOceanClient,
  Forward_links,
  ListRequestBuilder,
  Page_links,
  PageQueryParameters,
  Paged,
} from './digitalocean-sdk.js';
import { abortReason } from '../../shared/abortable.ts';

/**
 * CLOUD_E, DigitalOcean, read through DigitalOcean's official JavaScript SDK, `@digitalocean/dots`
 * (a Kiota client of the REST API v2; digitalocean-client.ts wires it to `context.fetch`, the
 * egress guard, with its own throttling retry: 429 and 503 retried after Retry-After or
 * `ratelimit-reset`, capped). Lists are read in pages of `per_page` 200, following
 * `links.pages.next` (through the SDK's `withUrl`, on the configured base URL) until it is absent.
 *
 * It reads the domains with their records (zones), the droplets' public IPv4 and IPv6 addresses,
 * the reserved IPs and the load balancers' addresses. `context.endpoint`, when set, replaces
 * https://api.digitalocean.com (the SDK's `requestAdapter.baseUrl`).
 */

/** The largest page DigitalOcean serves. */
const perPage = 200;

/** The request configuration of a list: its page and page size, or none for a paging link. */
interface PageConfig {
  queryParameters: PageQueryParameters;
}

/** One run's SDK client, base URL and signal. */
interface Run {
  client: DigitalOceanClient;
  baseUrl: string;
  signal: AbortSignal;
}

/**
 * `links.pages.next`, or undefined on the last page. The SDK reads `pages` as the first of its
 * composed types that parses (Backward_links: `first`, `prev`), so `next` may land in
 * `additionalData` rather than in the typed field.
 */
function nextLinkOf(links: Page_links | null | undefined): string | undefined {
  const pages = links?.pages;
  const next: unknown = (pages as Forward_links | null | undefined)?.next ?? pages?.additionalData?.['next'];
  return typeof next === 'string' && next !== '' ? next : undefined;
}

/** Every item of a listing, page after page. */
async function readAll<R extends Paged, T>(
  run: Run,
  listing: ListRequestBuilder<R>,
  itemsOf: (page: R) => T[] | null | undefined,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let request = listing;
  let config: PageConfig | undefined = { queryParameters: { page: 1, perPage } };
  for (;;) {
    if (run.signal.aborted) throw abortReason(run.signal);
    const url = request.toGetRequestInformation(config).URL;
    const what = `GET ${new URL(url).pathname}`;
    const page = await request.get(config).catch((err: unknown) => {
      throw sdkFailure(err, what, run.signal);
    });
    if (page === undefined)
      throw new ConnectorRunError('provider', `DigitalOcean answered ${what} with no JSON document`);
    items.push(...(itemsOf(page) ?? []));
    seen.add(url);
    const next = nextLinkOf(page.links);
    if (next === undefined) return items;
    const nextUrl = onBaseUrl(next, run.baseUrl);
    // A next link already read would page forever.
    if (seen.has(nextUrl))
      throw new ConnectorRunError('provider', `DigitalOcean's pages of ${what} lead back to a page already read`);
    // The next link carries its own page and per_page.
    request = listing.withUrl(nextUrl);
    config = undefined;
  }
}

async function readZones(run: Run): Promise<ProviderZone[]> {
  const domains = await readAll(run, run.client.v2.domains, (page) => page.domains);
  const zones: ProviderZone[] = [];
  for (const domain of domains) {
    if (typeof domain.name !== 'string' || domain.name === '') continue;
    const zone = domain.name.toLowerCase().replace(/\.$/, '');
    const listing = run.client.v2.domains.byDomain_name(zone).records;
    const records = await readAll(run, listing, (page) => page.domainRecords);
    zones.push({ name: zone, records: presentRecords(records, zone, domain.ttl ?? 1800) });
  }
  return zones;
}

async function readAddresses(run: Run): Promise<ProviderAddress[]> {
  const { v2 } = run.client;
  const addresses: ProviderAddress[] = [];
  const add = (address: string | null | undefined, source: string) => {
    if (typeof address === 'string' && address !== '') addresses.push({ address, source });
  };
  for (const droplet of await readAll(run, v2.droplets, (page) => page.droplets)) {
    const source = `droplet ${droplet.name ?? '?'} (${droplet.region?.slug ?? '?'})`;
    const networks = [...(droplet.networks?.v4 ?? []), ...(droplet.networks?.v6 ?? [])];
    for (const network of networks) if (network.type === 'public') add(network.ipAddress, source);
  }
  for (const reserved of await readAll(run, v2.reserved_ips, (page) => page.reservedIps)) {
    // The SDK reads `"droplet": null` (not assigned) as an empty object: no name, no holder.
    const name = reserved.droplet?.name;
    const holder = typeof name === 'string' ? ` of droplet ${name}` : '';
    add(reserved.ip, `reserved ip${holder} (${reserved.region?.slug ?? '?'})`);
  }
  for (const balancer of await readAll(run, v2.load_balancers, (page) => page.loadBalancers)) {
    add(balancer.ip, `load balancer ${balancer.name ?? '?'}`);
    add(balancer.ipv6, `load balancer ${balancer.name ?? '?'}`);
  }
  return addresses;
}

async function collect(context: AdapterContext) {
  const { client, baseUrl } = createDigitalOceanSdk(context);
  const run: Run = { client, baseUrl, signal: context.signal };
  const zones = await readZones(run);
  const addresses = await readAddresses(run);
  return { zones, addresses, hostnames: [] };
}

/** The DigitalOcean (CLOUD_E) adapter: domains and records, droplets, reserved IPs, load balancers. */
export const digitalOceanAdapter: ConnectorAdapter = { provider: 'CLOUD_E', collect };
