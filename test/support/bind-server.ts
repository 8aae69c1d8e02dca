import { spawnSync, type ChildProcess } from 'node:child_process';
import { spawnOwned } from './child-processes.ts';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeQuery, readHeader } from '../../src/engine/dns/wire.ts';

/** A zone served by the test BIND. */
export interface BindZone {
  /** Zone name without the trailing dot, e.g. `example.test`. */
  name: string;
  /** Master-file text of the zone. */
  text: string;
  /** Who may transfer it (BIND address match list items); default `127.0.0.1`. `[]` refuses everyone. */
  allowTransfer?: string[];
}

/** How the server is started. */
export interface BindOptions {
  /** Fixed port (e.g. 53 for tools that cannot use another); default a free one. */
  port?: number;
  /** Worker threads (`named -n`); default 1, enough for tests and light on a small CI box. */
  threads?: number;
  /** Extra statements inside `options { … }`. */
  extraOptions?: string;
}

/** A running BIND 9 on 127.0.0.1. */
export interface BindServer {
  host: string;
  port: number;
  /** `127.0.0.1:PORT` */
  address: string;
  /** The temporary directory holding the configuration and zone files. */
  dir: string;
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'BIND 9 is required for the DNS tests and benchmarks: install it with `apt-get install bind9 bind9-utils bind9-dnsutils` (.ci/run installs it when missing)';

/** Path of a program found on PATH or in the sbin folders Debian puts BIND in; throws with the install hint. */
export function requireProgram(program: string): string {
  for (const dir of [...(process.env['PATH'] ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin']) {
    if (dir !== '' && existsSync(join(dir, program))) return join(dir, program);
  }
  throw new Error(`${program} not found. ${INSTALL_HINT}`);
}

/** A port free for both UDP and TCP on 127.0.0.1 at the time of the call. */
async function freeDnsPort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => resolve());
    });
    const port = udp.address().port;
    const tcp = net.createServer();
    const isFree = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => (isFree ? tcp.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (isFree) return port;
  }
  throw new Error('no port free for both UDP and TCP on 127.0.0.1');
}

function config(dir: string, port: number, zones: BindZone[], options: BindOptions): string {
  const zoneBlocks = zones.map((zone) => {
    const allow = zone.allowTransfer ?? ['127.0.0.1'];
    return `zone "${zone.name}" { type primary; file "${join(dir, `${zone.name}.zone`)}"; allow-transfer { ${allow.length > 0 ? allow.map((item) => `${item}; `).join('') : 'none; '}}; };`;
  });
  return `options {
  directory "${dir}";
  pid-file "${join(dir, 'named.pid')}";
  session-keyfile "${join(dir, 'session.key')}";
  managed-keys-directory "${dir}";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  notify no;
  dnssec-validation no;
  check-names primary ignore;
  check-integrity no;
  ${options.extraOptions ?? ''}
};
controls { };
${zoneBlocks.join('\n')}
`;
}

/** Waits until the server answers an SOA query for the zone over UDP. */
async function waitForAnswer(port: number, zone: string, child: ChildProcess, output: () => string): Promise<void> {
  const socket = dgram.createSocket('udp4');
  let isAnswered = false;
  socket.on('message', (msg) => {
    if (readHeader(msg).isResponse) isAnswered = true;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  try {
    const deadline = Date.now() + 20_000;
    while (!isAnswered) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`named exited (${child.exitCode ?? child.signalCode}) before answering:\n${output()}`);
      if (Date.now() > deadline) throw new Error(`named did not answer on 127.0.0.1:${port} within 20 s:\n${output()}`);
      socket.send(encodeQuery(1, zone, 6, { isRecursionDesired: false }), port, '127.0.0.1');
      await sleep(50);
    }
  } finally {
    socket.close();
  }
}

/**
 * Starts `named -g` on 127.0.0.1 (UDP and TCP on one port) serving the zones from a fresh
 * temporary directory: no recursion, AXFR allowed to 127.0.0.1 unless a zone says otherwise.
 * Resolves once it answers. Throws, never skips, when BIND is not installed.
 */
export async function startBind(zones: BindZone[], options: BindOptions = {}): Promise<BindServer> {
  const named = requireProgram('named');
  if (zones.length === 0) throw new Error('startBind needs at least one zone');
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = options.port ?? (await freeDnsPort());
    const dir = mkdtempSync(join(tmpdir(), 'perimeter-bind-'));
    for (const zone of zones) writeFileSync(join(dir, `${zone.name}.zone`), zone.text);
    writeFileSync(join(dir, 'named.conf'), config(dir, port, zones, options));
    const child = spawnOwned(named, ['-g', '-c', join(dir, 'named.conf'), '-n', String(options.threads ?? 1)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    const keep = (chunk: Buffer): void => {
      log = (log + chunk.toString('utf8')).slice(-16_384);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const stop = async (): Promise<void> => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    };
    try {
      await waitForAnswer(port, zones[0]?.name ?? '.', child, () => log);
      return { host: '127.0.0.1', port, address: `127.0.0.1:${port}`, dir, stop };
    } catch (err) {
      await stop();
      lastError = err as Error;
      // Another process may have taken the port between the probe and named's bind: try another.
      if (options.port !== undefined || !/address in use/i.test(lastError.message)) throw lastError;
    }
  }
  throw lastError ?? new Error('named did not start');
}

/** Runs a BIND tool (named-compilezone, named-checkzone, dig) and returns its output; throws with it on failure. */
export function runBindTool(
  program: string,
  args: string[],
  input?: string,
): { stdout: string; stderr: string; status: number } {
  const result = spawnSync(requireProgram(program), args, { encoding: 'latin1', input, maxBuffer: 256 * 1024 * 1024 });
  if (result.error !== undefined) throw result.error;
  return { stdout: result.stdout, stderr: result.stderr, status: result.status ?? -1 };
}
