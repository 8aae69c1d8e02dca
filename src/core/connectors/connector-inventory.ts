import { parseAssetName } from '../assets/asset-name.ts';
import { isAppError } from '../errors/app-error.ts';
import { toWireTime } from '../shared/time.ts';
import type { Team } from '../teams/team.types.ts';
import { ownerName } from '../zones/dns-names.ts';
import { RootMatcher } from '../zones/root-matcher.ts';
import { parseZoneName } from '../zones/zone-name.ts';
import type { DnsRecordInput } from '../zones/zone.types.ts';
import type {
  ConnectorLogEntry,
  ConnectorPorts,
  ConnectorRunRepositories,
  ProviderInventory,
} from './connector-run.types.ts';
import type { Connector, ConnectorRun, SeenConnectorAsset } from './connector.types.ts';

/**
 * How a run's inventory becomes the team's (inside the run's transaction):
 * - a **zone** whose apex is neither an asset nor under a root asset of the team becomes a root
 *   asset (`added_by` connector, unverified, as a zone upload's apex does); its records are then
 *   indexed as a zone upload's are, under the source `connector`: names under the team's root
 *   assets become (or refresh) discovered names listed as their subdomains;
 * - a **host name** (a CDN hostname, a load balancer) and a public **address** the team does not
 *   have become assets: a subdomain asset under a root asset that covers the name, else a root
 *   asset of its own;
 * - every zone, record name, host name and address is recorded against the connector
 *   (connector_assets); one that an earlier run saw and this one does not is marked gone from the
 *   provider, never deleted.
 * A name or address the asset rules refuse (malformed, reserved) is skipped and counted.
 */

/** What a run brought in, as `connector.run_finished` reports it. */
export interface InventoryCounts {
  zones: number;
  records: number;
  hostnames: number;
  addresses: number;
  /** Assets the run added (zones' apexes, host names, addresses). */
  assets_added: number;
  /** Names and addresses an earlier run saw and this one did not. */
  gone: number;
  /** Names or addresses skipped because the asset rules refuse them. */
  skipped: number;
}

/** Writes a run's inventory in the caller's transaction (see the rules above). */
export async function writeInventory(
  tx: ConnectorRunRepositories,
  ports: ConnectorPorts,
  team: Team,
  connector: Connector,
  inventory: ProviderInventory,
  at: Date,
): Promise<InventoryCounts> {
  const counts: InventoryCounts = {
    zones: 0,
    records: 0,
    hostnames: 0,
    addresses: 0,
    assets_added: 0,
    gone: 0,
    skipped: 0,
  };
  const seen = new Map<string, SeenConnectorAsset>();
  const see = (asset: SeenConnectorAsset) => seen.set(`${asset.kind} ${asset.name}`, asset);
  for (const zone of inventory.zones) {
    const apex = parseZoneName(zone.name);
    if (apex === undefined || apex === '.') {
      counts.skipped += 1;
      continue;
    }
    const roots = new RootMatcher(await tx.zones.rootDomains(team.id));
    if (roots.match(apex) === undefined && !(await addIfNew(tx, ports, team, apex, counts))) continue;
    counts.zones += 1;
    counts.records += zone.records.length;
    see({ name: apex, kind: 'zone', source: `zone of ${connector.provider}` });
    await ports.names.indexRecords(tx, team, batchesOf(zone.records), 'connector');
    for (const record of zone.records) {
      const owner = ownerName(record.name);
      if (owner !== apex) see({ name: owner, kind: 'name', source: `record in zone ${apex}` });
    }
  }
  for (const host of inventory.hostnames) {
    const name = ownerName(host.name);
    if (!(await addIfNew(tx, ports, team, name, counts))) continue;
    counts.hostnames += 1;
    see({ name, kind: 'hostname', source: host.source });
  }
  for (const entry of inventory.addresses) {
    if (!(await addIfNew(tx, ports, team, entry.address, counts))) continue;
    counts.addresses += 1;
    see({ name: parseAssetName(entry.address).name, kind: 'address', source: entry.source });
  }
  const recorded = await tx.connectors.recordAssets(team.id, connector.id, [...seen.values()], at);
  counts.gone = recorded.gone;
  return counts;
}

/**
 * Adds a name or address as an asset unless the team has it; false (counted as skipped) when the
 * asset rules refuse it. A refusal must not end the run's transaction: the name is checked first.
 */
async function addIfNew(
  tx: ConnectorRunRepositories,
  ports: ConnectorPorts,
  team: Team,
  raw: string,
  counts: InventoryCounts,
): Promise<boolean> {
  let parsed;
  try {
    parsed = parseAssetName(raw);
  } catch (err) {
    if (!isAppError(err)) throw err;
    counts.skipped += 1;
    return false;
  }
  if ((await tx.assets.findByName(team.id, parsed.name)) !== undefined) return true;
  await ports.assets.addAssetInTransaction(tx, team, parsed, 'connector');
  counts.assets_added += 1;
  return true;
}

/** Records handed to the indexer per batch (it writes names a thousand at a time). */
const recordBatch = 1000;

function* batchesOf(records: DnsRecordInput[]): Iterable<readonly DnsRecordInput[]> {
  for (let i = 0; i < records.length; i += recordBatch) yield records.slice(i, i + recordBatch);
}

/** `connector.run_finished` of the team event log, written with the run's outcome. */
export function connectorRunFinishedEvent(
  connector: Connector,
  run: ConnectorRun,
  counts: InventoryCounts | undefined,
): ConnectorLogEntry {
  const at = run.completedAt ?? new Date();
  return {
    teamId: connector.teamId,
    kind: 'connector.run_finished',
    occurredAt: at,
    data: {
      connector_id: connector.publicId,
      name: connector.name,
      provider: connector.provider,
      status: run.status,
      error: run.error === '' ? null : run.error,
      completed_at: toWireTime(at),
      imported: counts === undefined ? null : { ...counts },
    },
  };
}
