import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { CanaryConfig } from '../../../config/canary.ts';

/**
 * Terminology. The **canary** is a small HTTP listener of the scanner itself. A check hands a
 * target a **probe**: the canary's URL with a unique **token** in its path. A **hit** is a
 * request that reaches the canary carrying a token: proof that the target (not the scanner)
 * made a request where it was told to, which is how server-side request forgery and blind XML
 * external entities are confirmed.
 */

/** Time a target has, after its answer, to reach the canary (a fetch queued in the background). */
export const canaryGraceMs = 3000;

/** One request that reached the canary with a token of a probe. */
export interface CanaryHit {
  token: string;
  method: string;
  /** The request target as sent (path and query). */
  path: string;
  /** `address:port` of the connection. */
  source: string;
  userAgent: string | undefined;
  at: Date;
}

/** A unique URL of the canary handed to one target request. */
export interface CanaryProbe {
  readonly token: string;
  readonly url: string;
  /** The first hit so far. */
  hit(): CanaryHit | undefined;
  /** The first hit, waiting up to `ms` for it; undefined when none came in time or on abort. */
  waitForHit(ms: number, signal: AbortSignal): Promise<CanaryHit | undefined>;
}

/** One scan's use of the canary: its probes are its own, and closing it forgets them. */
export interface ScanCanary {
  readonly baseUrl: string;
  newProbe(): CanaryProbe;
  /** Forgets this scan's tokens; the listener closes when no scan uses it any more. */
  close(): Promise<void>;
}

/** Tokens are long and random: another scan, or a guess, never lands on a probe of this one. */
const TOKEN = /prmtr[0-9a-f]{24}/;
/** Hits kept per token: enough for evidence, bounded against a target hammering the URL. */
const maxHitsPerToken = 10;

/** The body the canary answers for a token: a target that shows what it fetched shows this (in-band proof). */
export function canaryAnswer(token: string): string {
  return `perimeter canary ${token}`;
}

/** True for a loopback host name or address (`localhost`, 127.0.0.0/8, ::1, their IPv4-mapped forms). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

interface TokenState {
  hits: CanaryHit[];
  waiters: Set<() => void>;
}

/**
 * The canary of one engine, shared by its scans: it listens while at least one scan holds it
 * open and closes with the last one (a fixed port could not be bound once per concurrent scan).
 * Requests without a known token get a 404 and are not recorded.
 */
export class CanaryListener {
  private server: http.Server | undefined;
  private listening: Promise<string> | undefined;
  private closing: Promise<void> = Promise.resolve();
  private holders = 0;
  private readonly tokens = new Map<string, TokenState>();

  constructor(private readonly config: CanaryConfig) {}

  /**
   * Whether a target at these addresses can reach the canary: a canary on loopback (the default)
   * only serves targets on loopback; its URL must not be handed to a target elsewhere, which
   * would request its own 127.0.0.1 instead.
   */
  canReach(targetAddresses: string[]): boolean {
    const host = this.config.url === undefined ? this.config.listen?.host : new URL(this.config.url).hostname;
    return host === undefined || !isLoopbackHost(host) || targetAddresses.every(isLoopbackHost);
  }

  /** Opens the canary for one scan; rejects when it is disabled or cannot bind. */
  async open(): Promise<ScanCanary> {
    if (this.config.listen === undefined) throw new Error('the canary is disabled (PERIMETER_SCAN_CANARY_LISTEN=off)');
    this.holders += 1;
    let baseUrl: string;
    try {
      this.listening ??= this.listen(this.config.listen);
      baseUrl = await this.listening;
    } catch (err) {
      await this.release();
      throw err;
    }
    const own = new Set<string>();
    let isClosed = false;
    return {
      baseUrl,
      newProbe: () => {
        const token = `prmtr${randomBytes(12).toString('hex')}`;
        own.add(token);
        return this.probe(token, `${baseUrl.replace(/\/+$/, '')}/${token}`);
      },
      close: async () => {
        if (isClosed) return;
        isClosed = true;
        for (const token of own) this.forget(token);
        await this.release();
      },
    };
  }

  private probe(token: string, url: string): CanaryProbe {
    const state: TokenState = { hits: [], waiters: new Set() };
    this.tokens.set(token, state);
    return {
      token,
      url,
      hit: () => state.hits[0],
      waitForHit: (ms, signal) => {
        if (state.hits.length > 0 || ms <= 0 || signal.aborted) return Promise.resolve(state.hits[0]);
        return new Promise((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            state.waiters.delete(done);
            resolve(state.hits[0]);
          };
          const timer = setTimeout(done, ms);
          signal.addEventListener('abort', done, { once: true });
          state.waiters.add(done);
        });
      },
    };
  }

  private forget(token: string): void {
    const state = this.tokens.get(token);
    this.tokens.delete(token);
    for (const wake of state?.waiters ?? []) wake();
  }

  private async listen(where: { host: string; port: number }): Promise<string> {
    // A close still running (the last scan just ended) must free a fixed port first.
    await this.closing;
    const server = http.createServer((req, res) => this.answer(req, res));
    server.headersTimeout = 5000;
    server.requestTimeout = 5000;
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(where.port, where.host.replace(/^\[|\]$/g, ''), () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', () => undefined);
    this.server = server;
    if (this.config.url !== undefined) return this.config.url;
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = req.url ?? '/';
    const token = TOKEN.exec(path)?.[0];
    const state = token === undefined ? undefined : this.tokens.get(token);
    // The body is never read: drain it so the connection stays usable.
    req.resume();
    if (token === undefined || state === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (state.hits.length < maxHitsPerToken) {
      const ua = req.headers['user-agent'];
      state.hits.push({
        token,
        method: req.method ?? '?',
        path,
        source: `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`,
        userAgent: ua,
        at: new Date(),
      });
    }
    for (const wake of state.waiters) wake();
    res
      .writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' })
      .end(req.method === 'HEAD' ? undefined : `${canaryAnswer(token)}\n`);
  }

  private async release(): Promise<void> {
    this.holders -= 1;
    if (this.holders > 0 || this.listening === undefined) return;
    const server = this.server;
    this.listening = undefined;
    this.server = undefined;
    if (server === undefined) return;
    this.closing = new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await this.closing;
  }

  /** True while the listener is bound (tests check that scans close it). */
  get isListening(): boolean {
    return this.server?.listening === true;
  }
}
