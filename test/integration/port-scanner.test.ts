import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawnOwned } from '../support/child-processes.ts';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import type { PortScanReport } from '../../src/core/surface/exposure-engines.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { createPortScanner, type PortScannerDeps } from '../../src/engine/ports/port-scanner.ts';
import { selfSignedCertificate } from '../support/http-server.ts';

/**
 * The port scanner against real listeners on 127.0.0.1: open and closed ports, services with and
 * without a greeting, TLS, HTTP, HTTP over TLS, a silent service, a port that never answers (a
 * listener whose accept queue is full drops SYNs), the abort, and the egress guard.
 */

const loopback = new EgressGuard(['127.0.0.0/8', '::1/128']);
const quick: Partial<PortScannerDeps> = {
  identify: { bannerWaitMs: 300, clientFirstWaitMs: 100, probeTimeoutMs: 600, budgetMs: 4000 },
};
const servers: net.Server[] = [];
/** Connections each listener accepted, by port. */
const accepted = new Map<number, number>();

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  accepted.set(port, 0);
  server.on('connection', (socket: net.Socket) => {
    accepted.set(port, (accepted.get(port) ?? 0) + 1);
    // The scan resets the connections it is done with.
    socket.on('error', () => undefined);
  });
  servers.push(server);
  return port;
}

/** A port nothing listens on: one the kernel gave a listener that is closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Socket descriptors of this process, worker threads included. */
function openSockets(): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:')) count += 1;
    } catch {
      // closed while listed
    }
  }
  return count;
}

/** Connects waiting for an answer (SYN_SENT) to this port on 127.0.0.1, machine-wide. */
function pendingConnects(port: number): number {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .filter((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[2] === remote && fields[3] === '02';
    }).length;
}

/** Lets the test's own servers finish closing the connections they accepted. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

/**
 * A listener in a child process whose event loop is blocked after `listen` (backlog 1): two
 * connections fill its accept queue, then the kernel drops every SYN, as a firewall would.
 */
async function startBlackhole(): Promise<{ port: number; child: ChildProcess; fillers: net.Socket[] }> {
  const code = `const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>{process.stdout.write(String(s.address().port)+'\\n',()=>{Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,60000)})})`;
  const child = spawnOwned(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (data: Buffer) => resolve(Number(data.toString().trim())));
    child.once('error', reject);
  });
  const fillers: net.Socket[] = [];
  for (let i = 0; i < 2; i += 1) {
    const filler = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => filler.once('connect', resolve));
    fillers.push(filler);
  }
  return { port, child, fillers };
}

/** Ports in LISTEN on 127.0.0.1 or a wildcard address, machine-wide. */
function listeningPorts(): Set<number> {
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [address, port] = (fields[1] ?? '').split(':');
      if (fields[3] === '0A' && port !== undefined && /^(0100007F|0+|0{16}FFFF00000100007F)$/.test(address ?? ''))
        ports.add(parseInt(port, 16));
    }
  }
  return ports;
}

/**
 * The loopback ports that listen at any moment while a scan runs: sampled every 5 ms until
 * stopped. A server of another test file running alongside may listen on a port of the scanned
 * range for a moment only, between a sample taken before the scan and one taken after.
 */
function watchListening(): { stop: () => Set<number> } {
  const seen = listeningPorts();
  const timer = setInterval(() => {
    for (const port of listeningPorts()) seen.add(port);
  }, 5);
  return {
    stop: () => {
      clearInterval(timer);
      for (const port of listeningPorts()) seen.add(port);
      return seen;
    },
  };
}

let openPorts: number[] = [];
let closedPorts: number[] = [];
const named: Record<string, number> = {};
let blackhole: Awaited<ReturnType<typeof startBlackhole>>;

