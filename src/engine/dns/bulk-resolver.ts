import { getServers, promises as dnsPromises } from 'node:dns';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { QueryScheduler } from './bulk-scheduler.ts';
import { canonicalName, lowerAscii, ownerForm } from './dns-name.ts';
import { emptyOutcomes, NameLookup, type BulkStats, type LookupResult } from './lookup-result.ts';
import { parseNameServer } from './name-server.ts';
import { typeNumber } from './rr-types.ts';
import { udpBatch } from './udp-batch.ts';
import { queryNameWire } from './wire.ts';

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
  /**
   * UDP sockets: `batch` (the default where it was built) sends and reads datagrams in batches
   * through the native module (udp-batch.ts); `dgram` uses Node's sockets, a datagram at a time.
   */
  udpSockets?: 'batch' | 'dgram';
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
  resolveAll(
    names: AsyncIterable<string> | Iterable<string>,
    onResult: (result: LookupResult) => void | Promise<void>,
    options?: ResolveAllOptions,
  ): Promise<BulkStats>;
  /** Closes every socket; pending lookups never settle afterwards. */
  close(): void;
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

/**
 * Hands every name to `take`, waiting whenever it answers a promise (the intake is full). A plain
 * iterable is read in a plain loop: `for await` would cost a promise and a microtask per name
 * even when nothing has to wait.
 */
async function feedNames(
  names: AsyncIterable<string> | Iterable<string>,
  take: (name: string) => Promise<void> | undefined,
): Promise<void> {
  if (Symbol.iterator in names) {
    for (const name of names) {
      const wait = take(name);
      if (wait !== undefined) await wait;
    }
  } else {
    for await (const name of names) {
      const wait = take(name);
      if (wait !== undefined) await wait;
    }
  }
}

/** The statistics of one resolveAll(): the scheduler's counters since `before`, with the run's own figures. */
function bulkStats(
  after: QueryScheduler['counters'],
  before: QueryScheduler['counters'],
  run: Pick<BulkStats, 'names' | 'durationMs' | 'outcomes'>,
): BulkStats {
  return {
    names: run.names,
    queries: after.queries - before.queries,
    retries: after.retries - before.retries,
    tcpFallbacks: after.tcpFallbacks - before.tcpFallbacks,
    timeouts: after.timeouts - before.timeouts,
    durationMs: run.durationMs,
    outcomes: run.outcomes,
  };
}

/** Creates a bulk resolver; sockets open on first use. */
export function createBulkResolver(options: BulkResolverOptions): BulkResolver {
  return new BulkEngine(options);
}

class BulkEngine implements BulkResolver {
  private readonly concurrency: number;
  private opening: Promise<QueryScheduler> | undefined;

  constructor(private readonly options: BulkResolverOptions) {
    this.concurrency = Math.max(1, options.concurrency ?? 256);
  }

  /** The scheduler over the resolved servers, created once. */
  private open(): Promise<QueryScheduler> {
    if (this.opening !== undefined) return this.opening;
    this.opening = (async () => {
      const addresses = await resolveServers(this.options.servers);
      if (addresses.length === 0) throw new Error('dns: no resolver configured');
      const scheduler = new QueryScheduler(addresses, {
        concurrency: this.concurrency,
        ratePerSecond: this.options.ratePerSecond,
        timeoutMs: Math.max(1, this.options.timeoutMs ?? 2000),
        retries: Math.max(0, this.options.retries ?? 2),
        socketsPerServer: Math.max(1, this.options.socketsPerServer ?? 2),
        ednsUdpSize: this.options.ednsUdpSize ?? 1232,
        isRecursionDesired: this.options.isRecursionDesired ?? true,
        udpBatch: this.options.udpSockets === 'dgram' ? undefined : udpBatch().binding,
      });
      await scheduler.open();
      return scheduler;
    })();
    this.opening.catch(() => (this.opening = undefined));
    return this.opening;
  }

