import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { v3Problem } from '../support/v3-list-contract.ts';
import {
  credBased,
  externalIdPath,
  path,
  secretKey,
  useConnectorsFixture,
  type WireConnector,
} from '../support/v3-connectors-fixture.ts';

/**
 * v3 connectors: reading and deleting one (GET and DELETE /connectors/{id}), and who may reach
 * them: another team's connector, plans and key permissions without connectors, keys missing or
 * of v2, other methods. The multi-team key test lists acme's connectors the tests before it made.
 */

const notFound = (instance: string) => ({
  type: '/problems/not-found',
  title: 'Not Found',
  status: 404,
  detail: 'No connector with this id',
  instance,
});

describe('v3 connectors', () => {
  const fx = useConnectorsFixture();
  const { keys, teams, multiTeamKey, create, created } = fx;

  describe('GET and DELETE /connectors/{id}', () => {
    it('answers 200 with the connector as created', async () => {
      const body = await created(credBased('fetch me'));
      const res = await fx.h.send('GET', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), body);
      assert.ok(!res.body.includes(secretKey));
      const upper = await fx.h.send('GET', `${path}/${body.id.toUpperCase()}`, { key: keys['acme']! });
      assert.deepEqual(upper.json(), body);
    });

    it('answers the not-found problem to an unknown or malformed id', async () => {
      for (const id of [randomUUID(), 'nope', '1', `${randomUUID()}x`]) {
        const res = await fx.h.send('GET', `${path}/${id}`, { key: keys['acme']! });
        assert.equal(res.statusCode, 404, id);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.deepEqual(res.json(), notFound(`${path}/${id}`));
      }
    });

    it('deletes with 204 and no body; then GET and DELETE answer 404', async () => {
      const body = await created(credBased('delete me'));
      const res = await fx.h.send('DELETE', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      const gone = await fx.h.send('GET', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(gone.statusCode, 404);
      assert.deepEqual(gone.json(), notFound(`${path}/${body.id}`));
      const again = await fx.h.send('DELETE', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(again.statusCode, 404);
      assert.deepEqual(again.json(), notFound(`${path}/${body.id}`));
      const row = await fx.h.runtime.database.db
        .selectFrom('connectors')
        .select('id')
        .where('public_id', '=', body.id)
        .executeTakeFirst();
      assert.equal(row, undefined, 'the row and its sealed options are gone');
    });

    it("hides another team's connector from list, get and delete, exactly as an unknown one", async () => {
      const body = await created(credBased('acme only'));
      const list = (await fx.h.send('GET', `${path}?limit=1000`, { key: keys['globex']! })).json() as {
        items: WireConnector[];
      };
      assert.ok(!list.items.some((i) => i.id === body.id));
      const get = await fx.h.send('GET', `${path}/${body.id}`, { key: keys['globex']! });
      assert.equal(get.statusCode, 404);
      assert.deepEqual(get.json(), notFound(`${path}/${body.id}`));
      const del = await fx.h.send('DELETE', `${path}/${body.id}`, { key: keys['globex']! });
      assert.equal(del.statusCode, 404);
      assert.deepEqual(del.json(), notFound(`${path}/${body.id}`));
      const still = await fx.h.send('GET', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(still.statusCode, 200);
      // A key tied to both teams reaches it.
      assert.equal((await fx.h.send('GET', `${path}/${body.id}`, { key: fx.multi })).statusCode, 200);
    });
  });

  describe('security', () => {
    it('answers 403 (1009) on every operation to a plan without the connectors group', async () => {
      const calls: Array<[string, string, unknown?]> = [
        ['GET', path],
        ['POST', path, credBased('x')],
        ['GET', `${path}/${randomUUID()}`],
        ['DELETE', `${path}/${randomUUID()}`],
        ['GET', externalIdPath],
      ];
      for (const [method, url, body] of calls) {
        const res = await fx.h.send(method, url, { key: keys['pro']!, ...(body === undefined ? {} : { body }) });
        assert.equal(res.statusCode, 403, `${method} ${url}`);
        assert.deepEqual(
          res.json(),
          v3Problem(url.split('?')[0]!, 403, 1009, 'This API key cannot access the connectors endpoints'),
        );
      }
    });

    it('answers 403 to a key whose permissions leave out connectors', async () => {
      const key = (await fx.h.key('acme', '--v3', '--permission', 'inventory')).key;
      const res = await fx.h.send('GET', path, { key });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().type, '/problems/1009');
    });

    it("keeps a multi-team key's team without the connectors group out: 403 when named, absent from the list", async () => {
      const key = await multiTeamKey([teams['acme']!.id, teams['pro']!.id]);
      const res = await create(credBased('x', { team_id: teams['pro']!.token }), key);
      assert.equal(res.statusCode, 403);
      assert.deepEqual(
        res.json(),
        v3Problem(path, 403, 1009, 'This API key cannot access the connectors endpoints of that team'),
      );
      const ext = await fx.h.send('GET', `${externalIdPath}?team_id=${teams['pro']!.token}`, { key });
      assert.equal(ext.statusCode, 403);
      const list = (await fx.h.send('GET', `${path}?limit=1000`, { key })).json() as { items: WireConnector[] };
      assert.ok(list.items.length > 0 && list.items.every((i) => i.team_id === teams['acme']!.token));
    });

    it('answers 401 without a key and to a v2 key', async () => {
      const none = await fx.h.send('GET', path);
      assert.equal(none.statusCode, 401);
      assert.deepEqual(none.json(), v3Problem(path, 401, 1001, 'API key missing: send it as the Authorization header'));
      const v2 = (await fx.h.key('acme')).key;
      for (const [method, url] of [
        ['GET', path],
        ['POST', path],
        ['GET', externalIdPath],
      ] as const) {
        const res = await fx.h.send(method, url, { key: v2, ...(method === 'POST' ? { body: credBased('x') } : {}) });
        assert.equal(res.statusCode, 401);
        assert.deepEqual(res.json(), v3Problem(url, 401, 1003, 'API key invalid'));
      }
    });

    it('answers 405 to another method on the paths', async () => {
      const res = await fx.h.send('PUT', path, { key: keys['acme']!, body: {} });
      assert.equal(res.statusCode, 405);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    });
  });
});
