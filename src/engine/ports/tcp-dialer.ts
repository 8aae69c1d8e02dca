import net from 'node:net';
import { getSystemErrorMap } from 'node:util';

/**
 * How one connect ended: `open` (handshake completed), `closed` (refused, or the kernel
 * connected the socket to itself), `unreachable` (host or network unreachable), `resources`
 * (the local machine ran out of sockets or ports: try again later), `failed` (anything else).
 */
export type DialOutcome = 'open' | 'closed' | 'unreachable' | 'resources' | 'failed';

/** One connect in flight; the dialer keeps its own handle in `socket`. */
export interface DialTarget {
  address: string;
  family: 4 | 6;
  port: number;
  socket: unknown;
}

/**
 * Opens bare TCP connects and closes them as soon as they end: a connect scan needs nothing
 * else. `onResult` is called once per dial, never after `cancel`.
 */
export interface TcpDialer {
  readonly kind: 'handle' | 'socket';
  dial(target: DialTarget): void;
  /** Drops a connect (time-out, abort): the socket is closed now. */
  cancel(target: DialTarget): void;
}

/** Called with the error code (`ECONNREFUSED`…) when the outcome is not `open`. */
export type DialResult = (target: DialTarget, outcome: DialOutcome, code: string) => void;

const CLOSED_CODES = new Set(['ECONNREFUSED', 'ECONNRESET']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);
const RESOURCE_CODES = new Set(['EADDRNOTAVAIL', 'EMFILE', 'ENFILE', 'ENOBUFS', 'EAGAIN', 'ENOMEM']);

/** Sorts an error code into a dial outcome. */
export function outcomeOfCode(code: string): DialOutcome {
  if (CLOSED_CODES.has(code)) return 'closed';
  if (UNREACHABLE_CODES.has(code)) return 'unreachable';
  if (RESOURCE_CODES.has(code)) return 'resources';
  return 'failed';
}

// ---------------------------------------------------------------------------------------------
// Bare libuv handles

/** The shape of node's tcp_wrap binding this dialer uses (the handles net.Socket wraps). */
interface TcpHandle {
  connect(req: ConnectReq, address: string, port: number): number;
  connect6(req: ConnectReq, address: string, port: number): number;
  getsockname(out: { address?: string; port?: number }): number;
  reset(callback?: () => void): number;
  close(callback?: () => void): void;
}
interface ConnectReq {
  /** Called by node as (status, handle, request, readable, writable). */
  oncomplete: (status: number, handle: TcpHandle, req: ConnectReq) => void;
  target: HandleTarget | undefined;
}
interface TcpBinding {
  TCP: new (type: number) => TcpHandle;
  TCPConnectWrap: new () => ConnectReq;
  constants: { SOCKET: number };
}
type HandleTarget = DialTarget & { socket: TcpHandle | undefined };

let binding: TcpBinding | null | undefined;

/**
 * node's own TCP handle binding, or null where this node does not expose it. A net.Socket costs
 * a stream, an event emitter and several objects per connect; a bare handle is one object and
 * one request, which more than halves the CPU of a 65,535-port scan (docs/ports.md).
 */
function tcpBinding(): TcpBinding | null {
  if (binding !== undefined) return binding;
  try {
    const legacy = process as unknown as { binding(name: string): unknown };
    const candidate = legacy.binding('tcp_wrap') as Partial<TcpBinding>;
    const isUsable =
      typeof candidate.TCP === 'function' &&
      typeof candidate.TCPConnectWrap === 'function' &&
      typeof candidate.constants?.SOCKET === 'number' &&
      typeof candidate.TCP.prototype.connect6 === 'function' &&
      typeof candidate.TCP.prototype.reset === 'function';
    binding = isUsable ? (candidate as TcpBinding) : null;
  } catch {
    binding = null;
  }
  return binding;
}

