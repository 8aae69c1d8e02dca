import { isIP } from 'node:net';
import { appError } from '../errors/app-error.ts';
import type { Store } from '../shared/store.ts';
import type { Team } from '../teams/team.types.ts';
import { indexRecordsAtomically } from './zone-index.service.ts';
import { parseNameServer } from './name-server.ts';
import type { ZoneEngine } from './zone-engine.ts';

/** Largest zone file (spec). */
export const zoneFileLimit = 5 * 1024 * 1024;
/** Largest zone lookup list (spec). */
export const zoneLookupLimit = 50 * 1024 * 1024;
/** Time limit of a zone transfer. */
export const zoneTransferTimeoutMs = 60_000;

const labelPattern = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)$/;

/** A zone name: `.` for the root, else labels of letters, digits, `-` and `_`, with or without the final dot. */
export function parseZoneName(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim().toLowerCase();
  if (text === '.' || text === '') return text === '.' ? '.' : undefined;
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length > 253 || isIP(name) !== 0) return undefined;
  return name.split('.').every((l) => labelPattern.test(l)) ? name : undefined;
}

/**
 * Indexes an uploaded zone file (RFC 1035 master format) under the team's root domain assets,
 * streaming from parser to store inside one transaction: a syntax error anywhere (2421 naming
 * the line) indexes nothing. Returns `indexed`, the number of distinct names written.
 */
export async function uploadZoneFile(store: Store, engine: ZoneEngine, team: Team, origin: string | undefined, body: AsyncIterable<Buffer>): Promise<number> {
  const zone = origin === undefined || origin === '' ? '.' : parseZoneName(origin);
  if (zone === undefined) throw appError(2411, `Zone origin malformed: "${origin}" is not a domain name`, ['origin']);
  return indexRecordsAtomically(store, team, engine.parseZone(body, zone), 'zone-file');
}


/**
 * Transfers a zone (AXFR over TCP, through the egress guard) and indexes it like a zone file,
 * atomically. 2412 for a malformed server, 2413 for a malformed zone; a refused or failed
 * transfer is 1910 saying why.
 */
export async function transferAndIndex(store: Store, engine: ZoneEngine, team: Team, rawServer: unknown, rawZone: unknown): Promise<number> {
  const server = parseNameServer(rawServer);
  if (server === undefined) throw appError(2412, `Zone server malformed: "${String(rawServer ?? '')}" is not a host name or IP address with an optional :port`, ['nameServer']);
  const zone = parseZoneName(rawZone);
  if (zone === undefined || zone === '.') throw appError(2413, `Zone name malformed: "${String(rawZone ?? '')}" is not a domain name`, ['zone']);
  const signal = AbortSignal.timeout(zoneTransferTimeoutMs);
  return indexRecordsAtomically(store, team, engine.transferZone(server, zone, signal), 'zone-transfer');
}