  async lookup(name: string, types: string[] = ['A', 'AAAA'], signal?: AbortSignal): Promise<LookupResult> {
    const scheduler = await this.open();
    const typeNumbers = parseTypes(types);
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.submit(scheduler, name, typeNumbers, (result) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      });
      scheduler.pump();
    });
  }

  async resolveAll(
    names: AsyncIterable<string> | Iterable<string>,
    onResult: (result: LookupResult) => void | Promise<void>,
    options: ResolveAllOptions = {},
  ): Promise<BulkStats> {
    const startedAt = performance.now();
    const scheduler = await this.open();
    const before = { ...scheduler.counters };
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
    // Submitted queries go out in one batch per turn of the event loop: a source that yields
    // names synchronously fills the window first (the backlog check pumps), and one that waits
    // (its next name depends on answers, or on I/O) still gets what it submitted sent.
    let isPumpScheduled = false;
    const schedulePump = (): void => {
      if (isPumpScheduled) return;
      isPumpScheduled = true;
      setImmediate(() => {
        isPumpScheduled = false;
        scheduler.pump();
      });
    };
    // Waits while the backlog is a full window or `concurrency` callbacks are unsettled.
    const room = async (): Promise<void> => {
      if (scheduler.isBacklogFull()) await scheduler.waitForRoom();
      while (unsettled >= this.concurrency) await new Promise<void>((resolve) => (wake = resolve));
      check();
    };
    // Submits one name; returns a promise only when the intake has to wait.
    const take = (name: string): Promise<void> | undefined => {
      check();
      count += 1;
      open += 1;
      this.submit(scheduler, name, types, deliver);
      schedulePump();
      return scheduler.isBacklogFull() || unsettled >= this.concurrency ? room() : undefined;
    };
    await feedNames(names, take);
    scheduler.pump();
    while (open > 0 || unsettled > 0) {
      await new Promise<void>((resolve) => (wake = resolve));
      check();
    }
    check();
    return bulkStats(scheduler.counters, before, { names: count, durationMs: performance.now() - startedAt, outcomes });
  }

  close(): void {
    const opening = this.opening;
    this.opening = undefined;
    void opening?.then(
      (scheduler) => scheduler.close(),
      () => undefined,
    );
  }

  /** Queues the queries of one name; an invalid name is delivered at once as `invalid`. */
  private submit(
    scheduler: QueryScheduler,
    text: string,
    types: number[],
    deliver: (result: LookupResult) => void,
  ): void {
    const trimmed = text.trim();
    let owner: string;
    let nameWire: Buffer;
    try {
      if (HOST_NAME.test(trimmed)) {
        // The common case in one pass: letters, digits, `-` and `_` need no escaping. A name
        // given in owner form stays the same string: the caller's maps find it without hashing anew.
        owner = lowerAscii(trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed);
        nameWire = queryNameWire(owner);
      } else {
        if (trimmed === '' || trimmed === '.') throw new Error('empty name');
        // A non-ASCII name is an IDN: servers know it only in its punycode (xn--) form.
        const ascii = NON_ASCII.test(trimmed) ? domainToASCII(trimmed) : trimmed;
        if (ascii === '') throw new Error('not a valid internationalised domain name');
        const canonical = canonicalName(ascii.endsWith('.') ? ascii : `${ascii}.`, '.');
        owner = ownerForm(canonical);
        nameWire = queryNameWire(canonical);
      }
    } catch (err) {
      deliver({
        name: trimmed,
        outcome: 'invalid',
        records: [],
        failures: [{ type: '', outcome: 'invalid', detail: (err as Error).message }],
      });
      return;
    }
    scheduler.submit(new NameLookup(owner, types.length, deliver), nameWire, types);
  }
}

function parseTypes(types: string[]): number[] {
  if (types.length === 0) throw new Error('dns: at least one record type is needed');
  return types.map((text) => {
    const type = typeNumber(text);
    if (type === undefined) throw new Error(`dns: unknown record type ${JSON.stringify(text)}`);
    return type;
  });
}
