import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../database.ts';

/** Adds an auto-increment integer primary key `id`, spelled as each dialect wants it. */
export function idColumn<T extends string>(
  builder: CreateTableBuilder<T, never>,
  dialect: Dialect,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? builder.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : builder.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
