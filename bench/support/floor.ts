import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from './server.ts';
import type { Scope } from './scope.ts';

/** One page the floor serves: a statement whose rows carry a `document` column. */
export interface FloorPage {
  /** Statement name: pages of one text share it (prepared once per connection). */
  name: string;
  text: string;
  values: unknown[];
}

/** A list read in keyset order within the bench team (seeded as `bench`), as our store reads it. */
export interface KeysetList {
  table: string;
  /** Columns of the page: the keys, the changing fields and `document`, as our statement selects them. */
  columns: string;
  /** `first_seen_at`: (first_seen_at, id) order from `from` on (the v3 inventory lists); `id`: id order (the v2 vulnerability list). */
  order: 'first_seen_at' | 'id';
  from?: number | undefined;
  pages: number;
}

/**
 * The floor's pages of a list: the statement our store runs for such a page (one range of the
 * order index, one row more than the page of 100), at the positions where our pages start.
 */
export async function keysetPages(databaseUrl: string, list: KeysetList): Promise<FloorPage[]> {
  const { table, columns } = list;
  const byTime = list.order === 'first_seen_at';
  const keys = byTime ? 'r.first_seen_at, r.id' : 'r.id';
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const team = Number((await client.query<{ id: number }>(`select id from teams where name = 'bench'`)).rows[0]!.id);
    const range = byTime ? 'r.team_id = $1 and r.first_seen_at >= $2' : 'r.team_id = $1';
    const rangeValues = byTime ? [team, list.from ?? 0] : [team];
    const starts = await client.query<{ first_seen_at?: string; id: string }>(
      `select * from (select ${keys}, row_number() over (order by ${keys}) as n from ${table} r where ${range} order by ${keys} limit ${list.pages * 100}) s where n % 100 = 0`,
      rangeValues,
    );
    const first: FloorPage = { name: 'first', text: `select ${columns} from ${table} r where ${range} order by ${keys} limit 101`, values: rangeValues };
    const next = starts.rows.slice(0, list.pages - 1).map(
      (s): FloorPage =>
        byTime
          ? { name: 'next', text: `select ${columns} from ${table} r where ${range} and (r.first_seen_at > $2 or r.id > $3) order by ${keys} limit 101`, values: [team, s.first_seen_at, s.id] }
          : { name: 'next', text: `select ${columns} from ${table} r where ${range} and r.id > $2 order by ${keys} limit 101`, values: [team, s.id] },
    );
    return [first, ...next];
  } finally {
    await client.end();
  }
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
