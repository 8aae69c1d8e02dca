import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import {
  eventKinds,
  type EventFilter,
  type EventKind,
  type EventRecord,
  type EventRepository,
  type NewEvent,
} from '../../core/events/event.types.ts';
import type { Severity } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { EventsTable } from '../schema-events.ts';
import type { Schema } from '../schema.ts';

/** Rows per insert statement (SQLite allows 32,766 bound values; 7 columns each). */
const chunkRows = 500;

function toEvent(row: Selectable<EventsTable>): EventRecord {
  // A stored kind outside the catalogue would be a bug of an older writer: fail loudly.
  if (!(eventKinds as readonly string[]).includes(row.kind)) throw new Error(`event ${row.id} has an unknown kind`);
  return {
    id: Number(row.id),
    publicId: row.public_id,
    teamId: Number(row.team_id),
    kind: row.kind as EventKind,
    occurredAt: new Date(Number(row.occurred_at)),
    assetId: row.asset_id === null ? null : Number(row.asset_id),
    severity: row.severity as Severity | null,
    data: JSON.parse(row.data) as EventRecord['data'],
  };
}

/** The event log on Kysely; every read filters on team_id. */
export class KyselyEventRepository implements EventRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async append(events: readonly NewEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += chunkRows) {
      await this.db
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
