import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectionSettings, queryNamed, StatementNames } from './pg-statements.mjs';

const read = 'select "id", "name" from "assets" where "team_id" = $1 and "id" > $2 order by "id" limit $3';

describe('StatementNames', () => {
  it('names nothing before the schema is settled', () => {
    const names = new StatementNames();
    for (let i = 0; i < 5; i++) assert.equal(names.nameOf(read), undefined);
    names.settle();
    assert.equal(names.nameOf(read), undefined, 'seen once after settling');
    assert.match(names.nameOf(read) ?? '', /^perimeter_q_[0-9a-f]{16}$/);
    assert.equal(names.nameOf(read), names.nameOf(read), 'one name per text');
  });

  it('names plain reads only: no writes, no select *, no locking reads', () => {
    const names = new StatementNames();
    names.settle();
    for (const text of [
      'insert into "assets" ("name") values ($1)',
      'update "assets" set "name" = $1 where "id" = $2',
      'delete from "assets" where "id" = $1',
      'select * from "teams" where "id" = $1',
      'select "assets".* from "assets" where "id" = $1',
      'select "id" from "jobs" where "state" = $1 for update skip locked',
      'with x as (delete from "jobs" returning "id") select "id" from x',
    ]) {
      names.nameOf(text);
      assert.equal(names.nameOf(text), undefined, text);
    }
    const counted = 'select count(*) as "n" from "assets" where "team_id" = $1';
    names.nameOf(counted);
    assert.notEqual(names.nameOf(counted), undefined, 'count(*) is a plain read');
  });

  it('keeps at most its capacity of names, and a refused text is never named again', () => {
    const names = new StatementNames(3);
    names.settle();
    const texts = Array.from({ length: 5 }, (_, i) => `select "id" from "assets" where "team_id" = $1 and "id" > ${i}`);
    for (const text of texts) names.nameOf(text);
    const named = texts.map((text) => names.nameOf(text));
    assert.equal(named.filter((n) => n !== undefined).length, 3);
    assert.equal(names.size, 3);
    names.refuse(texts[0]!);
    assert.equal(names.nameOf(texts[0]!), undefined);
    assert.equal(names.nameOf(texts[0]!), undefined);
  });
});

describe('queryNamed', () => {
  it('runs a stale named statement once more unnamed, and unnamed from then on', async () => {
    const names = new StatementNames();
    names.settle();
    names.nameOf(read);
    const calls: Array<string | undefined> = [];
    let stale = true;
    const client = {
      query: async (config: { name?: string }) => {
        calls.push(config.name);
        if (config.name !== undefined && stale) {
          stale = false;
          throw Object.assign(new Error('cached plan must not change result type'), { code: '0A000' });
        }
        return { rows: [[1]], rowCount: 1, command: 'SELECT', oid: 0, fields: [] };
      },
    };
    const result = await queryNamed(client as never, names, read, [1, 0, 10], 'array');
    assert.deepEqual(result.rows, [[1]]);
    await queryNamed(client as never, names, read, [1, 0, 10], 'array');
    assert.equal(calls.length, 3);
    assert.match(calls[0] ?? '', /^perimeter_q_/);
    assert.deepEqual(calls.slice(1), [undefined, undefined]);
  });

  it('passes other errors through', async () => {
    const names = new StatementNames();
    names.settle();
    names.nameOf(read);
    const client = {
      query: async () => Promise.reject(Object.assign(new Error('relation does not exist'), { code: '42P01' })),
    };
    await assert.rejects(queryNamed(client as never, names, read, []), /relation does not exist/);
    assert.notEqual(names.nameOf(read), undefined, 'still named');
  });
});

describe('connectionSettings', () => {
  it('turns parallel query off and sets the schema', () => {
    assert.deepEqual(connectionSettings('postgres://u@db:5432/app', undefined), {
      connectionString: 'postgres://u@db:5432/app',
      options: '-c max_parallel_workers_per_gather=0',
    });
    assert.deepEqual(connectionSettings('postgres://u@db:5432/app', 'tenant_a'), {
      connectionString: 'postgres://u@db:5432/app',
      options: '-c max_parallel_workers_per_gather=0 -c search_path=tenant_a',
    });
  });

  it("keeps options of the URL first, so the store's own win, and leaves the rest of the URL as it was", () => {
    const settings = connectionSettings(
      'postgres://u:p@db:5432/app?sslmode=require&options=-c%20statement_timeout%3D5000',
      's',
    );
    assert.equal(settings.options, '-c statement_timeout=5000 -c max_parallel_workers_per_gather=0 -c search_path=s');
    const url = new URL(settings.connectionString);
    assert.equal(url.searchParams.get('options'), null);
    assert.equal(url.searchParams.get('sslmode'), 'require');
    assert.equal(url.password, 'p');
    assert.equal(
      connectionSettings('postgres://db/app?options=-c%20a%3D1&options=-c%20b%3D2', undefined).options,
      '-c a=1 -c b=2 -c max_parallel_workers_per_gather=0',
    );
  });
});
