import net from 'node:net';
import tls from 'node:tls';
import type { ServiceGuess } from '../../core/surface/exposure-engines.ts';
import {
  classifyGreeting,
  classifyHttp,
  classifyPostgresReply,
  classifyRedisReply,
  printableBanner,
} from './service-classify.ts';

/** Time limits of identifying the service behind one open port. */
export interface IdentifyOptions {
  /** How long to wait for a greeting the service sends unasked (ssh, ftp, smtp …). */
  bannerWaitMs: number;
  /** The same wait on ports where the client speaks first (HTTP alternates): short. */
  clientFirstWaitMs: number;
  /** Time limit of each probe connection (connect, handshake, answer). */
  probeTimeoutMs: number;
  /** Time limit of the whole identification of one port. */
  budgetMs: number;
}

/** Defaults: a greeting within 1.5 s (nmap's NULL probe waits 6 s), 2 s per probe, 8 s per port. */
export const defaultIdentifyOptions: IdentifyOptions = {
  bannerWaitMs: 1500,
  clientFirstWaitMs: 300,
  probeTimeoutMs: 2000,
  budgetMs: 8000,
};

/** Ports where clients speak first (HTTP, HTTPS and their alternates): the greeting wait is short there. */
const CLIENT_FIRST_PORTS = new Set([
  80, 81, 443, 591, 3000, 3001, 4000, 4200, 4443, 5000, 5001, 5173, 7001, 7002, 7070, 7080, 7443, 8000, 8001, 8008,
  8010, 8080, 8081, 8082, 8083, 8085, 8088, 8090, 8180, 8181, 8280, 8443, 8800, 8843, 8880, 8888, 9000, 9001, 9080,
  9090, 9091, 9443, 9800, 9999, 10443,
]);
const REDIS_PORTS = new Set([6379, 6380, 16379]);
const POSTGRES_PORTS = new Set([5432, 5433, 6432]);

const MAX_BYTES = 4096;
/** After the first bytes, how long more bytes may take to be part of the same answer. */
const IDLE_AFTER_DATA_MS = 60;
const REDIS_PING = Buffer.from('*1\r\n$4\r\nPING\r\n');
/** PostgreSQL SSLRequest: length 8, code 80877103. */
const POSTGRES_SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/** What one probe connection got. */
interface Exchange {
  isConnected: boolean;
  /** TLS only: the handshake completed. */
  isTls: boolean;
  alpn: string | false;
  data: Buffer;
}

/** The outcome of identifying a port: the guess, and whether the time limit cut it short. */
export interface Identification {
  service: ServiceGuess;
  isOverBudget: boolean;
}

/**
 * Connects once (plain or TLS), writes `payload` once connected (nothing: wait for a greeting),
 * and gathers what comes back: until 4 KiB, a short silence after the first bytes, the close,
 * the time limit or the abort. Never rejects.
 */
function exchange(
  address: string,
  family: 4 | 6,
  port: number,
  payload: Buffer | undefined,
  isTls: boolean,
  waitMs: number,
  signal: AbortSignal,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let isConnected = false;
    let isHandshaken = false;
    let alpn: string | false = false;
    let idle: NodeJS.Timeout | undefined;
    const socket = isTls
      ? tls.connect({ host: address, port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1', 'h2'] })
      : net.connect({ host: address, port, family, autoSelectFamily: false });
    const done = (): void => {
      clearTimeout(limit);
      clearTimeout(idle);
      signal.removeEventListener('abort', done);
      socket.destroy();
      resolve({ isConnected, isTls: isHandshaken, alpn, data: Buffer.concat(chunks, size) });
    };
    const limit = setTimeout(done, waitMs);
    signal.addEventListener('abort', done, { once: true });
    if (signal.aborted) return done();
    socket.once('connect', () => {
      isConnected = true;
      if (!isTls && payload !== undefined) socket.write(payload);
    });
    socket.once('secureConnect', () => {
      isHandshaken = true;
      alpn = (socket as tls.TLSSocket).alpnProtocol ?? false;
      // An h2 server would not answer an HTTP/1 request; the ALPN choice already says HTTP.
      if (alpn === 'h2') return done();
      if (payload !== undefined) socket.write(payload);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_BYTES) return done();
      clearTimeout(idle);
      idle = setTimeout(done, IDLE_AFTER_DATA_MS);
    });
    socket.once('error', done);
    socket.once('close', done);
  });
}

