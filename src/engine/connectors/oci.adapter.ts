import { createPrivateKey } from 'node:crypto';
import * as common from 'oci-common';
import * as core from 'oci-core';
import * as dns from 'oci-dns';
import type { AdapterContext, ConnectorAdapter } from './connector-adapter.ts';
import {
  ConnectorRunError,
  type ProviderAddress,
  type ProviderInventory,
  type ProviderZone,
} from '../../core/connectors/connector-run.types.ts';
import type { DnsRecordInput } from '../../core/zones/zone.types.ts';
import { GuardedOciHttpClient, ociClientConfiguration, type OciRetrySettings } from './oci-http-client.ts';
import { ownerName, presentationData } from './record-text.ts';
import { abortReason, untilAborted } from '../../shared/abortable.ts';
import { unreachableError } from './run-failures.ts';

/**
 * CLOUD_F: Oracle Cloud Infrastructure, through the official OCI TypeScript SDK (oci-dns for the
 * DNS zones of the compartment and their records, oci-core for its public IPs). Requests are
 * signed with the API key of the connector's user and sent through the egress guard (see
 * oci-http-client.ts); the SDK retries throttled answers a few times.
 */

/** How the adapter pages and retries (tests use small pages and short waits). */
export interface OciAdapterSettings {
  pageSize: number;
  retry: OciRetrySettings;
}

const defaultSettings: OciAdapterSettings = {
  pageSize: 100,
  retry: { maxAttempts: 4, baseDelaySeconds: 1, maxDelaySeconds: 8 },
};

const unusableKey = 'The API signing key could not be used (is it a PEM RSA key, with the right passphrase?)';

/** The pieces of one run: its clients and their transports. */
interface OciSession {
  compartmentId: string;
  dns: dns.DnsClient;
  network: core.VirtualNetworkClient;
  transport: GuardedOciHttpClient;
}

/**
 * The signing key, opened with Node's crypto and handed to the SDK unencrypted: the SDK's key
 * parser (sshpk) throws a wrong passphrase's error from a stream event, outside any promise, which
 * would end the process instead of failing the run. Throws for a key that cannot be used.
 */
function openedKey(pem: string, passphrase: string | undefined): string {
  const key = createPrivateKey({ key: pem, format: 'pem', ...(passphrase === undefined ? {} : { passphrase }) });
  if (key.asymmetricKeyType !== 'rsa') throw new Error('not an RSA key');
  return String(key.export({ type: 'pkcs1', format: 'pem' }));
}

function openSession(context: AdapterContext, settings: OciAdapterSettings): OciSession {
  const o = context.options;
  const provider = new common.SimpleAuthenticationDetailsProvider(
    o.tenancy_ocid ?? '',
    o.user_ocid ?? '',
    o.fingerprint ?? '',
    openedKey(o.private_key ?? '', o.passphrase),
    null,
  );
  const transport = new GuardedOciHttpClient(new common.DefaultRequestSigner(provider), context);
  // The transport signs with the provider's key; the clients only get the region or endpoint.
  const dnsClient = new dns.DnsClient({ httpClient: transport }, ociClientConfiguration(settings.retry));
  const network = new core.VirtualNetworkClient({ httpClient: transport }, ociClientConfiguration(settings.retry));
  if (context.endpoint === undefined) {
    // The SDK builds the service URLs of the region (a region it does not know is taken as OC1's).
    dnsClient.regionId = o.region ?? '';
    network.regionId = o.region ?? '';
  } else {
    const endpoint = context.endpoint.replace(/\/+$/, '');
    dnsClient.endpoint = endpoint;
    network.endpoint = endpoint;
  }
  return { compartmentId: o.compartment_ocid ?? o.tenancy_ocid ?? '', dns: dnsClient, network, transport };
}

/**
 * An error answer as the SDK reports it (an OciError; each OCI package bundles its own copy of
 * oci-common, so `instanceof` cannot be trusted across packages).
 */
function isServiceError(err: unknown): err is { statusCode: number; serviceCode: string } {
  const e = err as { statusCode?: unknown; serviceCode?: unknown } | null;
  return typeof e?.statusCode === 'number' && typeof e.serviceCode === 'string';
}