before(async () => {
  for (let i = 0; i < 20; i += 1) openPorts.push(await listen(net.createServer((socket) => socket.destroy())));
  for (let i = 0; i < 20; i += 1) closedPorts.push(await closedPort());
  // The kernel may hand out the same free port twice.
  closedPorts = [...new Set(closedPorts)].filter((p) => !openPorts.includes(p));
  openPorts = openPorts.sort((a, b) => a - b);
  const { key, cert } = selfSignedCertificate();
  named['ssh'] = await listen(net.createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n')));
  named['http'] = await listen(
    http.createServer((_req, res) => {
      res.writeHead(200, { Server: 'nginx/1.25.3', 'Content-Type': 'text/plain' });
      res.end('hello');
    }),
  );
  named['https'] = await listen(
    https.createServer({ key, cert }, (_req, res) => {
      res.writeHead(200, { Server: 'Apache/2.4.57 (Debian)' });
      res.end('secure hello');
    }),
  );
  // TLS with a protocol inside that says nothing and answers nothing.
  named['tls'] = await listen(tls.createServer({ key, cert }, () => undefined));
  named['silent'] = await listen(net.createServer(() => undefined));
  named['redis'] = await listen(
    net.createServer((socket) =>
      socket.on('data', (data) => {
        socket.write(/PING/.test(data.toString()) ? '+PONG\r\n' : "-ERR unknown command 'GET'\r\n");
      }),
    ),
  );
  blackhole = await startBlackhole();
});

after(async () => {
  for (const filler of blackhole?.fillers ?? []) filler.destroy();
  blackhole?.child.kill();
  for (const server of servers) {
    server.close();
    (server as net.Server & { closeAllConnections?: () => void }).closeAllConnections?.();
  }
});

const openOf = (report: PortScanReport): number[] => report.open.map((o) => o.port).sort((a, b) => a - b);

describe('port scanner: connect scan', () => {
  for (const dialer of ['handle', 'socket'] as const) {
    it(`finds every open port and no closed one (${dialer} dialer), reporting progress`, async () => {
      const scanner = createPortScanner({ guard: loopback, dialer });
      const progress: Array<{ probed: number; open: number }> = [];
      const ports = [...openPorts, ...closedPorts];
      const watch = watchListening();
      const report = await scanner.scan({
        addresses: ['127.0.0.1'],
        ports,
        identify: false,
        signal: AbortSignal.timeout(10_000),
        onProgress: (p) => progress.push(p),
      });
      // The closed ports were ours until the test closed them: another test process running in
      // parallel may have bound one since. Such a port is really open, and is judged as such.
      const listening = watch.stop();
      const found = openOf(report);
      for (const port of openPorts) assert.ok(found.includes(port), `listener ${port} missed`);
      assert.deepEqual(
        found.filter((port) => !openPorts.includes(port) && !listening.has(port)),
        [],
        'closed ports reported open',
      );
      assert.equal(report.probed, ports.length);
      assert.deepEqual(report.warnings, []);
      assert.ok(report.open.every((o) => o.address === '127.0.0.1' && o.service.name === 'unknown'));
      assert.deepEqual(progress.at(-1), { probed: ports.length, open: found.length });
    });
  }

  it('splits a large scan over worker threads and still finds every listener, and only listeners', async () => {
    const low = Math.min(...openPorts);
    const high = Math.max(...openPorts);
    const ports = Array.from({ length: high - low + 1 }, (_, i) => low + i);
    const watch = watchListening();
    const scanner = createPortScanner({ guard: loopback, threads: 2 });
    let last = { probed: 0, open: 0 };
    const report = await scanner.scan({
      addresses: ['127.0.0.1'],
      ports,
      identify: false,
      signal: AbortSignal.timeout(30_000),
      onProgress: (p) => (last = p),
    });
    const listening = watch.stop();
    const found = openOf(report);
    assert.equal(report.probed, ports.length);
    assert.deepEqual(last, { probed: ports.length, open: found.length });
    for (const port of openPorts) assert.ok(found.includes(port), `listener ${port} missed`);
    assert.deepEqual(
      found.filter((port) => !listening.has(port)),
      [],
      'open ports nothing listens on',
    );
  });

  it('scans every address given, over IPv4 and IPv6 loopback', async () => {
    const v6 = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
    servers.push(v6);
    const port = (v6.address() as AddressInfo).port;
    const scanner = createPortScanner({ guard: loopback });
    const report = await scanner.scan({
      addresses: ['127.0.0.1', '::1'],
      ports: [port, openPorts[0] as number],
      identify: false,
      signal: AbortSignal.timeout(10_000),
    });
    const seen = report.open.map((o) => `${o.address} ${o.port}`).sort();
    assert.ok(seen.includes(`::1 ${port}`), seen.join(', '));
    assert.ok(seen.includes(`127.0.0.1 ${openPorts[0]}`), seen.join(', '));
    assert.equal(report.probed, 4);
  });

  it('makes no connection to an address the egress guard refuses', async () => {
    const before = [...accepted.values()].reduce((a, b) => a + b, 0);
    const scanner = createPortScanner({ guard: new EgressGuard([]) });
    const report = await scanner.scan({
      addresses: ['127.0.0.1'],
      ports: openPorts,
      identify: true,
      signal: AbortSignal.timeout(10_000),
    });
    assert.deepEqual(report.open, []);
    assert.equal(report.probed, 0);
    assert.equal(report.warnings.length, 1);
    assert.match(
      report.warnings[0] as string,
      /^127\.0\.0\.1 not scanned: 127\.0\.0\.1 is in loopback range 127\.0\.0\.0\/8/,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(
      [...accepted.values()].reduce((a, b) => a + b, 0),
      before,
    );
  });

  it('times out a port that never answers, tries it again, and calls it filtered', async () => {
    const scanner = createPortScanner({
      guard: loopback,
      maxRetries: 2,
      timeouts: { initialMs: 150, minMs: 150, maxMs: 400 },
    });
    const startedAt = performance.now();
    const report = await scanner.scan({
      addresses: ['127.0.0.1'],
      ports: [blackhole.port, openPorts[0] as number],
      identify: false,
      signal: AbortSignal.timeout(10_000),
    });
    const ms = performance.now() - startedAt;
    assert.deepEqual(openOf(report), [openPorts[0]]);
    assert.equal(report.probed, 2);
    assert.ok(
      report.warnings.includes('1 of 2 probed ports never answered (filtered), after 2 retries'),
      report.warnings.join('; '),
    );
    // Three tries of at least the 150 ms floor each, and well under the 400 ms cap × 3.
    assert.ok(ms >= 3 * 150 - 20 && ms < 3 * 400 + 500, `${ms} ms`);
  });

  for (const threads of [1, 2]) {
    it(`stops within a second of the abort, with every socket closed (${threads} thread${threads > 1 ? 's' : ''})`, async () => {
      await settle();
      const baseline = openSockets();
      const scanner = createPortScanner({
        guard: loopback,
        threads,
        concurrency: 32,
        timeouts: { initialMs: 5000, minMs: 5000, maxMs: 5000 },
      });
      const controller = new AbortController();
      const ports = [
        blackhole.port,
        ...Array.from({ length: 65535 }, (_, i) => i + 1).filter((p) => p !== blackhole.port),
      ];
      let probed = 0;
      const scan = scanner.scan({
        addresses: ['127.0.0.1'],
        ports,
        identify: true,
        signal: controller.signal,
        onProgress: (p) => (probed = p.probed),
      });
      await new Promise((resolve) => setTimeout(resolve, threads > 1 ? 800 : 300));
      assert.equal(pendingConnects(blackhole.port), 1, 'the connect to the port that never answers is waiting');
      const abortedAt = performance.now();
      controller.abort(new Error('stop now'));
      await assert.rejects(scan, /stop now/);
      assert.ok(performance.now() - abortedAt < 1000);
      assert.equal(pendingConnects(blackhole.port), 0);
      assert.ok(probed > 0 && probed < ports.length, `probed ${probed}`);
      await settle();
      assert.equal(openSockets(), baseline);
    });
  }

  it('stops identifying within a second of the abort, with every socket closed', async () => {
    await settle();
    const baseline = openSockets();
    const scanner = createPortScanner({
      guard: loopback,
      identify: { bannerWaitMs: 5000, probeTimeoutMs: 5000, budgetMs: 20_000 },
    });
    const controller = new AbortController();
    const scan = scanner.scan({
      addresses: ['127.0.0.1'],
      ports: [named['silent'] as number, ...openPorts],
      identify: true,
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(openSockets() > baseline, 'identification holds a socket while it waits');
    const abortedAt = performance.now();
    controller.abort(new Error('stop identifying'));
    await assert.rejects(scan, /stop identifying/);
    assert.ok(performance.now() - abortedAt < 1000);
    await settle();
    assert.equal(openSockets(), baseline);
  });
});

describe('port scanner: service identification', () => {
  let report: PortScanReport;
  const serviceOf = (port: number) => report.open.find((o) => o.port === port)?.service;

  before(async () => {
    const scanner = createPortScanner({ guard: loopback, ...quick });
    report = await scanner.scan({
      addresses: ['127.0.0.1'],
      ports: Object.values(named),
      identify: true,
      signal: AbortSignal.timeout(30_000),
    });
  });

  it('reads an SSH greeting with product and version', () => {
    assert.deepEqual(serviceOf(named['ssh'] as number), {
      name: 'ssh',
      isTls: false,
      isHttp: false,
      banner: 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\\r\\n',
      product: 'OpenSSH',
      version: '9.2p1',
    });
  });

  it('recognises plain HTTP and the Server header', () => {
    const service = serviceOf(named['http'] as number);
    assert.equal(service?.name, 'http');
    assert.equal(service?.isHttp, true);
    assert.equal(service?.isTls, false);
    assert.equal(service?.product, 'nginx');
    assert.equal(service?.version, '1.25.3');
    assert.match(service?.banner ?? '', /^HTTP\/1\.1 200 OK\\r\\n/);
  });

  it('recognises HTTP over TLS', () => {
    const service = serviceOf(named['https'] as number);
    assert.equal(service?.name, 'https');
    assert.equal(service?.isTls, true);
    assert.equal(service?.isHttp, true);
    assert.equal(service?.product, 'Apache');
    assert.equal(service?.version, '2.4.57');
  });

  it('calls a TLS port with an unknown protocol inside `tls`', () => {
    assert.deepEqual(serviceOf(named['tls'] as number), { name: 'tls', isTls: true, isHttp: false });
  });

  it('recognises redis by its answer', () => {
    assert.equal(serviceOf(named['redis'] as number)?.name, 'redis');
  });

  it('calls an open port that never speaks `unknown`', () => {
    assert.deepEqual(serviceOf(named['silent'] as number), { name: 'unknown', isTls: false, isHttp: false });
    assert.equal(report.open.length, Object.keys(named).length);
    assert.deepEqual(report.warnings, []);
  });
});
