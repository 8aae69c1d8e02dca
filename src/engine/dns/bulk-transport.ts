import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { isIP, type Socket } from 'node:net';
import { connectTcp, TcpMessageReader } from './dns-tcp.ts';
import type { UdpBatchBinding, UdpBatchHandle } from './udp-batch.ts';
import type { QueryTemplate } from './wire.ts';

/**
 * The sockets of the bulk resolver. UDP channels are connected dgram sockets (one source port
 * each, and the kernel drops datagrams from any other peer); the TCP channel carries the
 * queries whose UDP answer was truncated, pipelined on one connection per server.
 */

/** A query on the wire: its id (written by the channel), its name in wire form and its type. */
export interface WireQuery {
  id: number;
  readonly nameWire: Buffer;
  readonly type: number;
}

/** Random 16-bit query ids from a pool of crypto bytes, so an off-path attacker cannot guess them cheaply. */
export class RandomIds {
  private pool = randomBytes(8192);
  private at = 0;

  next(): number {
    if (this.at + 2 > this.pool.length) {
      this.pool = randomBytes(8192);
      this.at = 0;
    }
    const id = this.pool.readUInt16BE(this.at);
    this.at += 2;
    return id;
  }
}

/** True when the message answers the query: a response with the same id and the same question (name byte for byte, type, class IN). */
export function isAnswerTo(message: Buffer, query: WireQuery): boolean {
  const name = query.nameWire;
  const end = 12 + name.length;
  if (message.length < end + 4 || (message[2] as number) < 0x80 || message[4] !== 0 || message[5] !== 1) return false;
  for (let i = 0; i < name.length; i += 1) if (message[12 + i] !== name[i]) return false;
  return (
    message[end] === query.type >> 8 &&
    message[end + 1] === (query.type & 0xff) &&
    message[end + 2] === 0 &&
    message[end + 3] === 1
  );
}

/** Receive buffer of a UDP channel: a burst of answers to a full window must not overflow the 208 KiB default. */
const RECEIVE_BUFFER = 4 << 20;
/** Datagrams read per batch, and the largest batch sent at once. */
const BATCH = 64;

/** What the scheduler needs of a UDP channel, whichever socket carries it. */
export interface UdpTransport<Q extends WireQuery> {
  open(): Promise<void>;
  /** Sends a query under a fresh id not in use on this channel (a batching channel may hold it until flush). */
  send(query: Q): void;
  /** Sends what send() held back; the scheduler calls it after each round of sends. */
  flush(): void;
  forget(query: Q): void;
  inFlight(): IterableIterator<Q>;
  close(): void;
}

/** The queries one UDP channel has in flight, by id, and the matching of answers to them. */
abstract class UdpQueries<Q extends WireQuery> {
  private readonly slots = new Map<number, Q>();

  constructor(
    private readonly ids: RandomIds,
    private readonly onAnswer: (query: Q, message: Buffer) => void,
  ) {}

  /** Gives the query a fresh id not in use on this channel and waits for its answer. */
  protected register(query: Q): number {
    let id = this.ids.next();
    while (this.slots.has(id)) id = this.ids.next();
    query.id = id;
    this.slots.set(id, query);
    return id;
  }

  /** Stops waiting for the query's answer (timed out or abandoned). */
  forget(query: Q): void {
    if (this.slots.get(query.id) === query) this.slots.delete(query.id);
  }

  /** The queries sent and not yet answered or forgotten, in the order they were sent. */
  inFlight(): IterableIterator<Q> {
    return this.slots.values();
  }

  protected receive(message: Buffer): void {
    if (message.length < 12) return;
    const query = this.slots.get(message.readUInt16BE(0));
    // A late, forged or misrouted datagram does not match: drop it and keep waiting.
    if (query === undefined || !isAnswerTo(message, query)) return;
    this.slots.delete(query.id);
    this.onAnswer(query, message);
  }

  protected clear(): void {
    this.slots.clear();
  }
}

/** One connected dgram socket towards a server; matches answers to queries by id and question. */
export class UdpChannel<Q extends WireQuery> extends UdpQueries<Q> implements UdpTransport<Q> {
  private socket: dgram.Socket | undefined;
  // Query messages by length, written over for each send: a datagram the kernel took at once is
  // copied, so its buffer is free again (one queued for later is not reused; see send()).
  private readonly messages: Array<Buffer | undefined> = [];

