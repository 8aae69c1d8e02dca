import { createRequire } from 'node:module';
import type * as KyselyModule from 'kysely';

/**
 * Kysely's values, taken from its CommonJS build. Under tsx every ES module passes through the
 * loader hooks (a round trip to the hooks thread each): Kysely's ESM build is some 280 modules
 * and cost 0.5–0.8 s of every start, where `require` loads the same code in about 0.1 s
 * (measured on Node 20). Import values from here; types may still come from 'kysely'. The two
 * builds mix safely (Kysely recognises its objects by shape), but one build per process is simpler.
 */
const kysely = createRequire(import.meta.url)('kysely') as typeof KyselyModule;

export const { sql, CompiledQuery, PostgresDialect, SqliteDialect } = kysely;

// Classes used as values and as types: the value from the CommonJS build, the type from Kysely.
/** The query builder. */
export const Kysely = kysely.Kysely;
export type Kysely<DB> = KyselyModule.Kysely<DB>;
/** Applies migrations. */
export const Migrator = kysely.Migrator;
export type Migrator = KyselyModule.Migrator;
