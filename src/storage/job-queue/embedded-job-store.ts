import { randomUUID } from 'node:crypto';
import { sql } from '../kysely.ts';
import type { Database } from '../database.ts';
import type { JobsTable } from '../schema.ts';
import {
  defaultLeaseMs,
  type ClaimedJob,
  type InsertOptions,
  type JobRetryPolicy,
  type QueueBackend,
} from './queue-backend.ts';

const retentionMs = 7 * 24 * 3600 * 1000;
const cleanupEveryMs = 3600 * 1000;

/**
 * The embedded adapter's storage: the `jobs` table of the SQLite store. A claim is one atomic
 * UPDATE … RETURNING of the oldest due queued job, so two connections never take the same job;
 * the claim's random token guards every later write on it.
 */
export class EmbeddedJobStore implements QueueBackend {
  readonly leaseMs: number;
  private handlers: ReadonlyMap<string, JobRetryPolicy> = new Map();
  private lastCleanup = 0;

  constructor(
    private readonly database: Database,
    options: { leaseMs?: number } = {},
  ) {
    this.leaseMs = options.leaseMs ?? defaultLeaseMs;
  }

  private get db() {
    return this.database.db;
  }

  async insert(kind: string, payload: unknown, options: InsertOptions): Promise<string> {
    const now = Date.now();
    const row = {
      kind,
      payload: JSON.stringify(payload ?? null),
      state: 'queued' as const,
      singleton_key: options.singletonKey ?? null,
      attempt: 0,
      run_at: options.startAfter?.getTime() ?? now,
      created_at: now,
      updated_at: now,
    };
    // A singleton whose holder finishes between the insert and the look-up: try again.
    for (let tries = 0; tries < 5; tries++) {
      const inserted = await this.db
        .insertInto('jobs')
        .values(row)
        .onConflict((oc) => oc.doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted !== undefined) return String(inserted.id);
      const existing = await this.db
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', kind)
        .where('singleton_key', '=', row.singleton_key)
        .where('state', 'in', ['queued', 'active'])
        .executeTakeFirst();
      if (existing !== undefined) return String(existing.id);
    }
    throw new Error(`could not enqueue ${kind}: singleton key ${row.singleton_key} keeps changing hands`);
  }

  async prepare(handlers: ReadonlyMap<string, JobRetryPolicy>): Promise<void> {
    this.handlers = handlers;
  }

  async claim(kinds: string[]): Promise<ClaimedJob | undefined> {
    const now = Date.now();
    const token = randomUUID();
    const row = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'active',
        attempt: eb('attempt', '+', 1),
        lease_token: token,
        lease_until: now + this.leaseMs,
        updated_at: now,
      }))
      .where('id', '=', (eb) =>
        eb
          .selectFrom('jobs')
          .select('id')
          .where('state', '=', 'queued')
          .where('run_at', '<=', now)
          .where('kind', 'in', kinds)
          .orderBy('run_at')
          .orderBy('id')
          .limit(1),
      )
      .where('state', '=', 'queued')
      .returning(['id', 'kind', 'payload', 'attempt'])
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      id: String(row.id),
      kind: row.kind,
      payload: JSON.parse(row.payload) as unknown,
      attempt: row.attempt,
      token,
    };
  }

  private async update(job: ClaimedJob, values: Partial<Omit<JobsTable, 'id'>>): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ ...values, updated_at: Date.now() })
      .where('id', '=', Number(job.id))
      .where('state', '=', 'active')
      .where('lease_token', '=', job.token)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  extend(job: ClaimedJob): Promise<boolean> {
    return this.update(job, { lease_until: Date.now() + this.leaseMs });
  }

  complete(job: ClaimedJob): Promise<boolean> {
    return this.update(job, { state: 'completed', lease_token: null, lease_until: null });
  }

  fail(job: ClaimedJob, error: string, retryAt: Date | undefined): Promise<boolean> {
    const next =
      retryAt === undefined ? { state: 'failed' as const } : { state: 'queued' as const, run_at: retryAt.getTime() };
    return this.update(job, { ...next, last_error: error.slice(0, 2000), lease_token: null, lease_until: null });
  }

  release(job: ClaimedJob, runAt?: Date): Promise<boolean> {
    return this.update(job, {
      state: 'queued',
      attempt: Math.max(0, job.attempt - 1),
      run_at: runAt?.getTime() ?? Date.now(),
      lease_token: null,
      lease_until: null,
    });
  }

  async isPending(id: string): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    const row = await this.db.selectFrom('jobs').select('state').where('id', '=', Number(id)).executeTakeFirst();
    return row !== undefined && (row.state === 'queued' || row.state === 'active');
  }

  /** Requeues (or fails, past the retry limit) the jobs whose worker stopped renewing the lease. */
  async sweep(): Promise<void> {
    const now = Date.now();
    for (const handler of this.handlers.values()) {
      await this.db
        .updateTable('jobs')
        .set((eb) => ({
          state: sql<
            JobsTable['state']
          >`case when ${eb.ref('attempt')} > ${handler.retryLimit} then 'failed' else 'queued' end`,
          run_at: now + handler.retryDelayMs,
          lease_token: null,
          lease_until: null,
          last_error: 'lease expired: the worker stopped renewing it',
          updated_at: now,
        }))
        .where('state', '=', 'active')
        .where('lease_until', '<', now)
        .where('kind', '=', handler.kind)
        .execute();
    }
    if (now - this.lastCleanup >= cleanupEveryMs) {
      this.lastCleanup = now;
      await this.db
        .deleteFrom('jobs')
        .where('state', 'in', ['completed', 'failed'])
        .where('updated_at', '<', now - retentionMs)
        .execute();
    }
  }

  async close(): Promise<void> {}
}
