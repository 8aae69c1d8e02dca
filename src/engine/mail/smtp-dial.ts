import net from 'node:net';
import { refuseLookup, resolveGuarded, type AddressResolver, type EgressGuard } from '../net/egress-guard.ts';

/**
 * The TCP connection of the e-mail channel: the SMTP server's name resolved through the egress
 * guard (every address checked, none resolved again on the way to the socket), each address
 * tried in turn within the time limit, the caller's abort signal ending the attempt. nodemailer
 * receives the connected socket (its `getSocket` option) and speaks SMTP, STARTTLS or TLS over it.
 */

/** What dialling an SMTP server needs. */
export interface SmtpDialOptions {
  guard: EgressGuard;
  resolver: AddressResolver;
  /** Time limit of resolving the name and of connecting to each address, in milliseconds. */
  timeoutMs: number;
}

/** An Error carrying a Node-style code (ETIMEDOUT, ECONNREFUSED …), as nodemailer's own errors do. */
function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function connectTo(address: string, port: number, timeoutMs: number, signal: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port, lookup: refuseLookup });
    // An error after the hand-over reaches nodemailer's own listener; this one keeps a late
    // error (between the hand-over and nodemailer's listener) from being unhandled.
    socket.on('error', () => undefined);
    const cleanup = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('error', fail);
    };
    const fail = (err: Error): void => {
      cleanup();
      socket.destroy();
      reject(err);
    };
    const onAbort = (): void => fail(codedError('the send was cancelled', 'ABORT_ERR'));
    const timer = setTimeout(
      () => fail(codedError(`no connection to ${address} port ${port} within ${timeoutMs} ms`, 'ETIMEDOUT')),
      timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once('connect', () => {
      cleanup();
      resolve(socket);
    });
  });
}

/**
 * A socket connected to host:port through the egress guard (an EgressDeniedError when the
 * guard refuses an address of the host; the last connection error when no address answers).
 */
export async function dialGuarded(
  host: string,
  port: number,
  options: SmtpDialOptions,
  signal: AbortSignal,
): Promise<net.Socket> {
  const lookupSignal = AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]);
  const addresses = await resolveGuarded(host, options.guard, options.resolver, lookupSignal);
  let last: Error = codedError(`${host} has no address`, 'ENOTFOUND');
  for (const address of addresses) {
    try {
      return await connectTo(address, port, options.timeoutMs, signal);
    } catch (err) {
      last = err instanceof Error ? err : new Error(String(err));
      if (signal.aborted) break;
    }
  }
  throw last;
}
