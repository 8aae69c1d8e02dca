import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { defaultSqliteFile, readerCacheKb } from '../../src/storage/database.ts';
import { freePort } from './server.ts';
import type { Scope } from './scope.ts';

/** The store a floor reads: a PostgreSQL database, or the embedded store's file. */
export type FloorStore = { kind: 'postgres'; databaseUrl: string } | { kind: 'sqlite'; path: string };

/** The store a bench server opens with `env` in `dataDir`: PostgreSQL when env names a DATABASE_URL, else the embedded file. */
export function floorStoreOf(dataDir: string, env: Record<string, string>): FloorStore {
  const databaseUrl = env['DATABASE_URL'];
  return databaseUrl === undefined
    ? { kind: 'sqlite', path: join(dataDir, defaultSqliteFile) }
    : { kind: 'postgres', databaseUrl };
}

/** One page the floor serves: a statement whose rows carry a `document` column. */
export interface FloorPage {
  /** Statement name: pages of one text share it (prepared once per connection). */
  name: string;
  /** In the store's dialect: `$n` placeholders on PostgreSQL, `?` on SQLite. */
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
export async function keysetPages(store: FloorStore, list: KeysetList): Promise<FloorPage[]> {
  const { table, columns } = list;
  const byTime = list.order === 'first_seen_at';
  const keys = byTime ? 'r.first_seen_at, r.id' : 'r.id';
  const range = byTime ? 'r.team_id = $1 and r.first_seen_at >= $2' : 'r.team_id = $1';
  const reader = await openReader(store);
  try {
    const team = Number((await reader.query(`select id from teams where name = 'bench'`, []))[0]!['id']);
    const rangeValues = byTime ? [team, list.from ?? 0] : [team];
    const starts = await reader.query(
      `select * from (select ${keys}, row_number() over (order by ${keys}) as n from ${table} r where ${range} order by ${keys} limit ${list.pages * 100}) s where n % 100 = 0`,
      rangeValues,
    );
    const page = (name: string, text: string, values: unknown[]): FloorPage => ({
      name,
      ...reader.statement(text, values),
    });
    const first = page(
      'first',
      `select ${columns} from ${table} r where ${range} order by ${keys} limit 101`,
      rangeValues,
    );
    const next = starts
      .slice(0, list.pages - 1)
      .map((s) =>
        byTime
          ? page(
              'next',
              `select ${columns} from ${table} r where ${range} and (r.first_seen_at > $2 or r.id > $3) order by ${keys} limit 101`,
              [team, s['first_seen_at'], s['id']],
            )
          : page('next', `select ${columns} from ${table} r where ${range} and r.id > $2 order by ${keys} limit 101`, [
              team,
              s['id'],
            ]),
      );
    return [first, ...next];
  } finally {
    await reader.close();
  }
}

/** A short-lived connection for keysetPages, and the store's form of a statement written with `$n` placeholders. */
interface SetupReader {
  query(text: string, values: unknown[]): Promise<Array<Record<string, unknown>>>;
  statement(text: string, values: unknown[]): { text: string; values: unknown[] };
  close(): Promise<void>;
}

async function openReader(store: FloorStore): Promise<SetupReader> {
  if (store.kind === 'postgres') {
    const client = new pg.Client({ connectionString: store.databaseUrl });
    await client.connect();
    return {
      query: async (text, values) => (await client.query<Record<string, unknown>>(text, values)).rows,
      statement: (text, values) => ({ text, values }),
      close: () => client.end(),
    };
  }
  const db = new SQLite(store.path, { readonly: true, fileMustExist: true });
  // SQLite numbers `?` by position: each `$n` becomes a `?` bound to value n, repeated where repeated.
  const statement = (text: string, values: unknown[]) => {
    const order: unknown[] = [];
    return {
      text: text.replace(/\$(\d+)/g, (_, n: string) => (order.push(values[Number(n) - 1]), '?')),
      values: order,
    };
  };
  return {
    query: async (text, values) => {
      const s = statement(text, values);
      return db.prepare(s.text).all(s.values) as Array<Record<string, unknown>>;
    },
    statement,
    close: async () => void db.close(),
  };
}

export interface FloorOptions {
  store: FloorStore;
  pages: FloorPage[];
  /** Rows per page; the statements may read one more (to tell whether more follow), as ours do. */
  limit: number;
  /** Worker processes: one per core lets the floor use both. */
  processes?: number;
  /** PostgreSQL connections per process (SQLite: one). */
  poolSize?: number;
}

export interface Floor {
  url: string;
  /** Paths of the pages, in order: `/0`, `/1`, … */
  paths: string[];
  close(): Promise<void>;
}

/** How a floor is named in reports. */
export function floorName(store: FloorStore): string {
  return store.kind === 'postgres'
    ? 'PostgreSQL floor (node:http + pg, 2 processes)'
    : 'SQLite floor (node:http + better-sqlite3, 2 processes)';
}

/**
 * The floor of a list page in Node (floor-server.mjs): plain node:http processes with their own
 * connections to the store (a pg pool; one read-only SQLite connection set as the store's reader
 * threads set theirs), running the given statements and joining the stored documents. Whatever
 * our server does beyond that (auth, cursors, validation, counts, changing fields, caching) is
 * what separates it from this floor; what neither does faster is the machine's. Closed with the scope.
 */
export async function startFloor(scope: Scope, options: FloorOptions): Promise<Floor> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'floor-'));
  const specPath = join(dir, 'spec.json');
  const store =
    options.store.kind === 'postgres'
      ? { ...options.store, poolSize: options.poolSize ?? 4 }
      : { ...options.store, cacheKb: readerCacheKb };
  writeFileSync(
    specPath,
    JSON.stringify({ port, store, pages: options.pages, limit: options.limit, processes: options.processes ?? 2 }),
  );
  const child = fork(fileURLToPath(new URL('./floor-server.mjs', import.meta.url)), [], {
    env: { ...process.env, FLOOR_SPEC: specPath },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the floor server exited (${code}) before it was ready`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  scope.defer('close the floor server', close);
  return { url: `http://127.0.0.1:${port}`, paths: options.pages.map((_, i) => `/${i}`), close };
}
