import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * Imports of other tools' results (core/imports).
 *
 * `vulnerabilities.source`: where a finding was first recorded: `scan` (every row before, and
 * every row a scan or monitoring run creates) or `import:<format>` (nuclei, zap, sarif).
 *
 * `imports`: one row per upload: its format, status (queued, running, done, failed), progress
 * (0 to 100), counts and, for a failed one, the error and the line it names. `import_chunks`
 * holds the uploaded file, cut at line ends, until the job has read it (then dropped). Both
 * cascade from teams.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('vulnerabilities')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('scan'))
    .execute();

  await idColumn(db.schema.createTable('imports'), dialect)
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('chunks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('counts', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('error', 'text')
    .addColumn('error_line', 'integer')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('started', 'bigint')
    .addColumn('finished', 'bigint')
    .execute();
  await db.schema.createIndex('imports_team_idx').on('imports').columns(['team_id', 'id']).execute();

  await db.schema
    .createTable('import_chunks')
    .addColumn('import_id', 'bigint', (c) => c.notNull().references('imports.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_chunks_pk', ['import_id', 'seq'])
    .execute();
}
