import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kysely, SqliteDialect } from '../kysely.ts';
import { sqlDocument, type DocumentField } from './json-document.ts';

const fields: DocumentField[] = [
  { name: 'token', kind: 'string', column: 'token' },
  { name: 'added_by', kind: 'json', column: 'added_by' },
  { name: 'monitored', kind: 'bool', column: 'monitored' },
  { name: 'created', kind: 'time', column: 'created' },
  { name: 'last_seen', kind: 'time', column: 'last_seen' },
];

/** A Kysely that compiles and never connects. */
const db = new Kysely<object>({ dialect: new SqliteDialect({ database: {} as never }) });

/** The SQL text of a document's expression. */
const text = (dialect: 'sqlite' | 'postgres', list = fields) => sqlDocument(dialect, list).expression.compile(db).sql;

describe('documents built in SQL from a field list', () => {
  it('builds json_object on SQLite and a compact concatenation on PostgreSQL, the times behind', () => {
    assert.equal(
      text('sqlite'),
      `json_object('token', token, 'added_by', json(added_by), 'monitored', json(case when monitored = 1 then 'true' else 'false' end))`,
    );
    assert.equal(
      text('postgres'),
      `'{"token":' || to_json(token) || ',"added_by":' || added_by || ',"monitored":' || case when monitored = 1 then 'true' else 'false' end || '}'`,
    );
    const document = sqlDocument('sqlite', fields);
    assert.deepEqual(document.tailColumns, ['created', 'last_seen']);
    assert.deepEqual(document.tail, [
      ['created', 'time'],
      ['last_seen', 'time'],
    ]);
    assert.equal(
      document.withTail('{"token":"t"}', [0, '1700000000999']),
      '{"token":"t","created":"1970-01-01T00:00:00Z","last_seen":"2023-11-14T22:13:20Z"}',
    );
  });

  it('refuses a time before another field, a list of times alone, and names that are not identifiers', () => {
    assert.throws(() => sqlDocument('sqlite', [fields[3]!, fields[0]!]), /times .* come last/);
    assert.throws(() => sqlDocument('postgres', [fields[3]!]), /needs a field other than times/);
    assert.throws(() => sqlDocument('sqlite', [{ name: "x', y", kind: 'string', column: 'token' }]), /identifiers/);
  });
});
