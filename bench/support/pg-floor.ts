import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './server.ts';
import type { Scope } from './scope.ts';

/** One page the floor serves: a statement whose rows carry a `document` column. */
export interface FloorPage {
  /** Statement name: pages of one text share it (prepared once per connection). */
  name: string;
  text: string;
  values: unknown[];
}

export interface PgFloorOptions {
  databaseUrl: string;
  pages: FloorPage[];
  /** Rows per page; the statements may read one more (to tell whether more follow), as ours do. */
  limit: number;
  /** Worker processes: one per core lets the floor use both. */
  processes?: number;
  /** Connections per process. */
  poolSize?: number;
}

export interface PgFloor {
  url: string;
  /** Paths of the pages, in order: `/0`, `/1`, … */
  paths: string[];
  close(): Promise<void>;
}

/**
 * The floor of a PostgreSQL list page in Node (pg-floor-server.mjs): plain node:http processes
 * with a pg pool, running the given statements and joining the stored documents. Whatever our
 * server does beyond that (auth, cursors, validation, counts, changing fields, caching) is what
 * separates it from this floor; what neither does faster is the machine's. Closed with the scope.
 */
export async function startPgFloor(scope: Scope, options: PgFloorOptions): Promise<PgFloor> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pg-floor-'));
  const specPath = join(dir, 'spec.json');
  writeFileSync(specPath, JSON.stringify({ port, databaseUrl: options.databaseUrl, pages: options.pages, limit: options.limit, processes: options.processes ?? 2, poolSize: options.poolSize ?? 4 }));
  const child = fork(fileURLToPath(new URL('./pg-floor-server.mjs', import.meta.url)), [], { env: { ...process.env, PG_FLOOR_SPEC: specPath }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the PostgreSQL floor server exited (${code}) before it was ready`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  scope.defer('close the PostgreSQL floor server', close);
  return { url: `http://127.0.0.1:${port}`, paths: options.pages.map((_, i) => `/${i}`), close };
}
