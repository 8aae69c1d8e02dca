import { connect, type Socket } from 'node:net';
import type { EgressGuard } from '../net/egress-guard.ts';
import { readServerReply, type ServerReply } from './server-reply.ts';

/** How one probe ended: the server's reply, or why there is none. */
export type ProbeOutcome =
  | ServerReply
  /** The server closed or reset the connection without answering: it refuses the offer. */
  | { kind: 'closed' }
  | { kind: 'timeout' }
  /** No TCP connection (refused, unreachable) or the guard refused the address. */
  | { kind: 'unreachable'; reason: string }
  | { kind: 'denied'; reason: string };

/** What every probe needs: the guard, the run's abort signal and the per-handshake time limit. */
export interface ProbeContext {
  guard: EgressGuard;
  signal: AbortSignal;
  timeoutMs: number;
}

const MAX_READ = 96 * 1024;

/**
 * Opens a TCP connection to address:port (after the egress guard allows the address), sends
 * `hello` and waits for the first verdict of readServerReply, then closes. The time limit
 * covers connect, send and answer. An abort rejects with the signal's reason; everything a
 * host can do (refuse, reset, stay silent, answer in another protocol) is an outcome.
 */
export function probeHandshake(
  address: string,
  port: number,
  hello: Buffer,
  context: ProbeContext,
): Promise<ProbeOutcome> {
  const decision = context.guard.check(address);
  if (!decision.isAllowed)
    return Promise.resolve({ kind: 'denied', reason: decision.reason ?? `${address} is denied` });
  if (context.signal.aborted) return Promise.reject(context.signal.reason);
  return new Promise((resolve, reject) => {
    let socket: Socket | undefined;
    let received = Buffer.alloc(0);
    let isConnected = false;
    const finish = (outcome: ProbeOutcome | Error): void => {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
      socket?.destroy();
      socket = undefined;
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onAbort = (): void =>
      finish(context.signal.reason instanceof Error ? context.signal.reason : new Error('aborted'));
    const timer = setTimeout(() => finish({ kind: 'timeout' }), context.timeoutMs);
    context.signal.addEventListener('abort', onAbort, { once: true });
    socket = connect({ host: address, port, noDelay: true });
    socket.once('connect', () => {
      isConnected = true;
      socket?.write(hello);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const reply = readServerReply(received);
      if (reply !== undefined) finish(reply);
      else if (received.length > MAX_READ) finish({ kind: 'not-tls', reason: 'no ServerHello in the first 96 KB' });
    });
    socket.once('end', () =>
      finish(
        received.length === 0 ? { kind: 'closed' } : { kind: 'not-tls', reason: 'closed in the middle of a record' },
      ),
    );
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (isConnected) finish({ kind: 'closed' });
      else finish({ kind: 'unreachable', reason: `${err.code ?? err.message}` });
    });
  });
}

/** Runs at most `size` tasks at a time, in call order: the cap on connections one assessment holds open. */
export function createLimiter(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}