function httpRequest(address: string, family: 4 | 6, port: number): Buffer {
  const host = family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
  return Buffer.from(
    `GET / HTTP/1.0\r\nHost: ${host}\r\nUser-Agent: perimeter-port-scanner\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
  );
}

function guess(
  name: string,
  isTls: boolean,
  isHttp: boolean,
  data: Buffer | undefined,
  found?: { product?: string | undefined; version?: string | undefined },
): ServiceGuess {
  const service: ServiceGuess = { name, isTls, isHttp };
  if (data !== undefined && data.length > 0) service.banner = printableBanner(data);
  if (found?.product !== undefined) service.product = found.product;
  if (found?.version !== undefined) service.version = found.version;
  return service;
}

/** Reads an answer of any kind: HTTP, a known greeting, or bytes we cannot name. */
function fromAnswer(data: Buffer, port: number, isTls: boolean): ServiceGuess | undefined {
  if (data.length === 0) return undefined;
  const http = classifyHttp(data);
  if (http !== undefined) return guess(isTls ? 'https' : 'http', isTls, true, data, http);
  const known = classifyGreeting(data, port);
  return guess(known?.name ?? (isTls ? 'tls' : 'unknown'), isTls, false, data, known);
}

/**
 * Names the service behind an open port, as a person with a terminal would: wait for a greeting
 * (ssh, ftp, smtp, pop3, imap, mysql, vnc …); else try a TLS handshake (then an HTTP request
 * inside it), a plain HTTP request, a redis PING and a PostgreSQL SSLRequest (these two first on
 * their usual ports); else `unknown`. Each probe is its own connection with its own time limit,
 * the whole within the budget. Rejects with the signal's reason when aborted.
 */
export async function identifyService(
  address: string,
  family: 4 | 6,
  port: number,
  options: IdentifyOptions,
  signal: AbortSignal,
): Promise<Identification> {
  const deadline = performance.now() + options.budgetMs;
  const left = (cap: number): number => Math.min(cap, deadline - performance.now());
  const step = async (payload: Buffer | undefined, isTls: boolean, cap: number): Promise<Exchange | undefined> => {
    const ms = left(cap);
    if (ms <= 0) return undefined;
    const result = await exchange(address, family, port, payload, isTls, ms, signal);
    signal.throwIfAborted();
    return result;
  };
  const unknown = (isOverBudget: boolean): Identification => ({
    service: guess('unknown', false, false, undefined),
    isOverBudget,
  });

  const greeting = await step(
    undefined,
    false,
    CLIENT_FIRST_PORTS.has(port) ? options.clientFirstWaitMs : options.bannerWaitMs,
  );
  if (greeting === undefined) return unknown(true);
  if (!greeting.isConnected) return unknown(false);
  const greeted = fromAnswer(greeting.data, port, false);
  if (greeted !== undefined) return { service: greeted, isOverBudget: false };

  const databaseProbes: Array<{ payload: Buffer; read: (data: Buffer) => ReturnType<typeof classifyRedisReply> }> = [
    { payload: REDIS_PING, read: classifyRedisReply },
    { payload: POSTGRES_SSL_REQUEST, read: classifyPostgresReply },
  ];
  if (POSTGRES_PORTS.has(port)) databaseProbes.reverse();
  const tryDatabases = async (): Promise<ServiceGuess | 'over' | undefined> => {
    for (const probe of databaseProbes) {
      const answer = await step(probe.payload, false, options.probeTimeoutMs);
      if (answer === undefined) return 'over';
      const found = probe.read(answer.data);
      if (found !== undefined) return guess(found.name, false, false, answer.data, found);
    }
    return undefined;
  };
  if (REDIS_PORTS.has(port) || POSTGRES_PORTS.has(port)) {
    const found = await tryDatabases();
    if (found === 'over') return unknown(true);
    if (found !== undefined) return { service: found, isOverBudget: false };
  }

  const request = httpRequest(address, family, port);
  const secured = await step(request, true, options.probeTimeoutMs);
  if (secured === undefined) return unknown(true);
  if (secured.isTls) {
    if (secured.alpn === 'h2') return { service: guess('https', true, true, undefined), isOverBudget: false };
    return {
      service: fromAnswer(secured.data, port, true) ?? guess('tls', true, false, undefined),
      isOverBudget: false,
    };
  }

  const plain = await step(request, false, options.probeTimeoutMs);
  if (plain === undefined) return unknown(true);
  const answered = fromAnswer(plain.data, port, false);
  if (answered !== undefined) return { service: answered, isOverBudget: false };

  if (!REDIS_PORTS.has(port) && !POSTGRES_PORTS.has(port)) {
    const found = await tryDatabases();
    if (found === 'over') return unknown(true);
    if (found !== undefined) return { service: found, isOverBudget: false };
  }
  return unknown(false);
}
