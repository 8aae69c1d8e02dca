import { randomInt } from 'node:crypto';
import type { Socket } from 'node:net';
import { EgressDeniedError, resolveGuarded, type EgressGuard } from '../net/egress-guard.ts';
import { canonicalName, isInZone, ownerForm } from './dns-name.ts';
import { connectTcp, frameMessage, TcpMessageReader } from './dns-tcp.ts';
import type { NameServerAddress } from './name-server.ts';
import type { DnsResolver } from './resolver.ts';
import { RR_TYPE, rcodeName } from './rr-types.ts';
import { buildQuery, DnsWireError, queryNameWire, readHeader, readQuestion, readRecord } from './wire.ts';
import { WireReader } from './wire-reader.ts';
import type { ZoneRecord } from './zone-record.ts';

export { parseNameServer, type NameServerAddress } from './name-server.ts';

/** Why a zone transfer failed. */
export type ZoneTransferFailure = 'refused' | 'notauth' | 'timeout' | 'connection' | 'malformed' | 'denied';

/** A zone transfer that did not complete; `reason` classifies it, the message says it for a user. */
export class ZoneTransferError extends Error {
  override readonly name = 'ZoneTransferError';

  constructor(
    readonly reason: ZoneTransferFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What transferZone needs. */
export interface TransferZoneOptions {
  server: NameServerAddress;
  /** The zone to transfer (`example.com`, with or without the trailing dot). */
  zone: string;
  guard: EgressGuard;
  resolver: DnsResolver;
  signal?: AbortSignal;
  /** Longest wait for the connection or for the next bytes (default 10 s). */
  timeoutMs?: number;
  /** Longest whole transfer, so a server that drips bytes cannot hold a worker (default 10 min). */
  maxDurationMs?: number;
  /** Most records accepted before the transfer is called malformed (default 10 million). */
  maxRecords?: number;
}

const REASON_BY_RCODE: Record<number, ZoneTransferFailure> = { 3: 'notauth', 5: 'refused', 9: 'notauth' };

/**
 * Transfers a zone by AXFR over TCP (RFC 5936): resolves the server through the egress guard,
 * connects to a checked address, sends one query and yields the records of each message as
 * they arrive, starting with the SOA and ending before the closing SOA. Any failure, including
 * a connection closed before the closing SOA, throws ZoneTransferError; an abort throws the
 * signal's reason.
 */
export async function* transferZoneBatches(options: TransferZoneOptions): AsyncGenerator<ZoneRecord[]> {
  const zone = canonicalName(options.zone.endsWith('.') ? options.zone : `${options.zone}.`, '.');
  const zoneName = ownerForm(zone);
  const signal = options.signal ?? new AbortController().signal;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRecords = options.maxRecords ?? 10_000_000;
  const { host, port } = options.server;
  const where = `${host}:${port}`;
  const socket = await connect(options, timeoutMs, signal);
  const deadline = Date.now() + (options.maxDurationMs ?? 600_000);
  try {
    const id = randomInt(0x10000);
    socket.write(frameMessage(buildQuery(id, queryNameWire(zone), RR_TYPE.AXFR, { isRecursionDesired: false })));
    const framer = new TcpMessageReader();
    const chunks = socket[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let count = 0;
    let isFirst = true;
    for (;;) {
      const remaining = deadline - Date.now();
      const stall =
        remaining < timeoutMs
          ? `the transfer of ${zoneName} from ${where} took longer than ${options.maxDurationMs ?? 600_000} ms`
          : `${where} sent nothing for ${timeoutMs} ms`;
      const chunk = await nextChunk(chunks, Math.min(timeoutMs, remaining), signal, where, stall);
      if (chunk === undefined) {
        throw new ZoneTransferError(
          'connection',
          `${where} closed the connection before the transfer of ${zoneName} ended (${count} records received)`,
        );
      }
      for (const message of framer.push(chunk)) {
        const batch: ZoneRecord[] = [];
        let isDone: boolean;
        try {
          isDone = readMessage(message, { id, zone, zoneName, where, isFirst }, batch);
        } catch (err) {
          if (err instanceof DnsWireError)
            throw new ZoneTransferError('malformed', `malformed answer from ${where}: ${err.message}`, { cause: err });
          throw err;
        }
        isFirst = false;
        count += batch.length;
        if (count > maxRecords)
          throw new ZoneTransferError(
            'malformed',
            `the transfer of ${zoneName} from ${where} exceeds ${maxRecords} records`,
          );
        if (batch.length > 0) yield batch;
        if (isDone) return;
      }
    }
  } finally {
    socket.destroy();
  }
}

/** Transfers a zone by AXFR, one record at a time (see transferZoneBatches). */
export async function* transferZone(options: TransferZoneOptions): AsyncGenerator<ZoneRecord> {
  for await (const batch of transferZoneBatches(options)) yield* batch;
}

/** Resolves and checks the server through the egress guard, then connects to the first address that answers. */
async function connect(options: TransferZoneOptions, timeoutMs: number, signal: AbortSignal): Promise<Socket> {
  const { host, port } = options.server;
  let addresses: string[];
  try {
    addresses = await resolveGuarded(host, options.guard, options.resolver, signal);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (err instanceof EgressDeniedError)
      throw new ZoneTransferError('denied', `name server ${host}: ${err.message}`, { cause: err });
    throw new ZoneTransferError('connection', `cannot resolve name server ${host}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (addresses.length === 0) throw new ZoneTransferError('connection', `name server ${host} has no address`);
  const failures: string[] = [];
  for (const address of addresses) {
    try {
      return await connectTcp(address, port, timeoutMs, signal);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const code = (err as { code?: string }).code;
      failures.push(code === 'ECONNREFUSED' ? `${address}:${port} refused the connection` : (err as Error).message);
      if (code === 'ETIMEDOUT' && addresses.length === 1)
        throw new ZoneTransferError('timeout', `name server ${host}: ${failures.join('; ')}`, { cause: err });
    }
  }
  throw new ZoneTransferError('connection', `cannot connect to name server ${host}: ${failures.join('; ')}`);
}

/** The next chunk of the stream, undefined at its end; waits at most `waitMs`, then fails with `stall`. */
async function nextChunk(
  chunks: AsyncIterator<Buffer>,
  waitMs: number,
  signal: AbortSignal,
  where: string,
  stall: string,
): Promise<Buffer | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ZoneTransferError('timeout', stall)), Math.max(0, waitMs));
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const pending = chunks.next();
  // When the wait ends first, the read still settles later (the socket is destroyed): keep it quiet.
  pending.catch(() => undefined);
  try {
    const result = await Promise.race([pending, stop]);
    return result.done === true ? undefined : result.value;
  } catch (err) {
    if (err instanceof ZoneTransferError || signal.aborted) throw err;
    throw new ZoneTransferError('connection', `connection to ${where} failed: ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

interface MessageContext {
  id: number;
  zone: string;
  zoneName: string;
  where: string;
  isFirst: boolean;
}

/** Checks one message and appends its records; true once the closing SOA arrived. */
function readMessage(message: Buffer, context: MessageContext, batch: ZoneRecord[]): boolean {
  const { zone, zoneName, where } = context;
  const header = readHeader(message);
  if (header.id !== context.id || !header.isResponse)
    throw new DnsWireError(`a message that does not answer the query (id ${header.id})`);
  if (header.rcode !== 0) {
    const reason = REASON_BY_RCODE[header.rcode] ?? 'refused';
    const why =
      reason === 'notauth'
        ? 'is not authoritative for'
        : header.rcode === 5
          ? 'refused the transfer of'
          : 'failed the transfer of';
    throw new ZoneTransferError(reason, `${where} ${why} ${zoneName} (${rcodeName(header.rcode)})`);
  }
  const reader = new WireReader(message, 12);
  for (let i = 0; i < header.questionCount; i += 1) {
    const question = readQuestion(reader);
    if (question.name !== zone || question.type !== RR_TYPE.AXFR)
      throw new DnsWireError(`answer to another question (${question.name})`);
  }
  if (context.isFirst && header.answerCount === 0)
    throw new DnsWireError(`empty answer to the transfer of ${zoneName}`);
  for (let i = 0; i < header.answerCount; i += 1) {
    const { record, type } = readRecord(reader);
    const isSoa = type === RR_TYPE.SOA;
    if (context.isFirst && i === 0) {
      if (!isSoa || record.name !== zoneName)
        throw new DnsWireError(`the transfer does not start with the SOA of ${zoneName}`);
    } else if (isSoa && record.name === zoneName) {
      return true;
    }
    // Owner forms compare like canonical names: no string is built per record.
    if (!isInZone(record.name, zoneName)) throw new DnsWireError(`record ${record.name} lies outside ${zoneName}`);
    batch.push(record);
  }
  return false;
}
