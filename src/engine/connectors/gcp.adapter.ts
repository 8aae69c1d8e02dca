import type { ProviderAddress, ProviderInventory, ProviderZone } from '../../core/connectors/connector-run.types.ts';
import { ConnectorRunError } from '../../core/connectors/connector-run.types.ts';
import type { DnsRecordInput } from '../../core/zones/zone.types.ts';
import type { AdapterContext, ConnectorAdapter } from './connector-adapter.ts';
import { gcpFetch, gcpJwtClient, parseServiceAccountKey, tokenErrorOf, type GcpTransportNotes } from './gcp-auth.ts';
import { readPages, type GcpReader } from './gcp-rest.ts';
import { ownerName } from './record-text.ts';
import { networkCause } from './run-failures.ts';

/**
 * Google Cloud (CLOUD_C): a service account key gets a read-only token (gcp-auth.ts), then Cloud
 * DNS lists the project's public managed zones with all their record sets (rrdatas are already
 * in presentation form), and Compute Engine's aggregated lists give the external addresses and
 * the external load balancers' forwarding rule addresses of every region.
 */

interface ManagedZonesPage {
  managedZones?: Array<{ name?: string; dnsName?: string; visibility?: string }>;
}
interface RrsetsPage {
  rrsets?: Array<{ name?: string; type?: string; ttl?: number; rrdatas?: string[] }>;
}
interface Address {
  name?: string;
  address?: string;
  addressType?: string;
  status?: string;
}
interface ForwardingRule {
  name?: string;
  IPAddress?: string;
  loadBalancingScheme?: string;
}
interface AggregatedPage<K extends string, T> {
  items?: Record<string, Partial<Record<K, T[]>>>;
}

const dnsBase = 'https://dns.googleapis.com/dns/v1/projects';
const computeBase = 'https://compute.googleapis.com/compute/v1/projects';

/** The records of every public zone of the project. */
async function readZones(reader: GcpReader, project: string): Promise<ProviderZone[]> {
  const zones: ProviderZone[] = [];
  const found: Array<{ id: string; name: string }> = [];
  await readPages<ManagedZonesPage>(reader, `${dnsBase}/${project}/managedZones`, 'listing DNS zones', (page) => {
    for (const z of page.managedZones ?? []) {
      if (z.name === undefined || z.dnsName === undefined || (z.visibility ?? 'public') !== 'public') continue;
      found.push({ id: z.name, name: ownerName(z.dnsName) });
    }
  });
  for (const zone of found) {
    const records: DnsRecordInput[] = [];
    const url = `${dnsBase}/${project}/managedZones/${encodeURIComponent(zone.id)}/rrsets`;
    await readPages<RrsetsPage>(reader, url, `listing the records of zone ${zone.name}`, (page) => {
      for (const set of page.rrsets ?? []) {
        // A set with a routing policy instead of rrdatas has no single presentation form.
        if (set.name === undefined || set.type === undefined) continue;
        const base = { name: ownerName(set.name), ttl: Number(set.ttl ?? 0), type: set.type.toUpperCase() };
        for (const data of set.rrdatas ?? []) records.push({ ...base, data });
      }
    });
    zones.push({ name: zone.name, records });
  }
  return zones;
}

