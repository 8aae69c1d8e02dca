import type { Kysely } from 'kysely';
import { CompiledQuery, sql } from '../kysely.ts';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Database } from '../database.ts';
import type { Schema } from '../schema.ts';
import {
  defaultLeaseMs,
  type ClaimedJob,
  type InsertOptions,
  type JobRetryPolicy,
  type QueueBackend,
} from './queue-backend.ts';

/** The schema pg-boss keeps its tables in: beside the store's schema, `<schema>_boss`, else `pgboss`. */
export function bossSchemaOf(database: Database): string {
  return database.schema === undefined ? 'pgboss' : `${database.schema}_boss`;
}

/**
 * pg-boss's database port over the store's own pool. pg-boss sends some commands as one
 * multi-statement text (BEGIN … COMMIT); when one fails, the connection is rolled back before
 * it returns to the pool, so a later query never lands in an aborted transaction. Inside a
 * transaction (a singleton enqueue) commands run on the transaction's connection.
 */
function executorOf(db: Kysely<Schema>): PgBoss.Db {
  if (db.isTransaction) return { executeSql: (text, values) => db.executeQuery(CompiledQuery.raw(text, values ?? [])) };
  return {
    executeSql: (text, values) =>
      db.connection().execute(async (conn) => {
        try {
          return await conn.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values ?? []));
        } catch (err) {
          if (/\bBEGIN\b/.test(text)) await conn.executeQuery(CompiledQuery.raw('ROLLBACK')).catch(() => undefined);
          throw err;
        }
      }),
  };
}

interface FetchedJob {
  id: string;
  name: string;
  data: unknown;
  retryCount: number;
}

/**
 * The PostgreSQL adapter's storage: pg-boss installs the schema, inserts jobs, fetches them with
 * FOR UPDATE SKIP LOCKED (so two workers never take one job) and expires stale claims in its
 * maintenance. The claim's token is the row's retry_count, which pg-boss raises on every fetch
 * after the first: every write here is guarded by it, so a worker that lost its lease cannot
 * touch a later claim. Its heartbeat moves started_on, which is what pg-boss's expiry reads.
 */
export class PgBossJobStore implements QueueBackend {
  readonly leaseMs: number;
  private readonly boss: PgBoss;
  private readonly schema: string;
  private started: Promise<unknown> | undefined;
  private queues = new Map<string, Promise<void>>();
  private handlers: ReadonlyMap<string, JobRetryPolicy> = new Map();
  private nextKind = 0;