  constructor(
    private readonly address: string,
    private readonly port: number,
    ids: RandomIds,
    private readonly template: QueryTemplate,
    onAnswer: (query: Q, message: Buffer) => void,
  ) {
    super(ids, onAnswer);
  }

  /** Binds an ephemeral port and connects it to the server (tests may hand in the socket). */
  async open(
    socket = dgram.createSocket({ type: isIP(this.address) === 6 ? 'udp6' : 'udp4', recvBufferSize: RECEIVE_BUFFER }),
  ): Promise<void> {
    // Answers that arrive after close, ICMP errors of a connected socket (port unreachable):
    // the query times out and is retried; the socket must not bring the process down.
    socket.on('error', () => undefined);
    socket.on('message', (message: Buffer) => this.receive(message));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(this.port, this.address, () => {
        socket.removeListener('error', reject);
        resolve();
      });
    });
    this.socket = socket;
  }

  send(query: Q): void {
    const id = this.register(query);
    const socket = this.socket;
    if (socket === undefined) return;
    const length = this.template.length(query.nameWire);
    const message = this.messages[length] ?? Buffer.allocUnsafeSlow(length);
    this.template.write(message, 0, id, query.nameWire, query.type);
    socket.send(message);
    // When the socket could not send at once, the message waits in its queue: keep that buffer.
    this.messages[length] = socket.getSendQueueCount() === 0 ? message : undefined;
  }

  /** dgram sends each query at once. */
  flush(): void {}

  close(): void {
    this.clear();
    this.socket?.close();
    this.socket = undefined;
  }
}

/**
 * One connected socket of the native batch-UDP module (see udp-batch.ts): queries are written
 * end to end into one buffer and leave together with one sendmmsg at flush(); answers arrive
 * a batch at a time (recvmmsg) in slots of a buffer that the next batch writes over, so an
 * answer is read during onAnswer and not kept.
 */
export class BatchUdpChannel<Q extends WireQuery> extends UdpQueries<Q> implements UdpTransport<Q> {
  private handle: UdpBatchHandle | undefined;
  private readonly out: Buffer;
  private readonly ends = new Uint32Array(BATCH);
  private pending = 0;
  private isRetryScheduled = false;
  private readonly slotSize: number;
  private readonly inbox: Buffer;
  private readonly lengths = new Int32Array(BATCH);

  constructor(
    private readonly binding: UdpBatchBinding,
    private readonly address: string,
    private readonly port: number,
    ids: RandomIds,
    private readonly template: QueryTemplate,
    ednsUdpSize: number,
    onAnswer: (query: Q, message: Buffer) => void,
  ) {
    super(ids, onAnswer);
    // The largest query: a 255-byte name behind the fixed parts.
    this.out = Buffer.allocUnsafeSlow(BATCH * template.length(Buffer.alloc(255)));
    // Answers fit the EDNS payload size advertised (512 bytes without EDNS); a larger datagram is dropped.
    this.slotSize = Math.max(512, ednsUdpSize);
    this.inbox = Buffer.allocUnsafeSlow(BATCH * this.slotSize);
  }

  async open(): Promise<void> {
    const handle = this.binding.open(isIP(this.address) === 6 ? 6 : 4, RECEIVE_BUFFER);
    try {
      this.binding.connect(handle, this.address, this.port);
      this.binding.receive(handle, this.inbox, this.slotSize, this.lengths, (count) => this.receiveBatch(count));
    } catch (err) {
      this.binding.close(handle);
      throw err;
    }
    this.handle = handle;
  }

  send(query: Q): void {
    const id = this.register(query);
    if (this.handle === undefined) return;
    if (this.pending === BATCH) this.flush();
    // Still full: the kernel's buffer is, too; the query waits for its time-out and is retried.
    if (this.pending === BATCH) return;
    const at = this.pending === 0 ? 0 : (this.ends[this.pending - 1] as number);
    this.template.write(this.out, at, id, query.nameWire, query.type);
    this.ends[this.pending] = at + this.template.length(query.nameWire);
    this.pending += 1;
  }