/** The scope key of an aggregated list ("regions/europe-west1", "global") as a region name. */
function regionOf(scope: string): string {
  return scope.replace(/^regions\//, '');
}

/** External addresses in use or reserved, then external forwarding rules' addresses (first source kept). */
async function readAddresses(reader: GcpReader, project: string): Promise<ProviderAddress[]> {
  const byAddress = new Map<string, string>();
  const add = (address: string | undefined, source: string) => {
    if (address !== undefined && address !== '' && !byAddress.has(address)) byAddress.set(address, source);
  };
  const addressesUrl = `${computeBase}/${project}/aggregated/addresses`;
  await readPages<AggregatedPage<'addresses', Address>>(reader, addressesUrl, 'listing addresses', (page) => {
    for (const [scope, list] of Object.entries(page.items ?? {})) {
      for (const a of list.addresses ?? []) {
        if (a.addressType !== 'EXTERNAL' || (a.status !== 'IN_USE' && a.status !== 'RESERVED')) continue;
        add(a.address, `address ${a.name ?? '?'} (${regionOf(scope)})`);
      }
    }
  });
  const rulesUrl = `${computeBase}/${project}/aggregated/forwardingRules`;
  await readPages<AggregatedPage<'forwardingRules', ForwardingRule>>(
    reader,
    rulesUrl,
    'listing forwarding rules',
    (page) => {
      for (const [scope, list] of Object.entries(page.items ?? {})) {
        for (const r of list.forwardingRules ?? []) {
          if (r.loadBalancingScheme !== 'EXTERNAL' && r.loadBalancingScheme !== 'EXTERNAL_MANAGED') continue;
          add(r.IPAddress, `forwarding rule ${r.name ?? '?'} (${regionOf(scope)})`);
        }
      }
    },
  );
  return [...byAddress].map(([address, source]) => ({ address, source }));
}

/** A token failure as a ConnectorRunError: the OAuth error code only, never the key. */
function authFailure(err: unknown, notes: GcpTransportNotes): ConnectorRunError {
  const unreachable = networkCause(err) ?? notes.networkFailure;
  const token = tokenErrorOf(err);
  if (token === undefined && unreachable !== undefined)
    return new ConnectorRunError('unreachable', `Google Cloud could not be reached: ${unreachable}`);
  if (token === undefined) return new ConnectorRunError('provider', 'Google Cloud gave no access token');
  if (token.status === 429)
    return new ConnectorRunError('throttled', `Google's token endpoint throttled the run (${token.error})`);
  if (token.status >= 500)
    return new ConnectorRunError('provider', `Google's token endpoint failed (HTTP ${token.status}, ${token.error})`);
  return new ConnectorRunError('credentials', `Google refused the service account key (${token.error})`);
}

async function collectGcp(context: AdapterContext, notes: GcpTransportNotes): Promise<ProviderInventory> {
  const key = parseServiceAccountKey(context.options.service_account_key ?? '');
  const project = context.options.project_id ?? key.projectId;
  if (project === undefined)
    throw new ConnectorRunError('options', 'No project: set project_id, or use a key file that names its project');
  const fetch = gcpFetch(context, notes);
  const jwt = gcpJwtClient(key, fetch);
  const reader: GcpReader = {
    fetch,
    signal: context.signal,
    token: async () => {
      try {
        const { token } = await jwt.getAccessToken();
        if (typeof token !== 'string') throw new ConnectorRunError('provider', 'Google Cloud gave no access token');
        return token;
      } catch (err) {
        if (err instanceof ConnectorRunError || context.signal.aborted) throw err;
        throw authFailure(err, notes);
      }
    },
  };
  const zones = await readZones(reader, encodeURIComponent(project));
  const addresses = await readAddresses(reader, encodeURIComponent(project));
  return { zones, addresses, hostnames: [] };
}

/** The Google Cloud adapter (CLOUD_C). */
export const gcpAdapter: ConnectorAdapter = {
  provider: 'CLOUD_C',
  async collect(context) {
    const notes: GcpTransportNotes = {};
    try {
      return await collectGcp(context, notes);
    } catch (err) {
      if (context.signal.aborted) throw context.signal.reason;
      if (err instanceof ConnectorRunError) throw err;
      const unreachable = networkCause(err) ?? notes.networkFailure;
      if (unreachable !== undefined)
        throw new ConnectorRunError('unreachable', `Google Cloud could not be reached: ${unreachable}`);
      throw new ConnectorRunError('provider', `Google Cloud failed (${err instanceof Error ? err.name : 'no error'})`);
    }
  },
};
