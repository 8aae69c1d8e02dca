import { setTimeout as delay } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { sql } from '../../src/storage/kysely.ts';
import type { Logger } from 'pino';
import { EmbeddedJobStore } from '../../src/storage/job-queue/embedded-job-store.ts';
import type { JobHandler } from '../../src/jobs/job-queue.ts';
import type { QueueBackend } from '../../src/storage/job-queue/queue-backend.ts';
import { bossSchemaOf, PgBossJobStore } from '../../src/storage/job-queue/pgboss-job-store.ts';
import type { Database } from '../../src/storage/database.ts';

// Test-only job kinds and the tables they count in. None of this is in src/: a worker runs
// these only when a test (or the child process of the restart test) hands them to work().

type Db = Kysely<unknown>;
const dbOf = (database: Database) => database.db as unknown as Db;

/** Creates the tables the test handlers count in (idempotent). */
export async function createTestJobTables(database: Database): Promise<void> {
  const db = dbOf(database);
  await sql`create table if not exists test_job_runs (job_id text not null, runner text not null, attempt integer not null)`.execute(
    db,
  );
  await sql`create table if not exists test_job_progress (job_id text primary key, next_step integer not null)`.execute(
    db,
  );
  await sql`create table if not exists test_job_steps (job_id text not null, step integer not null)`.execute(db);
}

/** Runs recorded per job id: each row is one start of a handler. */
export async function runsOf(database: Database): Promise<Array<{ job_id: string; runner: string; attempt: number }>> {
  const { rows } = await sql<{
    job_id: string;
    runner: string;
    attempt: number;
  }>`select job_id, runner, attempt from test_job_runs order by job_id, attempt`.execute(dbOf(database));
  return rows;
}

/** Payload of the counting job. */
export interface CountPayload {
  /** Throw on every attempt up to and including this one. */
  failUntilAttempt?: number;
  sleepMs?: number;
}

/** Options of the counting job; `block` makes every run wait for its abort signal. */
export interface CountJobOptions {
  kind?: string;
  runner?: string;
  retryLimit?: number;
  retryDelayMs?: number;
  block?: boolean;
}

/** A job that records each run in test_job_runs, then fails, blocks or sleeps as told. */
export function countJob(database: Database, options: CountJobOptions = {}): JobHandler<CountPayload> {
  return {
    kind: options.kind ?? 'test-count',
    retryLimit: options.retryLimit ?? 2,
    retryDelayMs: options.retryDelayMs ?? 0,
    parse(payload) {
      if (typeof payload !== 'object' || payload === null) throw new Error('payload must be an object');
      return payload as CountPayload;
    },
    async handle(payload, ctx) {
      await sql`insert into test_job_runs (job_id, runner, attempt) values (${ctx.jobId}, ${options.runner ?? 'main'}, ${ctx.attempt})`.execute(
        dbOf(database),
      );
      if (payload.failUntilAttempt !== undefined && ctx.attempt <= payload.failUntilAttempt)
        throw new Error(`planned failure ${ctx.attempt}`);
      if (options.block) await delay(60_000, undefined, { signal: ctx.signal });
      if (payload.sleepMs !== undefined) await delay(payload.sleepMs, undefined, { signal: ctx.signal });
    },
  };
}

/** Payload of the step job. */
export interface StepPayload {
  steps: number;
  stepMs: number;
}

/**
 * A job of numbered steps. Each step is recorded in test_job_steps and the checkpoint moves in
 * the same transaction, so a run killed at any point resumes after the last committed step and
 * no step is ever recorded twice.
 */
export function stepJob(database: Database): JobHandler<StepPayload> {
  return {
    kind: 'test-steps',
    retryLimit: 3,
    retryDelayMs: 0,
    parse(payload) {
      const p = payload as StepPayload;
      if (!Number.isInteger(p?.steps) || !Number.isInteger(p?.stepMs))
        throw new Error('steps and stepMs must be integers');
      return p;
    },
    async handle(payload, ctx) {
      for (;;) {
        const isDone = await database.db.transaction().execute(async (trx) => {
          const tx = trx as unknown as Db;
          const { rows } = await sql<{
            next_step: number;
          }>`select next_step from test_job_progress where job_id = ${ctx.jobId}`.execute(tx);
          const step = rows[0]?.next_step ?? 0;
          if (step >= payload.steps) return true;
          await sql`insert into test_job_steps (job_id, step) values (${ctx.jobId}, ${step})`.execute(tx);
          await sql`insert into test_job_progress (job_id, next_step) values (${ctx.jobId}, ${step + 1})
            on conflict (job_id) do update set next_step = excluded.next_step`.execute(tx);
          return false;
        });
        if (isDone) return;
        await delay(payload.stepMs, undefined, { signal: ctx.signal });
      }
    },
  };
}

/** Steps recorded so far: how often each step was counted, and the checkpoint. */
export async function stepsOf(database: Database, jobId: string): Promise<{ counts: number[]; next: number }> {
  const db = dbOf(database);
  const steps = await sql<{
    step: number;
    n: number;
  }>`select step, count(*) as n from test_job_steps where job_id = ${jobId} group by step order by step`.execute(db);
  const progress = await sql<{
    next_step: number;
  }>`select next_step from test_job_progress where job_id = ${jobId}`.execute(db);
  const counts: number[] = [];
  for (const row of steps.rows) counts[Number(row.step)] = Number(row.n);
  return { counts, next: progress.rows[0]?.next_step ?? 0 };
}

/** A job's state as either adapter stores it, in the port's words. */
export interface JobState {
  state: 'queued' | 'active' | 'completed' | 'failed';
  attempt: number;
  lastError: string | null;
}

/** Reads a job's row: the jobs table on SQLite, pg-boss's job (or archive) table on PostgreSQL. */
export async function jobStateOf(database: Database, id: string): Promise<JobState | undefined> {
  const db = dbOf(database);
  if (database.dialect === 'sqlite') {
    const { rows } = await sql<{
      state: JobState['state'];
      attempt: number;
      last_error: string | null;
    }>`select state, attempt, last_error from jobs where id = ${Number(id)}`.execute(db);
    const row = rows[0];
    return row && { state: row.state, attempt: row.attempt, lastError: row.last_error };
  }
  const schema = bossSchemaOf(database);
  const { rows } = await sql<{
    state: string;
    retry_count: number;
    started_on: Date | null;
    output: { message?: string; value?: { message?: string } } | null;
  }>`
    select state::text, retry_count, started_on, output from ${sql.table(`${schema}.job`)} where id = ${id}
    union all select state::text, retry_count, started_on, output from ${sql.table(`${schema}.archive`)} where id = ${id}`.execute(
    db,
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const state = row.state === 'created' || row.state === 'retry' ? 'queued' : (row.state as JobState['state']);
  const attempt = row.started_on === null ? 0 : row.retry_count + 1;
  return { state, attempt, lastError: row.output?.message ?? row.output?.value?.message ?? null };
}

/** Polls until check answers a value other than undefined, or fails after timeoutMs. */
export async function waitUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

/** The adapter's storage without a runner: claims made through it are never renewed, like a worker that died. */
export function createJobStore(database: Database, log: Logger, leaseMs: number): QueueBackend {
  return database.dialect === 'postgres'
    ? new PgBossJobStore(database, log, { leaseMs })
    : new EmbeddedJobStore(database, { leaseMs });
}
