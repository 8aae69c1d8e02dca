import {
  ListHostedZonesCommand,
  ListResourceRecordSetsCommand,
  type HostedZone,
  type ListResourceRecordSetsCommandInput,
  type ResourceRecordSet,
  type Route53Client,
} from '@aws-sdk/client-route-53';
import type { DnsRecordInput } from '../../core/zones/zone.types.ts';
import type { ProviderHostname, ProviderZone } from '../../core/connectors/connector-run.types.ts';
import { awsCall } from './aws-errors.ts';

/**
 * Route 53: every public hosted zone with all its record sets. Values come in presentation form
 * already (TXT quoted); names inside them are absolute in Route 53, so a missing final dot is
 * added as a zone file would show it. Alias record sets have no value of their own: their target
 * is reported as a host name the account serves and the record is skipped.
 */

/** What Route 53 holds for the account. */
export interface Route53Inventory {
  zones: ProviderZone[];
  hostnames: ProviderHostname[];
}

/** Record types Route 53 serves, with the positions (0-based words) of the names in their data. */
const nameFields: Readonly<Record<string, readonly number[]>> = {
  A: [],
  AAAA: [],
  CAA: [],
  DS: [],
  SSHFP: [],
  TLSA: [],
  TXT: [],
  SPF: [],
  CNAME: [0],
  NS: [0],
  PTR: [0],
  MX: [1],
  SRV: [3],
  SOA: [0, 1],
  NAPTR: [5],
  HTTPS: [1],
  SVCB: [1],
};

/** Route 53 writes characters other than letters, digits, '-', '_' and '.' as \ooo (octal). */
export function unescapeRoute53Name(name: string): string {
  const plain = name.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  return plain.replace(/\.$/, '').toLowerCase();
}

/** A value in presentation form, the names in it ending with a dot. */
function presentation(type: string, value: string): string {
  const positions = nameFields[type] ?? [];
  if (positions.length === 0) return value;
  const words = value.trim().split(/\s+/);
  for (const i of positions) {
    const word = words[i];
    if (word !== undefined && word !== '.' && !word.endsWith('.')) words[i] = `${word}.`;
  }
  return words.join(' ');
}

/** The records of one record set, or nothing for an alias or a type that cannot be rendered. */
function recordsOf(set: ResourceRecordSet): DnsRecordInput[] {
  const type = (set.Type ?? '').toUpperCase();
  if (set.Name === undefined || !(type in nameFields) || set.AliasTarget !== undefined) return [];
  const name = unescapeRoute53Name(set.Name);
  const ttl = set.TTL ?? 0;
  return (set.ResourceRecords ?? [])
    .filter((r) => r.Value !== undefined && r.Value !== '')
    .map((r) => ({ name, ttl, type, data: presentation(type, r.Value as string) }));
}

/** Every hosted zone of the account (Marker / NextMarker paging). */
async function listHostedZones(client: Route53Client, signal: AbortSignal): Promise<HostedZone[]> {
  const zones: HostedZone[] = [];
  let marker: string | undefined;
  do {
    signal.throwIfAborted();
    const page = await awsCall('ListHostedZones', signal, () =>
      client.send(new ListHostedZonesCommand({ Marker: marker, MaxItems: 100 }), { abortSignal: signal }),
    );
    zones.push(...(page.HostedZones ?? []));
    marker = page.IsTruncated === true ? page.NextMarker : undefined;
  } while (marker !== undefined);
  return zones;
}

/** Every record set of a zone (StartRecordName / Type / Identifier paging, 300 a page). */
async function listRecordSets(client: Route53Client, zoneId: string, signal: AbortSignal) {
  const sets: ResourceRecordSet[] = [];
  let start: ListResourceRecordSetsCommandInput = { HostedZoneId: zoneId, MaxItems: 300 };
  for (;;) {
    signal.throwIfAborted();
    const input = start;
    const page = await awsCall('ListResourceRecordSets', signal, () =>
      client.send(new ListResourceRecordSetsCommand(input), { abortSignal: signal }),
    );
    sets.push(...(page.ResourceRecordSets ?? []));
    if (page.IsTruncated !== true || page.NextRecordName === undefined) return sets;
    start = {
      HostedZoneId: zoneId,
      MaxItems: 300,
      StartRecordName: page.NextRecordName,
      StartRecordType: page.NextRecordType,
      ...(page.NextRecordIdentifier === undefined ? {} : { StartRecordIdentifier: page.NextRecordIdentifier }),
    };
  }
}

/** Every public zone with its records, and the targets of alias records as host names. */
export async function collectRoute53(client: Route53Client, signal: AbortSignal): Promise<Route53Inventory> {
  const zones: ProviderZone[] = [];
  const hostnames = new Map<string, ProviderHostname>();
  for (const zone of await listHostedZones(client, signal)) {
    if (zone.Config?.PrivateZone === true || zone.Id === undefined || zone.Name === undefined) continue;
    const sets = await listRecordSets(client, zone.Id, signal);
    zones.push({ name: unescapeRoute53Name(zone.Name), records: sets.flatMap(recordsOf) });
    for (const set of sets) {
      const target = set.AliasTarget?.DNSName;
      if (target === undefined || set.Name === undefined) continue;
      const name = unescapeRoute53Name(target);
      if (name !== '' && !hostnames.has(name))
        hostnames.set(name, { name, source: `route53 alias of ${unescapeRoute53Name(set.Name)}` });
    }
  }
  return { zones, hostnames: [...hostnames.values()] };
}