const errorNames = new Map<number, string>([...getSystemErrorMap()].map(([errno, [name]]) => [errno, name]));
const noAddress: { address?: string; port?: number } = {};

class HandleDialer implements TcpDialer {
  readonly kind = 'handle' as const;

  constructor(
    private readonly api: TcpBinding,
    private readonly onResult: DialResult,
  ) {}

  dial(target: HandleTarget): void {
    const handle = new this.api.TCP(this.api.constants.SOCKET);
    const req = new this.api.TCPConnectWrap();
    req.target = target;
    req.oncomplete = this.complete;
    target.socket = handle;
    const status =
      target.family === 4
        ? handle.connect(req, target.address, target.port)
        : handle.connect6(req, target.address, target.port);
    if (status !== 0) {
      // Failed before any packet (EMFILE, EADDRNOTAVAIL …): report after this call returns.
      req.target = undefined;
      target.socket = undefined;
      handle.close();
      const code = errorNames.get(status) ?? `errno ${status}`;
      queueMicrotask(() => this.onResult(target, outcomeOfCode(code), code));
    }
  }

  cancel(target: HandleTarget): void {
    const handle = target.socket;
    if (handle === undefined) return;
    target.socket = undefined;
    // libuv then completes the request with ECANCELED; `complete` ignores it (socket unset).
    handle.close();
  }

  /** The request's callback, shared by every request. */
  private readonly complete = (status: number, handle: TcpHandle, req: ConnectReq): void => {
    const target = req.target;
    req.target = undefined;
    if (target === undefined || target.socket !== handle) return;
    target.socket = undefined;
    if (status === 0) {
      const local = noAddress;
      local.port = undefined;
      handle.getsockname(local);
      // An ephemeral source port equal to the target port on the same address: the kernel joined
      // the socket to itself (TCP simultaneous open); nothing listens there.
      const isSelf = local.port === target.port && local.address === target.address;
      handle.reset();
      this.onResult(target, isSelf ? 'closed' : 'open', isSelf ? 'ESELFCONNECT' : '');
      return;
    }
    handle.close();
    const code = errorNames.get(status) ?? `errno ${status}`;
    this.onResult(target, outcomeOfCode(code), code);
  };
}

// ---------------------------------------------------------------------------------------------
// net.Socket

type SocketTarget = DialTarget & { socket: net.Socket | undefined };

class SocketDialer implements TcpDialer {
  readonly kind = 'socket' as const;

  constructor(private readonly onResult: DialResult) {}

  dial(target: SocketTarget): void {
    const socket = new net.Socket();
    target.socket = socket;
    socket.once('connect', () => {
      if (target.socket !== socket) return;
      target.socket = undefined;
      const isSelf = socket.localPort === target.port && socket.localAddress === target.address;
      socket.resetAndDestroy();
      this.onResult(target, isSelf ? 'closed' : 'open', isSelf ? 'ESELFCONNECT' : '');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      if (target.socket !== socket) return;
      target.socket = undefined;
      const code = err.code ?? 'EUNKNOWN';
      this.onResult(target, outcomeOfCode(code), code);
    });
    socket.connect({ host: target.address, port: target.port, family: target.family, autoSelectFamily: false });
  }

  cancel(target: SocketTarget): void {
    const socket = target.socket;
    if (socket === undefined) return;
    target.socket = undefined;
    socket.destroy();
  }
}

/** Which dialer: `handle` when node exposes its TCP handles (`auto` falls back to sockets). */
export type DialerKind = 'auto' | 'handle' | 'socket';

/** Builds a dialer; throws when `handle` is asked for and this node does not offer it. */
export function createTcpDialer(kind: DialerKind, onResult: DialResult): TcpDialer {
  const api = kind === 'socket' ? null : tcpBinding();
  if (api !== null) return new HandleDialer(api, onResult);
  if (kind === 'handle') throw new Error('this node does not expose its TCP handles; use the socket dialer');
  return new SocketDialer(onResult);
}
