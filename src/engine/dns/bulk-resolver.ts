import { getServers, promises as dnsPromises } from 'node:dns';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { RandomIds, TcpChannel, UdpChannel, type WireQuery } from './bulk-transport.ts';
import { canonicalName, lowerAscii, ownerForm } from './dns-name.ts';
import { emptyOutcomes, NameLookup, type BulkStats, type LookupOutcome, type LookupResult } from './lookup-result.ts';
import { formatNameServer, parseNameServer } from './name-server.ts';
import { rcodeName, typeName, typeNumber } from './rr-types.ts';
import { buildQuery, DnsWireError, queryNameWire, readRecord } from './wire.ts';
import { WireReader } from './wire-reader.ts';
import type { ZoneRecord } from './zone-record.ts';

export type { BulkStats, LookupFailure, LookupOutcome, LookupResult } from './lookup-result.ts';

/** Tuning of a bulk resolver. Concurrency and rate count queries (one per name and type), the unit the servers see. */
export interface BulkResolverOptions {
  /** Resolvers as `host[:port]` (IPv6 as `[addr]:port`); empty means the system's. Host names are looked up once. */
  servers: string[];
  /** Most queries in flight at once (default 256). */
  concurrency?: number;
  /** Most queries sent per second; unlimited when absent. */
  ratePerSecond?: number;
  /** Wait for one answer before retrying, in milliseconds (default 2000). */
  timeoutMs?: number;
  /** Further attempts after the first, on timeout (and on SERVFAIL/REFUSED when another server exists); default 2. */
  retries?: number;
  /** UDP sockets (source ports) per server (default 2). */
  socketsPerServer?: number;
  /** EDNS0 UDP payload size advertised (default 1232, the DNS flag day value); 0 sends no EDNS. */
  ednsUdpSize?: number;
  /** RD bit (default true: the servers are recursive resolvers). */
  isRecursionDesired?: boolean;
}

/** Options of one resolveAll run. */
export interface ResolveAllOptions {
  /** Types asked for each name (default A and AAAA). */
  types?: string[];
  signal?: AbortSignal;
}

/** A resolver for many names at once: a fast UDP client with TCP fallback, retries, bounded concurrency and rate. */
export interface BulkResolver {
  /** Looks up one name (default types A and AAAA). */
  lookup(name: string, types?: string[], signal?: AbortSignal): Promise<LookupResult>;
  /**
   * Resolves a stream of names, reading it only as fast as answers come back (memory stays
   * bounded for any length), calling onResult once per name in completion order. An async
   * onResult is awaited in bulk: intake pauses while `concurrency` callbacks are unsettled.
   */
  resolveAll(names: AsyncIterable<string> | Iterable<string>, onResult: (result: LookupResult) => void | Promise<void>, options?: ResolveAllOptions): Promise<BulkStats>;
  /** Closes every socket; pending lookups never settle afterwards. */
  close(): void;
}

/** One query of one name and type, on its way. A retry is a new Query, so stale timers can tell. */
class Query implements WireQuery {
  id = 0;
  deadline = 0;
  isDone = false;
  channel: UdpChannel<Query> | TcpChannel<Query> | undefined;

  constructor(
    readonly lookup: NameLookup,
    readonly type: number,
    public message: Buffer,
    readonly questionEnd: number,
    readonly attempt: number,
    readonly server: number,
    readonly isTcp: boolean,
  ) {}
}

interface Server {
  label: string;
  udp: Array<UdpChannel<Query>>;
  tcp: TcpChannel<Query>;
  next: number;
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;
const HOST_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?$/;

/** Reads `host[:port]` entries, looking host names up once; an empty list means the system's resolvers. */
async function resolveServers(servers: string[]): Promise<Array<{ address: string; port: number }>> {
  const list = servers.length > 0 ? servers : getServers();
  return Promise.all(
    list.map(async (text) => {
      const server = parseNameServer(text);
      if (server === undefined) throw new Error(`dns: invalid resolver address ${JSON.stringify(text)}`);
      if (isIP(server.host) !== 0) return { address: server.host, port: server.port };
      const { address } = await dnsPromises.lookup(server.host);
      return { address, port: server.port };
    }),
  );
}

/** Creates a bulk resolver; sockets open on first use. */
export function createBulkResolver(options: BulkResolverOptions): BulkResolver {
  return new BulkEngine(options);
}

class BulkEngine implements BulkResolver {
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly ids = new RandomIds();
  private servers: Server[] = [];
  private opening: Promise<void> | undefined;
  private readonly queue: Array<Query | undefined> = [];
  private queueHead = 0;
  private readonly retryQueue: Query[] = [];
  private readonly sent: Query[] = [];
  private sentHead = 0;
  private inflight = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  private rateTimer: NodeJS.Timeout | undefined;
  private tokens: number;
  private tokensAt = Date.now();
  private readonly roomWaiters: Array<() => void> = [];
  readonly counters = { queries: 0, retries: 0, tcpFallbacks: 0, timeouts: 0 };

