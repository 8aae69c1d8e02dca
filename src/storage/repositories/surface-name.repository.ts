import type { Kysely } from 'kysely';
import { rangeUnder, reverseName } from '../../core/zones/dns-names.ts';
import type { SurfaceNameRepository } from '../../core/surface/surface-name.types.ts';
import type { Schema } from '../schema.ts';

/** Names per update statement. */
const namesPerStatement = 500;

/**
 * The names surface monitoring lists, on Kysely: a discovered name (dns_names) is listed while
 * its surface record set (records_surface, what the latest run resolved) is stored. Every query
 * filters on team_id.
 */
export class KyselySurfaceNameRepository implements SurfaceNameRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async listedUnder(teamId: number, domain: string): Promise<Set<string>> {
    const { from, to } = rangeUnder(domain);
    const rows = await this.db
      .selectFrom('dns_names')
      .select('rname')
      .where('team_id', '=', teamId)
      .where('rname', '>', from)
      .where('rname', '<', to)
      .where('records_surface', 'is not', null)
      .execute();
    return new Set(rows.map((r) => reverseName(r.rname)));
  }

  async markGone(teamId: number, names: readonly string[]): Promise<void> {
    for (let start = 0; start < names.length; start += namesPerStatement) {
      const keys = names.slice(start, start + namesPerStatement).map(reverseName);
      await this.db
        .updateTable('dns_names')
        .set({ records_surface: null })
        .where('team_id', '=', teamId)
        .where('rname', 'in', keys)
        .execute();
    }
  }
}
