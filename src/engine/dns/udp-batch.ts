import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The native batch-UDP socket (`native/udp-batch`, built by `npm install` with node-gyp):
 * connected UDP sockets that send with sendmmsg and receive with recvmmsg, calling JavaScript
 * once per batch of datagrams instead of once per datagram. Linux only. When the module was not
 * built (no compiler, another platform), or the bulk resolver is told `udpSockets: 'dgram'`
 * (configuration `dnsUdpSockets`), it uses Node's dgram sockets instead: same behaviour, more
 * CPU per datagram.
 */

/** An open socket of the module (opaque). */
export type UdpBatchHandle = { readonly __udpBatch: unique symbol };

export interface UdpBatchBinding {
  /** A non-blocking UDP socket of the family, with the receive buffer asked for. */
  open(family: 4 | 6, receiveBufferSize: number): UdpBatchHandle;
  /** Connects to a numeric address (already checked by the egress guard). */
  connect(handle: UdpBatchHandle, address: string, port: number): void;
  /** Sends the first `count` datagrams laid end to end in `buffer` (datagram i ends at ends[i]); answers how many left. */
  send(handle: UdpBatchHandle, buffer: Buffer, ends: Uint32Array, count: number): number;
  /** Starts reading: each batch lands in slots of `slotSize` bytes of `buffer`, lengths in `lengths` (-1: did not fit). */
  receive(
    handle: UdpBatchHandle,
    buffer: Buffer,
    slotSize: number,
    lengths: Int32Array,
    onBatch: (count: number) => void,
  ): void;
  /** Stops reading and closes the socket. */
  close(handle: UdpBatchHandle): void;
}

/** Where node-gyp leaves the module, from the repository root. */
export const UDP_BATCH_MODULE = fileURLToPath(
  new URL('../../../native/udp-batch/build/Release/udp_batch.node', import.meta.url),
);

let loaded: { binding: UdpBatchBinding | undefined; reason: string } | undefined;

/** The module, or undefined with the reason it is not used. Loaded once. */
export function udpBatch(): { binding: UdpBatchBinding | undefined; reason: string } {
  loaded ??= load();
  return loaded;
}

function load(): { binding: UdpBatchBinding | undefined; reason: string } {
  if (process.platform !== 'linux')
    return { binding: undefined, reason: `not on ${process.platform} (sendmmsg/recvmmsg are Linux's)` };
  if (!existsSync(UDP_BATCH_MODULE))
    return { binding: undefined, reason: 'native/udp-batch was not built (npm install builds it with node-gyp)' };
  try {
    return { binding: createRequire(import.meta.url)(UDP_BATCH_MODULE) as UdpBatchBinding, reason: 'native' };
  } catch (err) {
    return { binding: undefined, reason: `native/udp-batch did not load: ${(err as Error).message}` };
  }
}
