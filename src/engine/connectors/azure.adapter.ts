import { DnsManagementClient } from '@azure/arm-dns';
import { NetworkManagementClient } from '@azure/arm-network';
import { ClientSecretCredential } from '@azure/identity';
import type { HttpClient } from '@azure/core-rest-pipeline';
import type {
  ProviderAddress,
  ProviderHostname,
  ProviderInventory,
  ProviderZone,
} from '../../core/connectors/connector-run.types.ts';
import type { DnsRecordInput } from '../../core/zones/zone.types.ts';
import type { AdapterContext, ConnectorAdapter } from './connector-adapter.ts';
import { azureFailure } from './azure-errors.ts';
import { azureTransport } from './azure-http-client.ts';
import { recordsOfSet } from './azure-records.ts';
import { ownerName } from './record-text.ts';

/**
 * Microsoft Azure (CLOUD_B): a service principal's client secret gets a token from Microsoft Entra
 * ID (ClientSecretCredential), then Azure Resource Manager lists the subscription's public DNS
 * zones with every record set (DnsManagementClient) and its public IP addresses with their DNS
 * names (NetworkManagementClient). All of it through the guarded HTTP client; ARM's 429 answers
 * are retried by the pipeline's own retry policy, which honours Retry-After.
 */

/** Few retries with short waits: a run must neither give up at once nor hang on a busy API. */
const retryOptions = { maxRetries: 3, retryDelayInMs: 200, maxRetryDelayInMs: 2000 };

/** Stops paging as soon as the run is aborted. */
function checkSignal(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

/** The resource group a resource ID names (`/subscriptions/…/resourceGroups/<rg>/…`). */
function resourceGroupOf(id: string | undefined): string | undefined {
  return id === undefined ? undefined : /\/resourcegroups\/([^/]+)/i.exec(id)?.[1];
}

/** Every public zone of the subscription with all of its record sets, page after page. */
async function readZones(dns: DnsManagementClient, signal: AbortSignal): Promise<ProviderZone[]> {
  const zones: ProviderZone[] = [];
  for await (const page of dns.zones.list({ abortSignal: signal }).byPage()) {
    checkSignal(signal);
    for (const zone of page) {
      const group = resourceGroupOf(zone.id);
      if (zone.name === undefined || group === undefined || zone.zoneType === 'Private') continue;
      const records: DnsRecordInput[] = [];
      for await (const sets of dns.recordSets.listByDnsZone(group, zone.name, { abortSignal: signal }).byPage()) {
        checkSignal(signal);
        for (const set of sets) records.push(...recordsOfSet(set));
      }
      zones.push({ name: ownerName(zone.name), records });
    }
  }
  return zones;
}

/** The subscription's public IP addresses that hold an address, and their DNS names. */
async function readPublicIps(
  network: NetworkManagementClient,
  signal: AbortSignal,
): Promise<{ addresses: ProviderAddress[]; hostnames: ProviderHostname[] }> {
  const addresses: ProviderAddress[] = [];
  const hostnames: ProviderHostname[] = [];
  for await (const page of network.publicIPAddresses.listAll({ abortSignal: signal }).byPage()) {
    checkSignal(signal);
    for (const ip of page) {
      const source = `public ip ${ip.name ?? '?'} (${ip.location ?? 'no location'})`;
      if (ip.ipAddress !== undefined && ip.ipAddress !== '') addresses.push({ address: ip.ipAddress, source });
      const fqdn = ip.dnsSettings?.fqdn;
      if (fqdn !== undefined && fqdn !== '') hostnames.push({ name: ownerName(fqdn), source });
    }
  }
  return { addresses, hostnames };
}

/** The ARM clients of a run, sharing one credential and the guarded HTTP client. */
function clientsOf(context: AdapterContext, httpClient: HttpClient) {
  const { tenant_id, client_id, client_secret, subscription_id } = context.options;
  const endpoint = context.endpoint?.replace(/\/+$/, '');
  // An operator's endpoint (a sovereign cloud, a proxy, the tests' server) serves the token
  // endpoints too; MSAL must then not ask login.microsoftonline.com whether it is a known authority.
  const credential = new ClientSecretCredential(tenant_id ?? '', client_id ?? '', client_secret ?? '', {
    httpClient,
    retryOptions,
    ...(endpoint === undefined ? {} : { authorityHost: endpoint, disableInstanceDiscovery: true }),
  });
  const options = { httpClient, retryOptions, ...(endpoint === undefined ? {} : { endpoint }) };
  return {
    dns: new DnsManagementClient(credential, subscription_id ?? '', options),
    network: new NetworkManagementClient(credential, subscription_id ?? '', options),
  };
}

async function collectAzure(context: AdapterContext, httpClient: HttpClient): Promise<ProviderInventory> {
  const { dns, network } = clientsOf(context, httpClient);
  const zones = await readZones(dns, context.signal);
  const { addresses, hostnames } = await readPublicIps(network, context.signal);
  return { zones, addresses, hostnames };
}

/** The Azure adapter (CLOUD_B). */
export const azureAdapter: ConnectorAdapter = {
  provider: 'CLOUD_B',
  async collect(context) {
    const { httpClient, notes } = azureTransport(context);
    try {
      return await collectAzure(context, httpClient);
    } catch (err) {
      if (context.signal.aborted) throw context.signal.reason;
      throw azureFailure(err, notes);
    }
  },
};