  constructor(
    private readonly database: Database,
    log: Logger,
    options: { leaseMs?: number } = {},
  ) {
    this.leaseMs = Math.max(1000, options.leaseMs ?? defaultLeaseMs);
    this.schema = bossSchemaOf(database);
    const leaseSeconds = Math.ceil(this.leaseMs / 1000);
    this.boss = new PgBoss({
      db: executorOf(database.db),
      schema: this.schema,
      schedule: false,
      supervise: true,
      migrate: true,
      maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.floor(leaseSeconds / 2))),
      expireInSeconds: leaseSeconds,
    });
    this.boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  }

  private ready(): Promise<unknown> {
    if (this.started === undefined) {
      this.started = this.boss.start();
      this.started.catch(() => (this.started = undefined));
    }
    return this.started;
  }

  private async queue(kind: string): Promise<void> {
    await this.ready();
    let created = this.queues.get(kind);
    if (created === undefined) {
      created = this.createQueue(kind);
      this.queues.set(kind, created);
      created.catch(() => this.queues.delete(kind));
    }
    await created;
  }

  /**
   * pg-boss creates a queue with DDL in the transaction that inserts its row, so two processes
   * creating one new queue at once can deadlock (40P01): the loser retries and finds it made.
   */
  private async createQueue(kind: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        if ((await this.boss.getQueue(kind)) !== null) return;
        await this.boss.createQueue(kind);
        return;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if ((code !== '40P01' && code !== '23505') || attempt >= 5) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 150 * attempt));
      }
    }
  }

  async insert(kind: string, payload: unknown, options: InsertOptions): Promise<string> {
    await this.queue(kind);
    // Sent as JSON text: pg would turn a bare array into a PostgreSQL array, not jsonb.
    const data = JSON.stringify(payload ?? null) as unknown as object;
    const sendOptions: PgBoss.SendOptions = { expireInSeconds: Math.ceil(this.leaseMs / 1000) };
    if (options.startAfter !== undefined) sendOptions.startAfter = options.startAfter;
    const key = options.singletonKey;
    if (key === undefined) return this.sent(kind, await this.boss.send(kind, data, sendOptions));
    // At most one queued-or-active job per key: serialise enqueues of the key, answer the holder.
    return this.database.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`perimeter-job:${kind}:${key}`}, 0))`.execute(trx);
      const existing = await sql<{ id: string }>`select id from ${sql.table(`${this.schema}.job`)}
        where name = ${kind} and singleton_key = ${key} and state < 'completed' limit 1`.execute(trx);
      if (existing.rows[0] !== undefined) return existing.rows[0].id;
      return this.sent(
        kind,
        await this.boss.send(kind, data, { ...sendOptions, singletonKey: key, db: executorOf(trx) }),
      );
    });
  }

  private sent(kind: string, id: string | null): string {
    if (id === null) throw new Error(`pg-boss did not accept a ${kind} job`);
    return id;
  }

  async prepare(handlers: ReadonlyMap<string, JobRetryPolicy>): Promise<void> {
    this.handlers = handlers;
    for (const kind of handlers.keys()) await this.queue(kind);
  }

  async claim(kinds: string[]): Promise<ClaimedJob | undefined> {
    await this.ready();
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[(this.nextKind + i) % kinds.length]!;
      const [job] = (await this.boss.fetch(kind, { batchSize: 1, includeMetadata: true })) as unknown as FetchedJob[];
      if (job === undefined) continue;
      this.nextKind = (this.nextKind + i + 1) % kinds.length;
      const claimed: ClaimedJob = {
        id: job.id,
        kind,
        payload: job.data,
        attempt: job.retryCount + 1,
        token: String(job.retryCount),
      };
      // The handler's policy becomes the row's, so pg-boss's expiry retries (or fails) it alike.
      const handler = this.handlers.get(kind)!;
      await this.write(
        claimed,
        sql`retry_limit = ${handler.retryLimit}, retry_delay = ${Math.ceil(handler.retryDelayMs / 1000)},
        expire_in = ${this.leaseMs}::int * interval '1 millisecond', started_on = now()`,
      );
      return claimed;
    }
    return undefined;
  }

  private async write(job: ClaimedJob, set: ReturnType<typeof sql>): Promise<boolean> {
    const result = await sql`update ${sql.table(`${this.schema}.job`)} set ${set}
      where name = ${job.kind} and id = ${job.id} and state = 'active' and retry_count = ${Number(job.token)}`.execute(
      this.database.db,
    );
    return (result.numAffectedRows ?? 0n) > 0n;
  }

  extend(job: ClaimedJob): Promise<boolean> {
    return this.write(job, sql`started_on = now()`);
  }

  complete(job: ClaimedJob): Promise<boolean> {
    return this.write(job, sql`state = 'completed', completed_on = now()`);
  }

  fail(job: ClaimedJob, error: string, retryAt: Date | undefined): Promise<boolean> {
    const output = JSON.stringify({ message: error.slice(0, 2000) });
    if (retryAt === undefined)
      return this.write(job, sql`state = 'failed', completed_on = now(), output = ${output}::jsonb`);
    return this.write(job, sql`state = 'retry', start_after = ${retryAt}, output = ${output}::jsonb`);
  }

  release(job: ClaimedJob, runAt?: Date): Promise<boolean> {
    // pg-boss counts a fetch as a retry when started_on is set: undo this claim's count. pg-boss
    // hands out the oldest created job first: a job put back goes behind those already waiting
    // (created now), as on the embedded store, so a deferral lets a waiting job of its kind run.
    return this.write(
      job,
      sql`state = 'retry', start_after = ${runAt ?? new Date()}, created_on = now(),
        started_on = case when retry_count = 0 then null else started_on end, retry_count = greatest(retry_count - 1, 0)`,
    );
  }

  async isPending(id: string): Promise<boolean> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return false;
    await this.ready();
    const { rows } = await sql<{
      state: string;
    }>`select state::text as state from ${sql.table(`${this.schema}.job`)} where id = ${id}`.execute(this.database.db);
    const state = rows[0]?.state;
    return state === 'created' || state === 'retry' || state === 'active';
  }

  async sweep(): Promise<void> {}

  async close(): Promise<void> {
    if (this.started === undefined) return;
    await this.started.catch(() => undefined);
    await this.boss.stop({ graceful: false, close: false });
  }
}