/** What a failed SDK call means for the run (never showing a key or a signature). */
function runFailure(err: unknown, session: OciSession, context: AdapterContext): Error {
  if (context.signal.aborted) return abortReason(context.signal);
  if (err instanceof ConnectorRunError) return err;
  const failure = session.transport.failure;
  if (failure?.kind === 'key') return new ConnectorRunError('options', unusableKey);
  if (failure?.kind === 'connection') return unreachableError('Oracle Cloud', failure.error);
  if (isServiceError(err)) {
    const said = `${err.serviceCode}, HTTP ${err.statusCode}`;
    if (err.statusCode === 401)
      return new ConnectorRunError('credentials', `Oracle Cloud refused the credentials (${said})`);
    if (err.statusCode === 403 || (err.statusCode === 404 && err.serviceCode === 'NotAuthorizedOrNotFound'))
      return new ConnectorRunError('permission', `Oracle Cloud refused access to the compartment (${said})`);
    if (err.statusCode === 429)
      return new ConnectorRunError('throttled', `Oracle Cloud kept throttling the requests (${said})`);
    return new ConnectorRunError('provider', `Oracle Cloud answered with an error (${said})`);
  }
  return new ConnectorRunError('provider', 'The Oracle Cloud SDK failed without an answer from the provider');
}

/** Runs every page of a listing: `fetchPage(page)` gives the items and the next page token. */
async function allPages<T>(
  context: AdapterContext,
  fetchPage: (page: string | undefined) => Promise<{ items: T[]; next: string | undefined }>,
): Promise<T[]> {
  const all: T[] = [];
  let page: string | undefined;
  do {
    context.signal.throwIfAborted();
    // The SDK sleeps between retries without watching the signal: a stopped run must not wait for it.
    const { items, next } = await untilAborted(fetchPage(page), context.signal);
    all.push(...items);
    page = next;
  } while (page !== undefined && page !== '');
  return all;
}

async function zoneRecords(session: OciSession, context: AdapterContext, zone: dns.models.ZoneSummary, limit: number) {
  const items = await allPages(context, async (page) => {
    const r = await session.dns.getZoneRecords({ zoneNameOrId: zone.id, limit, page });
    return { items: r.recordCollection.items, next: r.opcNextPage };
  });
  const records: DnsRecordInput[] = [];
  for (const item of items) {
    const type = (item.rtype ?? '').toUpperCase();
    const data = presentationData(type, item.rdata ?? '');
    if (data === undefined || item.domain === undefined) continue;
    records.push({ name: ownerName(item.domain), ttl: item.ttl ?? 0, type, data });
  }
  return records;
}

async function collectZones(session: OciSession, context: AdapterContext, limit: number): Promise<ProviderZone[]> {
  const zones = await allPages(context, async (page) => {
    const r = await session.dns.listZones({
      compartmentId: session.compartmentId,
      zoneType: dns.requests.ListZonesRequest.ZoneType.Primary,
      scope: dns.models.Scope.Global,
      limit,
      page,
    });
    return { items: r.items, next: r.opcNextPage };
  });
  const result: ProviderZone[] = [];
  for (const zone of zones)
    result.push({ name: ownerName(zone.name), records: await zoneRecords(session, context, zone, limit) });
  return result;
}

const gone = new Set<string>([
  core.models.PublicIp.LifecycleState.Terminated,
  core.models.PublicIp.LifecycleState.Terminating,
]);

async function collectAddresses(
  session: OciSession,
  context: AdapterContext,
  limit: number,
): Promise<ProviderAddress[]> {
  const { Scope, Lifetime } = core.requests.ListPublicIpsRequest;
  const addresses: ProviderAddress[] = [];
  for (const lifetime of [Lifetime.Ephemeral, Lifetime.Reserved]) {
    const ips = await allPages(context, async (page) => {
      const r = await session.network.listPublicIps({
        scope: Scope.Region,
        compartmentId: session.compartmentId,
        lifetime,
        limit,
        page,
      });
      return { items: r.items, next: r.opcNextPage };
    });
    for (const ip of ips) {
      if (ip.ipAddress === undefined || gone.has(String(ip.lifecycleState))) continue;
      addresses.push({ address: ip.ipAddress, source: `public ip ${ip.displayName ?? ip.id ?? ip.ipAddress}` });
    }
  }
  return addresses;
}

/** An OCI adapter with its own paging and retry settings (the tests' small pages). */
export function createOciAdapter(settings: Partial<OciAdapterSettings> = {}): ConnectorAdapter {
  const s = { ...defaultSettings, ...settings };
  return {
    provider: 'CLOUD_F',
    async collect(context: AdapterContext): Promise<ProviderInventory> {
      let session: OciSession;
      try {
        session = openSession(context, s);
      } catch {
        // The SDK parses the key up front; its message may quote the key's text, so it is not kept.
        throw new ConnectorRunError('options', unusableKey);
      }
      try {
        const zones = await collectZones(session, context, s.pageSize);
        const addresses = await collectAddresses(session, context, s.pageSize);
        return { zones, addresses, hostnames: [] };
      } catch (err) {
        throw runFailure(err, session, context);
      } finally {
        session.dns.close();
        session.network.close();
      }
    },
  };
}

/** CLOUD_F with OCI's page sizes and a few retries. */
export const ociAdapter: ConnectorAdapter = createOciAdapter();