  flush(): void {
    const handle = this.handle;
    if (handle === undefined || this.pending === 0) return;
    const sent = this.binding.send(handle, this.out, this.ends, this.pending);
    if (sent === this.pending) {
      this.pending = 0;
      return;
    }
    // The kernel took the first `sent`: move the rest to the front and try again shortly.
    const from = sent === 0 ? 0 : (this.ends[sent - 1] as number);
    this.out.copyWithin(0, from, this.ends[this.pending - 1]);
    for (let i = sent; i < this.pending; i += 1) this.ends[i - sent] = (this.ends[i] as number) - from;
    this.pending -= sent;
    if (this.isRetryScheduled) return;
    this.isRetryScheduled = true;
    setTimeout(() => {
      this.isRetryScheduled = false;
      this.flush();
    }, 1).unref();
  }

  private receiveBatch(count: number): void {
    for (let i = 0; i < count; i += 1) {
      const length = this.lengths[i] as number;
      if (length < 12) continue;
      const start = i * this.slotSize;
      this.receive(this.inbox.subarray(start, start + length));
      if (this.handle === undefined) return;
    }
  }

  close(): void {
    this.clear();
    this.pending = 0;
    if (this.handle !== undefined) this.binding.close(this.handle);
    this.handle = undefined;
  }
}

/** DNS over TCP to one server for truncated answers: one lazily opened connection, queries pipelined (RFC 7766). */
export class TcpChannel<Q extends WireQuery> {
  private readonly pending = new Map<number, Q>();
  private socket: Socket | undefined;
  private connecting: Promise<Socket> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly address: string,
    private readonly port: number,
    private readonly ids: RandomIds,
    private readonly template: QueryTemplate,
    private readonly timeoutMs: number,
    private readonly onAnswer: (query: Q, message: Buffer) => void,
    private readonly onFailure: (query: Q, reason: string) => void,
  ) {}

  /** Sends a query, connecting first if needed. */
  send(query: Q): void {
    let id = this.ids.next();
    while (this.pending.has(id)) id = this.ids.next();
    query.id = id;
    this.pending.set(id, query);
    clearTimeout(this.idleTimer);
    void this.connection().then(
      (socket) => {
        if (this.pending.get(id) === query) socket.write(this.template.encode(id, query.nameWire, query.type, 2));
      },
      (err: Error) => this.failAll(`TCP connection to ${this.address}:${this.port} failed: ${err.message}`),
    );
  }

  forget(query: Q): void {
    if (this.pending.get(query.id) === query) this.pending.delete(query.id);
    this.scheduleIdleClose();
  }

  /** The queries sent and not yet answered or forgotten, in the order they were sent. */
  inFlight(): IterableIterator<Q> {
    return this.pending.values();
  }

  private connection(): Promise<Socket> {
    if (this.socket !== undefined) return Promise.resolve(this.socket);
    this.connecting ??= connectTcp(this.address, this.port, this.timeoutMs).then((socket) => {
      const framer = new TcpMessageReader();
      socket.on('data', (data: Buffer) => {
        for (const message of framer.push(data)) this.receive(message);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        if (this.socket === socket) this.socket = undefined;
        this.failAll(`TCP connection to ${this.address}:${this.port} closed`);
      });
      this.socket = socket;
      this.connecting = undefined;
      return socket;
    });
    this.connecting.catch(() => (this.connecting = undefined));
    return this.connecting;
  }

  private receive(message: Buffer): void {
    if (message.length < 12) return;
    const query = this.pending.get(message.readUInt16BE(0));
    if (query === undefined || !isAnswerTo(message, query)) return;
    this.pending.delete(query.id);
    this.scheduleIdleClose();
    this.onAnswer(query, message);
  }

  private failAll(reason: string): void {
    const queries = [...this.pending.values()];
    this.pending.clear();
    for (const query of queries) this.onFailure(query, reason);
  }

  /** Closes the connection once nothing is pending for a while, so an idle resolver holds no socket. */
  private scheduleIdleClose(): void {
    if (this.pending.size > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), 5000);
    this.idleTimer.unref();
  }

  close(): void {
    clearTimeout(this.idleTimer);
    this.pending.clear();
    this.socket?.destroy();
    this.socket = undefined;
  }
}
