import {
  BatchUdpChannel,
  RandomIds,
  TcpChannel,
  UdpChannel,
  type UdpTransport,
  type WireQuery,
} from './bulk-transport.ts';
import type { LookupOutcome, NameLookup } from './lookup-result.ts';
import { formatNameServer } from './name-server.ts';
import { rcodeName, typeName } from './rr-types.ts';
import type { UdpBatchBinding } from './udp-batch.ts';
import { DnsWireError, QueryTemplate, readRecord, readRecordBody } from './wire.ts';
import { WireReader } from './wire-reader.ts';
import type { ZoneRecord } from './zone-record.ts';

/** How the scheduler sends queries (see BulkResolverOptions). */
export interface SchedulerOptions {
  concurrency: number;
  ratePerSecond: number | undefined;
  timeoutMs: number;
  retries: number;
  socketsPerServer: number;
  ednsUdpSize: number;
  isRecursionDesired: boolean;
  /** The native batch-UDP module, or undefined for Node's dgram sockets. */
  udpBatch: UdpBatchBinding | undefined;
}

/** One query of one name and type, on its way. A retry is a new Query, so stale timers can tell. */
class Query implements WireQuery {
  id = 0;
  deadline = 0;
  isDone = false;

  constructor(
    readonly lookup: NameLookup,
    readonly nameWire: Buffer,
    readonly type: number,
    readonly attempt: number,
    readonly server: number,
    readonly isTcp: boolean,
  ) {}
}

interface Server {
  label: string;
  udp: Array<UdpTransport<Query>>;
  tcp: TcpChannel<Query>;
  next: number;
}

/**
 * The query engine of the bulk resolver: a queue of queries sent while the concurrency and the
 * rate allow, answers matched on the UDP channels (TCP when truncated), timeouts swept from the
 * channels' queries in flight (no timer per query), retries moved to the next server.
 */
export class QueryScheduler {
  private readonly ids = new RandomIds();
  private readonly servers: Server[];
  private readonly queue: Array<Query | undefined> = [];
  private queueHead = 0;
  private readonly retryQueue: Query[] = [];
  private inflight = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  private rateTimer: NodeJS.Timeout | undefined;
  private tokens: number;
  private tokensAt = Date.now();
  private readonly roomWaiters: Array<() => void> = [];
  private isPumpScheduled = false;
  readonly counters = { queries: 0, retries: 0, tcpFallbacks: 0, timeouts: 0 };

  constructor(
    addresses: Array<{ address: string; port: number }>,
    private readonly options: SchedulerOptions,
  ) {
    const onAnswer = (query: Query, message: Buffer): void => this.onAnswer(query, message);
    const onFailure = (query: Query, reason: string): void => this.onTransportFailure(query, reason);
    const template = new QueryTemplate({
      isRecursionDesired: options.isRecursionDesired,
      ednsUdpSize: options.ednsUdpSize,
    });
    this.servers = addresses.map(({ address, port }) => ({
      label: formatNameServer({ host: address, port }),
      udp: Array.from({ length: options.socketsPerServer }, (): UdpTransport<Query> => {
        const batch = options.udpBatch;
        if (batch === undefined) return new UdpChannel<Query>(address, port, this.ids, template, onAnswer);
        return new BatchUdpChannel<Query>(batch, address, port, this.ids, template, options.ednsUdpSize, onAnswer);
      }),
      tcp: new TcpChannel<Query>(address, port, this.ids, template, options.timeoutMs, onAnswer, onFailure),
      next: 0,
    }));
    this.tokens = this.burst();
  }

  /** Opens the UDP sockets. */
  async open(): Promise<void> {
    await Promise.all(this.servers.flatMap((server) => server.udp.map((channel) => channel.open())));
  }

  /** Queues one query per type for a name whose wire form is given; pump() sends them. */
  submit(lookup: NameLookup, nameWire: Buffer, types: number[]): void {
    const server = this.servers.length > 1 ? Math.floor(Math.random() * this.servers.length) : 0;
    for (const type of types) this.queue.push(new Query(lookup, nameWire, type, 0, server, false));
  }

