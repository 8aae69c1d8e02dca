import { AppError } from '../errors/app-error.ts';
import type { NameResolver } from './zone-lookup.types.ts';
import type { DnsRecordInput } from './zone.types.ts';

/** A name server to transfer a zone from. */
export interface NameServer {
  host: string;
  port: number;
}

/**
 * The DNS work the zone operations need, implemented by engine/dns. Records come in batches
 * (one step of the stream per batch, not per record). A zone-file syntax error surfaces as
 * AppError 2421 naming the line; a failed transfer as zoneTransferFailed's error.
 */
export interface ZoneEngine {
  parseZone(input: AsyncIterable<Buffer>, origin: string): AsyncIterable<DnsRecordInput[]>;
  /**
   * The zone a zone file names (its first `$ORIGIN`, or its SOA's owner, whichever comes first;
   * not the root), read with the root as the starting origin, and the file to parse again.
   */
  findZoneOrigin(input: AsyncIterable<Buffer>): Promise<{ origin: string | undefined; input: AsyncIterable<Buffer> }>;
  transferZone(server: NameServer, zone: string, signal: AbortSignal): AsyncIterable<DnsRecordInput[]>;
  resolver: NameResolver;
}

/** Why a zone transfer failed: the name server's answer, the network to it, or the egress guard. */
export type ZoneTransferFailure = 'refused' | 'notauth' | 'timeout' | 'connection' | 'malformed' | 'denied';

const failureTexts: Record<ZoneTransferFailure, string> = {
  refused: 'the name server refused the transfer',
  notauth: 'the name server is not authoritative for the zone',
  timeout: 'the name server did not answer in time',
  connection: 'the name server could not be reached',
  malformed: 'the name server sent a malformed answer',
  denied: "the egress guard denies the name server's address",
};

/**
 * The error of a zone transfer that failed because of the name server or its address: the
 * caller's problem, not a fault of this server. It answers 2412 (HTTP 400) naming nameServer
 * and saying which failure it was (the spec gives the operation 2412 and 2413 only, and asks
 * callers to allow the service's addresses to transfer), and is counted as a remote failure.
 */
export function zoneTransferFailed(
  reason: ZoneTransferFailure,
  zone: string,
  server: NameServer,
  detail: string,
  cause?: unknown,
): AppError {
  const message = `Zone transfer of ${zone} from ${server.host}:${server.port} failed: ${failureTexts[reason]} (${detail})`;
  return new AppError(2412, message, {
    parameters: ['nameServer'],
    cause,
    remoteFailure: { operation: 'zone-transfer', reason },
  });
}