  constructor(private readonly options: BulkResolverOptions) {
    this.concurrency = Math.max(1, options.concurrency ?? 256);
    this.timeoutMs = Math.max(1, options.timeoutMs ?? 2000);
    this.retries = Math.max(0, options.retries ?? 2);
    this.tokens = this.burst();
  }

  private open(): Promise<void> {
    this.opening ??= (async () => {
      const addresses = await resolveServers(this.options.servers);
      const onAnswer = (query: Query, message: Buffer): void => this.onAnswer(query, message);
      const onFailure = (query: Query, reason: string): void => this.onTransportFailure(query, reason);
      this.servers = addresses.map(({ address, port }) => ({
        label: formatNameServer({ host: address, port }),
        udp: Array.from({ length: Math.max(1, this.options.socketsPerServer ?? 2) }, () => new UdpChannel<Query>(address, port, this.ids, onAnswer)),
        tcp: new TcpChannel<Query>(address, port, this.ids, this.timeoutMs, onAnswer, onFailure),
        next: 0,
      }));
      if (this.servers.length === 0) throw new Error('dns: no resolver configured');
      await Promise.all(this.servers.flatMap((server) => server.udp.map((channel) => channel.open())));
    })();
    this.opening.catch(() => (this.opening = undefined));
    return this.opening;
  }

