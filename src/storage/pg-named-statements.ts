import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { queryNamed, type StatementNames } from './pg-statements.mjs';

/**
 * A pool for Kysely whose clients run plain parameterised reads as named statements. One
 * wrapper per pooled client (Kysely keys its connections by the client object).
 */
export function namingPool(pool: pg.Pool, names: StatementNames): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    connect: async () => {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        // Kysely passes (sql, parameters), or a cursor to stream through.
        const query = (first: unknown, parameters?: unknown) =>
          typeof first === 'string' && Array.isArray(parameters)
            ? queryNamed(client, names, first, parameters)
            : client.query(first as pg.QueryConfig);
        wrapper = { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