  /** Resolves once the backlog of unsent queries is below half the concurrency. */
  waitForRoom(): Promise<void> {
    this.pump();
    if (this.queued() * 2 < this.options.concurrency) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** True when the backlog of unsent queries is a full window. */
  isBacklogFull(): boolean {
    return this.queued() >= this.options.concurrency;
  }

  /** Closes every socket and stops the timers; queries in flight are abandoned. */
  close(): void {
    clearInterval(this.sweepTimer);
    clearTimeout(this.rateTimer);
    this.sweepTimer = undefined;
    for (const server of this.servers) {
      for (const channel of server.udp) channel.close();
      server.tcp.close();
    }
  }

  /** Queries waiting to be sent. */
  private queued(): number {
    return this.queue.length - this.queueHead + this.retryQueue.length;
  }

  /** Sends queued queries while the concurrency (and rate) allow. */
  pump(): void {
    const now = Date.now();
    while (this.inflight < this.options.concurrency) {
      if (this.options.ratePerSecond !== undefined && !this.takeToken(now)) break;
      const query = this.retryQueue.pop() ?? this.queue[this.queueHead];
      if (query === undefined) break;
      if (query === this.queue[this.queueHead]) {
        this.queue[this.queueHead] = undefined;
        this.queueHead += 1;
      }
      this.transmit(query, now);
    }
    for (const server of this.servers) for (const channel of server.udp) channel.flush();
    if (this.queueHead > 4096 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    // Intake resumes at half a window of backlog, so it wakes once per batch rather than per answer.
    if (this.roomWaiters.length > 0 && this.queued() * 2 < this.options.concurrency) {
      for (const resume of this.roomWaiters.splice(0)) resume();
    }
  }

  private transmit(query: Query, now: number): void {
    const server = this.servers[query.server] as Server;
    query.deadline = now + this.options.timeoutMs;
    if (query.isTcp) server.tcp.send(query);
    else (server.udp[server.next++ % server.udp.length] as UdpTransport<Query>).send(query);
    this.inflight += 1;
    this.counters.queries += 1;
    this.sweepTimer ??= setInterval(() => this.sweep(), Math.min(100, Math.max(5, this.options.timeoutMs / 4)));
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
      this.rateTimer = setTimeout(
        () => {
          this.rateTimer = undefined;
          this.pump();
        },
        Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / rate)),
      );
    }
    return false;
  }

  /**
   * Times out the queries past their deadline. The channels hold the queries in flight (at
   * most the concurrency), so nothing else keeps a query once it is answered: a list of every
   * query sent kept them all alive until the sweep reached them, and the GC paid for it.
   */
  private sweep(): void {
    const now = Date.now();
    for (const server of this.servers) {
      for (const channel of server.udp) this.expire(channel, now);
      this.expire(server.tcp, now);
    }
    if (this.inflight === 0 && this.queued() === 0) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
    }
    this.pump();
  }

  private expire(channel: UdpTransport<Query> | TcpChannel<Query>, now: number): void {
    for (const query of channel.inFlight()) {
      if (query.isDone || query.deadline > now) continue;
      channel.forget(query);
      this.counters.timeouts += 1;
      this.end(query);
      this.retryOr(
        query,
        'timeout',
        `no answer from ${this.serverLabel(query)} within ${this.options.timeoutMs} ms`,
        true,
      );
    }
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
    if (query.attempt < this.options.retries && (always || this.servers.length > 1)) {
      this.counters.retries += 1;
      const server = (query.server + 1) % this.servers.length;
      this.retryQueue.push(new Query(query.lookup, query.nameWire, query.type, query.attempt + 1, server, query.isTcp));
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
      this.retryQueue.push(new Query(query.lookup, query.nameWire, query.type, query.attempt, query.server, true));
    } else if (rcode === 0 || rcode === 3) {
      this.settleAnswer(query, message, rcode);
    } else if (rcode === 2 || rcode === 5) {
      this.retryOr(
        query,
        rcode === 2 ? 'servfail' : 'refused',
        `${this.serverLabel(query)} answered ${rcodeName(rcode)}`,
        false,
      );
    } else {
      query.lookup.settle(
        typeName(query.type),
        'error',
        undefined,
        `${this.serverLabel(query)} answered ${rcodeName(rcode)}`,
      );
    }
    this.schedulePump();
  }

  /**
   * Refills the window once per turn of the event loop rather than once per answer: the answers
   * a socket read delivers together free their slots together, and the queries that take them
   * leave as one burst, which the server reads in one batch (recvmmsg) instead of waking per query.
   */
  private schedulePump(): void {
    if (this.isPumpScheduled) return;
    this.isPumpScheduled = true;
    setImmediate(() => {
      this.isPumpScheduled = false;
      this.pump();
    });
  }

  private settleAnswer(query: Query, message: Buffer, rcode: number): void {
    let records: ZoneRecord[];
    try {
      records = readAnswers(message, 12 + query.nameWire.length + 4, query.lookup);
    } catch (err) {
      if (!(err instanceof DnsWireError)) throw err;
      query.lookup.settle(
        typeName(query.type),
        'error',
        undefined,
        `malformed answer from ${this.serverLabel(query)}: ${err.message}`,
      );
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

/** The answer section of a response whose question (the lookup's name) ends at `questionEnd`. */
function readAnswers(message: Buffer, questionEnd: number, lookup: NameLookup): ZoneRecord[] {
  const count = message.readUInt16BE(6);
  if (count === 0) return [];
  const reader = new WireReader(message, questionEnd);
  const records: ZoneRecord[] = [];
  let isQuestionKnown = false;
  for (let i = 0; i < count; i += 1) {
    // Most owners point back at the question (0xc00c), which isAnswerTo checked is ours: the
    // record's owner is the lookup's name, nothing to decode.
    if (message[reader.pos] === 0xc0 && message[reader.pos + 1] === 12) {
      reader.pos += 2;
      records.push(readRecordBody(reader, lookup.name));
    } else {
      // Other owners (a CNAME's target) may point into the question too: no need to decode it either.
      if (!isQuestionKnown) reader.remember(12, lookup.canonical);
      isQuestionKnown = true;
      records.push(readRecord(reader).record);
    }
  }
  return records;
}
