import net from 'node:net';
import { refuseLookup } from '../net/egress-guard.ts';

/** Prefixes a message with its two-byte length, as DNS over TCP sends it (RFC 1035 §4.2.2). */
export function frameMessage(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(message.length + 2);
  framed.writeUInt16BE(message.length, 0);
  message.copy(framed, 2);
  return framed;
}

/**
 * Cuts a DNS-over-TCP byte stream into messages. Chunks are kept as they arrive and joined
 * once per message, so a 64 KiB message that comes in many small reads is not copied over and
 * over.
 */
export class TcpMessageReader {
  private chunks: Buffer[] = [];
  private size = 0;

  /** Adds bytes and returns every message now complete (subarrays; valid until the next push). */
  push(data: Buffer): Buffer[] {
    this.chunks.push(data);
    this.size += data.length;
    const messages: Buffer[] = [];
    while (this.size >= 2) {
      const length = this.peekLength();
      if (this.size < length + 2) break;
      const joined = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.size);
      let at = 0;
      while (joined.length - at >= 2) {
        const next = joined.readUInt16BE(at);
        if (joined.length - at - 2 < next) break;
        messages.push(joined.subarray(at + 2, at + 2 + next));
        at += 2 + next;
      }
      const rest = joined.subarray(at);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.size = rest.length;
    }
    return messages;
  }

  /** Bytes received but not yet part of a complete message. */
  get pendingBytes(): number {
    return this.size;
  }

  private peekLength(): number {
    const first = this.chunks[0] as Buffer;
    if (first.length >= 2) return first.readUInt16BE(0);
    const second = this.chunks[1] as Buffer;
    return ((first[0] as number) << 8) | (second[0] as number);
  }
}

/**
 * Opens a TCP connection to an IP address (already checked by the egress guard), with a connect
 * timeout; a host name is refused rather than resolved.
 */
export function connectTcp(
  address: string,
  port: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port, noDelay: true, lookup: refuseLookup });
    const timer = setTimeout(
      () => fail(new Error(`connection to ${address}:${port} timed out after ${timeoutMs} ms`), 'ETIMEDOUT'),
      timeoutMs,
    );
    const onAbort = (): void =>
      fail(signal?.reason instanceof Error ? signal.reason : new Error('aborted'), 'ABORT_ERR');
    function cleanup(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.removeListener('error', onError);
    }
    function fail(err: Error, code: string): void {
      cleanup();
      socket.destroy();
      if ((err as { code?: string }).code === undefined) Object.assign(err, { code });
      reject(err);
    }
    function onError(err: Error): void {
      fail(err, 'ECONNECT');
    }
    if (signal?.aborted === true) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once('connect', () => {
      cleanup();
      resolve(socket);
    });
  });
}
