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
 * AppError 2421 naming the line; a failed transfer as AppError 1910 saying why.
 */
export interface ZoneEngine {
  parseZone(input: AsyncIterable<Buffer>, origin: string): AsyncIterable<DnsRecordInput[]>;
  transferZone(server: NameServer, zone: string, signal: AbortSignal): AsyncIterable<DnsRecordInput[]>;
  resolver: NameResolver;
}
