/**
 * The records asked at a run's root before any candidate: its MX, NS, TXT and SOA, and the
 * well-known SRV names under it. Owns the list of SRV services asked.
 */
import type { BulkResolver } from '../dns/bulk-resolver.ts';
import { recordTargets } from './discovery-names.ts';
import { untilAborted } from '../../shared/abortable.ts';

/** Service records asked at the root (RFC 6763-style well-known services people publish). */
const SRV_SERVICES = [
  '_sip._tcp',
  '_sip._udp',
  '_sips._tcp',
  '_sipfederationtls._tcp',
  '_xmpp-client._tcp',
  '_xmpp-server._tcp',
  '_autodiscover._tcp',
  '_ldap._tcp',
  '_kerberos._tcp',
  '_caldavs._tcp',
  '_carddavs._tcp',
  '_imaps._tcp',
  '_submission._tcp',
  '_matrix._tcp',
];

/** What the root's records gave a run. */
export interface RootRecords {
  /** The root's own NS names (the delegation checks ask them). */
  nameServers: string[];
  /** Names the records point at, in answer order (not filtered by root); empty unless scraping. */
  targets: string[];
}

/**
 * Asks the root's MX, NS, TXT and SOA and, when scraping, the well-known SRV names under it, all
 * at once. Rejects with the signal's reason when aborted.
 */
export async function lookupRootRecords(
  bulk: BulkResolver,
  root: string,
  isScraping: boolean,
  signal: AbortSignal,
): Promise<RootRecords> {
  const lookups = [bulk.lookup(root, ['MX', 'NS', 'TXT', 'SOA'], signal)];
  if (isScraping) for (const service of SRV_SERVICES) lookups.push(bulk.lookup(`${service}.${root}`, ['SRV'], signal));
  const results = await untilAborted(Promise.all(lookups), signal);
  const nameServers =
    results[0]?.records.filter((r) => r.type === 'NS' && r.name === root).map((r) => r.data.replace(/\.$/, '')) ?? [];
  const targets: string[] = [];
  if (isScraping)
    for (const result of results) for (const record of result.records) targets.push(...recordTargets(record));
  return { nameServers, targets };
}
