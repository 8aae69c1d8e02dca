import { zoneSources } from '../zones/dns-names.ts';
import type { AssetRepository } from '../assets/asset.types.ts';
import type { EventRepositories, NewEvent } from '../events/event.types.ts';
import type { PortService } from './port-inventory.types.ts';

/**
 * The events of surface monitoring (subdomain.*, port.*, technology.discovered), built from what
 * a run's inventory diff already computed and appended in the transaction that records the
 * run, in one call. The data carries exactly the catalogue's fields (core/events/event-catalogue.ts).
 */

/** The root asset the events of one run concern, with the team and the time of the change. */
export interface EventBase {
  teamId: number;
  asset: { id: number; token: string; name: string };
  at: Date;
}

/** What appending a run's events works with inside its transaction: the log and the asset read. */
export type SurfaceEventRepositories = EventRepositories & { assets: Pick<AssetRepository, 'findById'> };

/**
 * Appends the events of one change of a root asset's inventory in the caller's transaction: when
 * the change has any (`count` > 0), the asset's token and name are read once and `build` gives
 * every event; a change with none reads and writes nothing.
 */
export async function appendAssetEvents(
  tx: SurfaceEventRepositories,
  change: { teamId: number; assetId: number; at: Date; count: number },
  build: (base: EventBase) => NewEvent[],
): Promise<void> {
  if (change.count === 0) return;
  const asset = await tx.assets.findById(change.teamId, change.assetId);
  // The asset deleted meanwhile: its inventory goes with it, and no event names it.
  if (asset === undefined) return;
  const base = { teamId: change.teamId, asset: { id: asset.id, token: asset.token, name: asset.name }, at: change.at };
  await tx.events.append(build(base));
}

/** The fields every event of the asset carries, and the filter columns. */
function assetEvent(base: EventBase, kind: NewEvent['kind'], data: Record<string, unknown>): NewEvent {
  return {
    teamId: base.teamId,
    kind,
    occurredAt: base.at,
    assetId: base.asset.id,
    data: { asset_token: base.asset.token, asset_name: base.asset.name, ...data },
  };
}

/** A port that opened (new, or open again) or closed, as the port inventory diff has it. */
export interface PortChange {
  host: string;
  ipAddress: string;
  port: number;
  service: PortService;
}

/** One port.opened or port.closed event per port (the scanner probes TCP only). */
export function portEvents(
  kind: 'port.opened' | 'port.closed',
  base: EventBase,
  ports: readonly PortChange[],
): NewEvent[] {
  return ports.map((p) =>
    assetEvent(base, kind, {
      host: p.host,
      ip_address: p.ipAddress,
      port: p.port,
      protocol: 'TCP',
      service: p.service.name === 'unknown' ? null : p.service.name,
    }),
  );
}

/** One technology.discovered event per technology (or version) the inventory did not hold. */
export function technologyEvents(
  base: EventBase,
  technologies: ReadonlyArray<{ domainName: string; port: number; name: string; version: string | null }>,
): NewEvent[] {
  return technologies.map((t) =>
    assetEvent(base, 'technology.discovered', {
      host: t.domainName,
      port: t.port,
      technology: t.name,
      version: t.version,
    }),
  );
}

/** One subdomain.discovered or subdomain.disappeared event per name. */
export function subdomainEvents(
  kind: 'subdomain.discovered' | 'subdomain.disappeared',
  base: EventBase,
  names: readonly string[],
): NewEvent[] {
  return names.map((name) => assetEvent(base, kind, { name }));
}

/** The surface-monitoring sources of a discovered name (a zone source alone is not one). */
const surfaceSources: ReadonlySet<string> = new Set(zoneSources.filter((s) => !s.startsWith('zone-')));

/**
 * What a run changed of the names it lists under its root: `discovered`, the names it recorded
 * live (`recorded`, root excluded) that the team did not hold, or that surface monitoring had
 * found and then lost (held with a surface source but not listed); `disappeared`, the names it
 * found gone that it listed.
 */
export function subdomainChanges(input: {
  root: string;
  recorded: Iterable<string>;
  gone: Iterable<string>;
  held: ReadonlyArray<{ name: string; sources: readonly string[] }>;
  listed: ReadonlySet<string>;
}): { discovered: string[]; disappeared: string[] } {
  const held = new Map(input.held.map((n) => [n.name, n.sources]));
  const discovered: string[] = [];
  for (const name of new Set(input.recorded)) {
    if (name === input.root || input.listed.has(name)) continue;
    const sources = held.get(name);
    if (sources === undefined || sources.some((s) => surfaceSources.has(s))) discovered.push(name);
  }
  const disappeared = [...new Set(input.gone)].filter((name) => name !== input.root && input.listed.has(name));
  return { discovered: discovered.sort(), disappeared: disappeared.sort() };
}
