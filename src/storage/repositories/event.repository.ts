import { storedMember } from './stored-value.ts';
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';
import {
  eventKinds,
  type EventFilter,
  type EventRecord,
  type EventRepository,
  type NewEvent,
} from '../../core/events/event.types.ts';
import type { Severity } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { EventsTable } from '../schema-events.ts';
import type { Schema } from '../schema.ts';

/** Rows per insert statement (SQLite allows 32,766 bound values; 7 columns each). */
const chunkRows = 500;

/** The advisory lock key space of event appends on PostgreSQL (with the team id). */
const eventAppendLock = 0x6576656e; // 'even'

function toEvent(row: Selectable<EventsTable>): EventRecord {
  return {
    id: Number(row.id),
    publicId: row.public_id,
    teamId: Number(row.team_id),
    kind: storedMember(eventKinds, row.kind, `event ${row.id}`),
    occurredAt: new Date(Number(row.occurred_at)),
    assetId: row.asset_id === null ? null : Number(row.asset_id),
    severity: row.severity as Severity | null,
    data: JSON.parse(row.data) as EventRecord['data'],
  };
}

/**
 * The event log on Kysely; every read filters on team_id.
 *
 * Readers (webhooks, the Jira sync) keep a cursor: the id of the last event they handled. That is
 * only sound if, per team, ids become visible in id order. SQLite has one writer at a time, so
 * they do. On PostgreSQL ids come from a sequence when the row is inserted, and two transactions
 * could commit out of order: a reader would see id 11, move its cursor past 10, and never see 10
 * once it commits. So an append on PostgreSQL first takes a per-team advisory lock held until its
 * transaction ends: the next transaction appending for that team waits, and takes its ids after
 * the first committed. Outside a transaction the lock and the insert run in one of their own.
 */
export class KyselyEventRepository implements EventRepository {
  constructor(
    private readonly db: Kysely<Schema>,
    private readonly dialect: Dialect,
    /** True when db is a transaction (the lock lasts until the caller's commit). */
    private readonly isTransaction: boolean,
  ) {}

  async append(events: readonly NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (this.dialect !== 'postgres') return this.insert(this.db, events);
    if (!this.isTransaction) return this.db.transaction().execute((trx) => this.lockAndInsert(trx, events));
    return this.lockAndInsert(this.db, events);
  }

  private async lockAndInsert(db: Kysely<Schema>, events: readonly NewEvent[]): Promise<void> {
    // In team order, so two appends naming the same teams never wait on each other crosswise.
    for (const teamId of [...new Set(events.map((e) => e.teamId))].sort((a, b) => a - b))
      await sql`select pg_advisory_xact_lock(${eventAppendLock}, ${teamId})`.execute(db);
    await this.insert(db, events);
  }

  private async insert(db: Kysely<Schema>, events: readonly NewEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += chunkRows) {
      await db
        .insertInto('events')
        .values(
          events.slice(start, start + chunkRows).map((e) => ({
            team_id: e.teamId,
            public_id: randomUUID(),
            kind: e.kind,
            occurred_at: e.occurredAt.getTime(),
            asset_id: e.assetId ?? null,
            severity: e.severity ?? null,
            data: JSON.stringify(e.data),
          })),
        )
        .execute();
    }
  }

  async list(teamId: number, filter: EventFilter, afterId: number, limit: number): Promise<EventRecord[]> {
    let query = this.db.selectFrom('events').selectAll().where('team_id', '=', teamId).where('id', '>', afterId);
    if (filter.kinds !== undefined && filter.kinds.length > 0) query = query.where('kind', 'in', [...filter.kinds]);
    if (filter.occurredAfter !== undefined) query = query.where('occurred_at', '>', filter.occurredAfter.getTime());
    if (filter.occurredBefore !== undefined) query = query.where('occurred_at', '<', filter.occurredBefore.getTime());
    const rows = await query.orderBy('id').limit(limit).execute();
    return rows.map(toEvent);
  }

  async findByPublicId(teamId: number, publicId: string): Promise<EventRecord | undefined> {
    const row = await this.db
      .selectFrom('events')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('public_id', '=', publicId)
      .executeTakeFirst();
    return row === undefined ? undefined : toEvent(row);
  }

  async latestId(teamId: number): Promise<number> {
    const row = await this.db
      .selectFrom('events')
      .select((eb) => eb.fn.max('id').as('max'))
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return row?.max === null || row?.max === undefined ? 0 : Number(row.max);
  }
}
