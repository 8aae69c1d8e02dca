import { parentPort } from 'node:worker_threads';
import { connectScan, type ConnectScanOptions, type ConnectScanResult, type ScanHost } from './connect-scan.ts';

/** One worker's share of a scan: every address, some of the ports, a share of the limits. */
export interface ConnectScanShare {
  hosts: ScanHost[];
  ports: number[];
  options: ConnectScanOptions;
}

/** Messages to a scan worker: start a share, or abort one. */
export type ConnectScanRequest = { kind: 'scan'; id: number; share: ConnectScanShare } | { kind: 'abort'; id: number };

/** Messages from a scan worker about the share `id`. */
export type ConnectScanMessage =
  | { id: number; kind: 'progress'; probed: number; open: number }
  | { id: number; kind: 'done'; result: ConnectScanResult }
  | { id: number; kind: 'aborted' }
  | { id: number; kind: 'failed'; message: string };

/**
 * The worker side: runs connectScan() for each share it is sent (several at once when scans
 * overlap), reports progress and results, and on `abort` closes every socket of that share (the
 * scan's abort closes them synchronously) before it answers `aborted`.
 */
export function serveConnectScan(): void {
  const port = parentPort;
  if (port === null) throw new Error('serveConnectScan runs in a worker thread');
  const running = new Map<number, AbortController>();
  const post = (message: ConnectScanMessage): void => port.postMessage(message);
  port.on('message', (request: ConnectScanRequest) => {
    if (request.kind === 'abort') {
      running.get(request.id)?.abort();
      return;
    }
    const { id, share } = request;
    const controller = new AbortController();
    running.set(id, controller);
    connectScan(share.hosts, share.ports, share.options, controller.signal, (probed, open) =>
      post({ id, kind: 'progress', probed, open }),
    )
      .then(
        (result) => post({ id, kind: 'done', result }),
        (err: unknown) =>
          post(
            controller.signal.aborted
              ? { id, kind: 'aborted' }
              : { id, kind: 'failed', message: err instanceof Error ? err.message : String(err) },
          ),
      )
      .finally(() => running.delete(id));
  });
}
