import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRealisticApp } from '../../test/support/realistic-app/index.ts';
import type { TargetServer } from '../../test/support/target-site.ts';
import { startVulnerableSites } from '../../test/support/vulnerable-site/index.ts';
import type { Scope } from './scope.ts';

/** One request the site received, timed on the shared wall clock (`performance.timeOrigin + performance.now()`). */
export interface SiteRequest {
  method: string;
  path: string;
  /** Epoch milliseconds, sub-millisecond precision. */
  at: number;
}

/**
 * A fixture site served by a child process of its own, so that a scanner (the server process,
 * the bench process, wapiti) reaches it across a process boundary, as a crawler reaches a real
 * site: no scanner shares an event loop with the target, and the child counts what it receives.
 */
export interface SiteProcess {
  /** The child's process id (its CPU time is read from /proc). */
  pid: number;
  port: number;
  origin: string;
  /** The requests received from index `from` on (the log only grows). */
  requestsFrom(from: number): Promise<SiteRequest[]>;
  /** TCP connections accepted so far. */
  connections(): Promise<number>;
  /** The realistic application's counters (logins, password changes, …); empty for the other sites. */
  counters(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

type ParentMessage = { kind: 'log'; id: number; from: number } | { kind: 'stop' };
type ChildMessage =
  | { kind: 'ready'; port: number }
  | { kind: 'log'; id: number; requests: SiteRequest[]; connections: number; counters: Record<string, number> };

/**
 * Which site the child serves: one twin of the vulnerable fixture site
 * (test/support/vulnerable-site), or one twin of the realistic application
 * (test/support/realistic-app: login, expiring sessions, 10–50 ms answers, MariaDB).
 */
export type SiteKind = { fixture: 'vulnerable' | 'safe' } | { realistic: 'vulnerable' | 'safe' };

/** Starts one twin of the realistic application, fresh (accounts as shipped, nothing stored), in a child process. */
export function startRealisticAppProcess(scope: Scope, twin: 'vulnerable' | 'safe'): Promise<SiteProcess> {
  return startChild(scope, { realistic: twin });
}

/** Starts one twin of the vulnerable fixture site, fresh (nothing stored yet), in a child process. */
export function startFixtureProcess(scope: Scope, twin: 'vulnerable' | 'safe'): Promise<SiteProcess> {
  return startChild(scope, { fixture: twin });
}

async function startChild(scope: Scope, kind: SiteKind): Promise<SiteProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [JSON.stringify(kind)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  scope.defer(`stop site process (pid ${child.pid})`, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  type Reply = { requests: SiteRequest[]; connections: number; counters: Record<string, number> };
  const pending = new Map<number, (reply: Reply) => void>();
  let nextId = 0;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the site process exited with ${code} before it was ready`)));
    child.on('message', (message: ChildMessage) => {
      if (message.kind === 'ready') resolve(message.port);
      else pending.get(message.id)?.(message);
    });
  });
  const ask = (from: number): Promise<Reply> =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, (reply) => {
        pending.delete(id);
        resolve(reply);
      });
      child.send({ kind: 'log', id, from } satisfies ParentMessage);
    });
  return {
    pid: child.pid ?? -1,
    port,
    origin: `http://127.0.0.1:${port}`,
    requestsFrom: async (from) => (await ask(from)).requests,
    connections: async () => (await ask(Number.MAX_SAFE_INTEGER)).connections,
    counters: async () => (await ask(Number.MAX_SAFE_INTEGER)).counters,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ kind: 'stop' } satisfies ParentMessage);
      await exited;
    },
  };
}

async function serveKind(kind: SiteKind): Promise<TargetServer & { state?: { counters: object } }> {
  if ('realistic' in kind) return startRealisticApp(kind.realistic);
  const sites = await startVulnerableSites();
  const [kept, other] = kind.fixture === 'vulnerable' ? [sites.vulnerable, sites.safe] : [sites.safe, sites.vulnerable];
  await other.stop();
  return kept;
}

async function childMain(kind: SiteKind): Promise<void> {
  const site = await serveKind(kind);
  const clock = (at: number): number => performance.timeOrigin + at;
  process.on('message', (message: ParentMessage) => {
    if (message.kind === 'stop') {
      void site.stop().then(() => process.exit(0));
      return;
    }
    const requests = site.requests
      .slice(message.from)
      .map((r) => ({ method: r.method, path: r.path, at: clock(r.at) }));
    const counters = { ...(site.state?.counters ?? {}) } as Record<string, number>;
    process.send?.({
      kind: 'log',
      id: message.id,
      requests,
      connections: site.connections,
      counters,
    } satisfies ChildMessage);
  });
  process.send?.({ kind: 'ready', port: site.port } satisfies ChildMessage);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await childMain(JSON.parse(process.argv[2]!) as SiteKind);