  async lookup(name: string, types: string[] = ['A', 'AAAA'], signal?: AbortSignal): Promise<LookupResult> {
    await this.open();
    const typeNumbers = parseTypes(types);
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.submit(name, typeNumbers, (result) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      });
      this.pump();
    });
  }

  async resolveAll(names: AsyncIterable<string> | Iterable<string>, onResult: (result: LookupResult) => void | Promise<void>, options: ResolveAllOptions = {}): Promise<BulkStats> {
    const startedAt = performance.now();
    const before = { ...this.counters };
    await this.open();
    const types = parseTypes(options.types ?? ['A', 'AAAA']);
    const signal = options.signal;
    const outcomes = emptyOutcomes();
    let count = 0;
    let open = 0;
    let unsettled = 0;
    let failure: unknown;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const resume = wake;
      wake = undefined;
      resume?.();
    };
    const deliver = (result: LookupResult): void => {
      open -= 1;
      outcomes[result.outcome] += 1;
      try {
        const settled = onResult(result);
        if (settled instanceof Promise) {
          unsettled += 1;
          settled.then(
            () => {
              unsettled -= 1;
              notify();
            },
            (err: unknown) => {
              failure ??= err;
              unsettled -= 1;
              notify();
            },
          );
        }
      } catch (err) {
        failure ??= err;
      }
      if (open === 0 || unsettled === 0) notify();
    };
    const check = (): void => {
      if (failure !== undefined) throw failure;
      signal?.throwIfAborted();
    };
    for await (const name of names) {
      check();
      count += 1;
      open += 1;
      this.submit(name, types, deliver);
      if (this.queued() >= this.concurrency) {
        this.pump();
        if (this.queued() >= this.concurrency) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
      }
      while (unsettled >= this.concurrency) await new Promise<void>((resolve) => (wake = resolve));
      check();
    }
    this.pump();
    while (open > 0 || unsettled > 0) {
      await new Promise<void>((resolve) => (wake = resolve));
      check();
    }
    check();
    const { queries, retries, tcpFallbacks, timeouts } = this.counters;
    return {
      names: count,
      queries: queries - before.queries,
      retries: retries - before.retries,
      tcpFallbacks: tcpFallbacks - before.tcpFallbacks,
      timeouts: timeouts - before.timeouts,
      durationMs: performance.now() - startedAt,
      outcomes,
    };
  }

  close(): void {
    clearInterval(this.sweepTimer);
    clearTimeout(this.rateTimer);
    this.sweepTimer = undefined;
    for (const server of this.servers) {
      for (const channel of server.udp) channel.close();
      server.tcp.close();
    }
    this.servers = [];
    this.opening = undefined;
  }

  /** Queues the queries of one name; an invalid name is delivered at once as `invalid`. */
  private submit(text: string, types: number[], deliver: (result: LookupResult) => void): void {
    const trimmed = text.trim();
    let canonical: string;
    let nameWire: Buffer;
    try {
      if (HOST_NAME.test(trimmed)) {
        // The common case in one pass: letters, digits, `-` and `_` need no escaping.
        const owner = lowerAscii(trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed);
        nameWire = queryNameWire(owner);
        canonical = `${owner}.`;
      } else {
        if (trimmed === '' || trimmed === '.') throw new Error('empty name');
        // A non-ASCII name is an IDN: servers know it only in its punycode (xn--) form.
        const ascii = NON_ASCII.test(trimmed) ? domainToASCII(trimmed) : trimmed;
        if (ascii === '') throw new Error('not a valid internationalised domain name');
        canonical = canonicalName(ascii.endsWith('.') ? ascii : `${ascii}.`, '.');
        nameWire = queryNameWire(canonical);
      }
    } catch (err) {
      deliver({ name: trimmed, outcome: 'invalid', records: [], failures: [{ type: '', outcome: 'invalid', detail: (err as Error).message }] });
      return;
    }
    const lookup = new NameLookup(ownerForm(canonical), canonical, types.length, deliver);
    const queryOptions = { isRecursionDesired: this.options.isRecursionDesired ?? true, ednsUdpSize: this.options.ednsUdpSize ?? 1232 };
    const questionEnd = 12 + nameWire.length + 4;
    const server = this.servers.length > 1 ? Math.floor(Math.random() * this.servers.length) : 0;
    for (const type of types) this.queue.push(new Query(lookup, type, buildQuery(0, nameWire, type, queryOptions), questionEnd, 0, server, false));
  }

  /** Queries waiting to be sent. */
  private queued(): number {
    return this.queue.length - this.queueHead + this.retryQueue.length;
  }

  /** Sends queued queries while the concurrency (and rate) allow. */
  private pump(): void {
    const now = Date.now();
    while (this.inflight < this.concurrency) {
      if (this.options.ratePerSecond !== undefined && !this.takeToken(now)) break;
      const query = this.retryQueue.pop() ?? this.queue[this.queueHead];
      if (query === undefined) break;
      if (query === this.queue[this.queueHead]) {
        this.queue[this.queueHead] = undefined;
        this.queueHead += 1;
      }
      this.transmit(query, now);
    }
    if (this.queueHead > 4096 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    // Intake resumes at half a window of backlog, so it wakes once per batch rather than per answer.
    if (this.roomWaiters.length > 0 && this.queued() * 2 < this.concurrency) {
      for (const resume of this.roomWaiters.splice(0)) resume();
    }
  }

  private transmit(query: Query, now: number): void {
    const server = this.servers[query.server] as Server;
    query.deadline = now + this.timeoutMs;
    if (query.isTcp) {
      query.channel = server.tcp;
      server.tcp.send(query);
    } else {
      const channel = server.udp[server.next++ % server.udp.length] as UdpChannel<Query>;
      query.channel = channel;
      channel.send(query);
    }
    this.inflight += 1;
    this.counters.queries += 1;
    this.sent.push(query);
    this.sweepTimer ??= setInterval(() => this.sweep(), Math.min(100, Math.max(5, this.timeoutMs / 4)));
  }

  /** Burst of the token bucket: 50 ms worth of queries, at least one. */
  private burst(): number {
    return Math.max(1, (this.options.ratePerSecond ?? 0) / 20);
  }

  private takeToken(now: number): boolean {
    const rate = this.options.ratePerSecond ?? 0;
    this.tokens = Math.min(this.burst(), this.tokens + ((now - this.tokensAt) * rate) / 1000);
    this.tokensAt = now;
    if (this.tokens >= 1 && this.queued() > 0) {
      this.tokens -= 1;
      return true;
    }
    if (this.queued() > 0 && this.rateTimer === undefined) {
      this.rateTimer = setTimeout(() => {
        this.rateTimer = undefined;
        this.pump();
      }, Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / rate)));
    }
    return false;
  }

  /** Times out the queries past their deadline (the sent list is in deadline order). */
  private sweep(): void {
    const now = Date.now();
    while (this.sentHead < this.sent.length) {
      const query = this.sent[this.sentHead] as Query;
      if (!query.isDone && query.deadline > now) break;
      this.sentHead += 1;
      if (query.isDone) continue;
      query.channel?.forget(query);
      this.counters.timeouts += 1;
      this.end(query);
      this.retryOr(query, 'timeout', `no answer from ${this.serverLabel(query)} within ${this.timeoutMs} ms`, true);
    }
    if (this.sentHead > 4096 && this.sentHead * 2 > this.sent.length) {
      this.sent.splice(0, this.sentHead);
      this.sentHead = 0;
    }
    if (this.inflight === 0 && this.queued() === 0) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
      this.sent.length = 0;
      this.sentHead = 0;
    }
    this.pump();
  }

  private end(query: Query): void {
    query.isDone = true;
    this.inflight -= 1;
  }

  private serverLabel(query: Query): string {
    return this.servers[query.server]?.label ?? 'the resolver';
  }

  /** Retries on the next server when attempts remain (and, unless `always`, another server exists). */
  private retryOr(query: Query, outcome: LookupOutcome, detail: string, always: boolean): void {
    if (query.attempt < this.retries && (always || this.servers.length > 1)) {
      this.counters.retries += 1;
      const server = (query.server + 1) % this.servers.length;
      this.retryQueue.push(new Query(query.lookup, query.type, Buffer.from(query.message), query.questionEnd, query.attempt + 1, server, query.isTcp));
      return;
    }
    query.lookup.settle(typeName(query.type), outcome, undefined, detail);
  }

  private onAnswer(query: Query, message: Buffer): void {
    if (query.isDone) return;
    this.end(query);
    const flags = message.readUInt16BE(2);
    const rcode = flags & 0xf;
    if ((flags & 0x0200) !== 0 && !query.isTcp) {
      // Truncated over UDP: ask the same server again over TCP (RFC 7766).
      this.counters.tcpFallbacks += 1;
      this.retryQueue.push(new Query(query.lookup, query.type, query.message, query.questionEnd, query.attempt, query.server, true));
    } else if (rcode === 0 || rcode === 3) {
      this.settleAnswer(query, message, rcode);
    } else if (rcode === 2 || rcode === 5) {
      this.retryOr(query, rcode === 2 ? 'servfail' : 'refused', `${this.serverLabel(query)} answered ${rcodeName(rcode)}`, false);
    } else {
      query.lookup.settle(typeName(query.type), 'error', undefined, `${this.serverLabel(query)} answered ${rcodeName(rcode)}`);
    }
    this.pump();
  }

  private settleAnswer(query: Query, message: Buffer, rcode: number): void {
    let records: ZoneRecord[];
    try {
      records = readAnswers(message, query.questionEnd, query.lookup.canonical);
    } catch (err) {
      if (!(err instanceof DnsWireError)) throw err;
      query.lookup.settle(typeName(query.type), 'error', undefined, `malformed answer from ${this.serverLabel(query)}: ${err.message}`);
      return;
    }
    const outcome: LookupOutcome = rcode === 3 ? 'nxdomain' : records.length > 0 ? 'answer' : 'nodata';
    query.lookup.settle(typeName(query.type), outcome, records, '');
  }

  private onTransportFailure(query: Query, reason: string): void {
    if (query.isDone) return;
    this.end(query);
    this.retryOr(query, 'error', reason, true);
    this.pump();
  }
}

/** The answer section of a response whose question ends at `questionEnd`. */
function readAnswers(message: Buffer, questionEnd: number, questionName: string): ZoneRecord[] {
  const count = message.readUInt16BE(6);
  if (count === 0) return [];
  const reader = new WireReader(message, questionEnd);
  // Answers point back at the question, which isAnswerTo checked is ours: no need to decode it.
  reader.remember(12, questionName);
  const records: ZoneRecord[] = [];
  for (let i = 0; i < count; i += 1) records.push(readRecord(reader).record);
  return records;
}

function parseTypes(types: string[]): number[] {
  if (types.length === 0) throw new Error('dns: at least one record type is needed');
  return types.map((text) => {
    const type = typeNumber(text);
    if (type === undefined) throw new Error(`dns: unknown record type ${JSON.stringify(text)}`);
    return type;
  });
}
