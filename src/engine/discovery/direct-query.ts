import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import { rcodeName, typeNumber } from '../dns/rr-types.ts';
import { decodeMessage, encodeQuery, type DnsMessage } from '../dns/wire.ts';
import type { EgressGuard } from '../net/egress-guard.ts';

/** How one direct query ended. */
export type DirectAnswer =
  | { kind: 'message'; message: DnsMessage; rcode: string }
  | { kind: 'timeout' }
  | { kind: 'denied'; reason: string }
  | { kind: 'error'; reason: string };

/**
 * Asks one name server one question without recursion (RD=0), over UDP, as a delegation check
 * must: the answer of that server alone, authority section included, not a resolver's view.
 * The address passes the egress guard first; the query ends at `timeoutMs` or on abort.
 */
export async function queryNameServer(
  guard: EgressGuard,
  server: { address: string; port: number },
  name: string,
  type: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<DirectAnswer> {
  signal.throwIfAborted();
  const decision = guard.check(server.address);
  if (!decision.isAllowed) return { kind: 'denied', reason: decision.reason ?? `${server.address} is denied` };
  const typeCode = typeNumber(type);
  if (typeCode === undefined) throw new Error(`direct query: unknown type ${type}`);
  const id = randomInt(0, 0x10000);
  const query = encodeQuery(id, name, typeCode, { isRecursionDesired: false, ednsUdpSize: 1232 });
  const socket = dgram.createSocket(isIP(server.address) === 6 ? 'udp6' : 'udp4');
  return new Promise<DirectAnswer>((resolve, reject) => {
    const finish = (answer: DirectAnswer | Error): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.close();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const onAbort = (): void => finish(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (err) => finish({ kind: 'error', reason: err.message }));
    socket.on('message', (buf: Buffer) => {
      let message: DnsMessage;
      try {
        message = decodeMessage(buf);
      } catch (err) {
        finish({ kind: 'error', reason: `malformed answer: ${(err as Error).message}` });
        return;
      }
      // Not ours (a late answer to another id): keep waiting.
      if (message.id !== id || !message.isResponse) return;
      finish({ kind: 'message', message, rcode: rcodeName(message.rcode) });
    });
    socket.connect(server.port, server.address, () => socket.send(query));
  });
}
