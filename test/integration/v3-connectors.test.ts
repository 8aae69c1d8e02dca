import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { findConnector } from '../../src/core/connectors/connector.service.ts';
import { hashKey, newKeyId } from '../../src/core/teams/api-key.service.ts';
import type { Caller } from '../../src/core/teams/caller.ts';
import { openCoreRuntime } from '../../src/runtime.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { malformedCursor, v3ListReader, v3Problem } from '../support/v3-list-contract.ts';

interface WireConnector {
  id: string;
  name: string;
  team_id: string;
  provider: string;
  created_at: string;
  updated_at: string;
  last_run: null;
}

const path = '/rest/v3/connectors';
const externalIdPath = '/rest/v3/connectors/external-id';
const secretKey = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const credentials = { access_key: 'AKIAIOSFODNN7EXAMPLE', secret_key: secretKey };
const credBased = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  provider: 'CLOUD_A_CRED_BASED',
  options: credentials,
  ...extra,
});
const notFound = (instance: string) => ({
  type: '/problems/not-found',
  title: 'Not Found',
  status: 404,
  detail: 'No connector with this id',
  instance,
});
const bodyProblem = (detail: string) => v3Problem(path, 400, 1051, `Request body malformed: ${detail}`);

describe('v3 connectors', () => {
  let h: Harness;
  /** v3 keys by team: acme and globex are enterprise teams, pro a professional one. */
  const keys: Record<string, string> = {};
  const teams: Record<string, { id: number; token: string }> = {};
  let multi: string;

  async function openTeam(name: string, plan: string): Promise<void> {
    await h.team(name, { plan });
    keys[name] = (await h.key(name, '--v3')).key;
    const row = (await h.runtime.store.teams.findByName(name))!;
    teams[name] = { id: row.id, token: row.token };
  }

  /** A v3 key tied to several teams (the CLI makes single-team keys only). */
  async function multiTeamKey(teamIds: number[]): Promise<string> {
    const key = randomBytes(16).toString('hex');
    await h.runtime.store.keys.insert({
      publicId: newKeyId(),
      keyHash: hashKey(key),
      kind: 'v3',
      hint: key.slice(0, 6),
      permissions: null,
      secretSealed: null,
      teamIds,
      created: new Date(),
      revoked: null,
    });
    return key;
  }

  const create = async (body: unknown, key = keys['acme']!) => h.send('POST', path, { key, body });
  const created = async (body: unknown, key = keys['acme']!): Promise<WireConnector> => {
    const res = await create(body, key);
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as WireConnector;
  };

  before(async () => {
    h = await createHarness();
    await openTeam('acme', 'enterprise');
    await openTeam('globex', 'enterprise');
    await openTeam('pro', 'professional');
    multi = await multiTeamKey([teams['acme']!.id, teams['globex']!.id]);
  });
  after(async () => h.close());

  describe('POST /connectors', () => {
    it('answers 201 with exactly the fields of the spec: no options, last_run null', async () => {
      const before = Date.now();
      const res = await create(credBased('  Production account  '));
      assert.equal(res.statusCode, 201, res.body);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.ok(
        !res.body.includes(secretKey) && !res.body.includes('options') && !res.body.includes(credentials.access_key),
      );
      const body = res.json() as WireConnector;
      assert.match(body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      assert.ok(Date.parse(body.created_at) >= Math.floor(before / 1000) * 1000);
      assert.deepEqual(body, {
        id: body.id,
        name: 'Production account',
        team_id: teams['acme']!.token,
        provider: 'CLOUD_A_CRED_BASED',
        created_at: body.created_at,
        updated_at: body.created_at,
        last_run: null,
      });
    });

    it('accepts every provider of the spec; the role-based one needs role_arn, the others any string options', async () => {
      const providers = [
        'CLOUD_A_ROLE_BASED',
        'CLOUD_A_CRED_BASED',
        'CLOUD_B',
        'CLOUD_C',
        'CDN_D',
        'CLOUD_E',
        'CLOUD_F',
        'REGISTRAR_G',
        'DNS_H',
      ];
      for (const provider of providers) {
        const options =
          provider === 'CLOUD_A_ROLE_BASED'
            ? { role_arn: 'arn:cloud-a:iam::123456789012:role/perimeter' }
            : provider === 'CLOUD_A_CRED_BASED'
              ? credentials
              : { api_token: 'tok' };
        const body = await created({ name: `each ${provider}`, provider, options });
        assert.equal(body.provider, provider);
      }
    });

    it("takes the team_id of the key's own team", async () => {
      const body = await created(credBased('named team', { team_id: teams['acme']!.token }));
      assert.equal(body.team_id, teams['acme']!.token);
    });

    const longValue = 'x'.repeat(4097);
    const manyFields = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`f${i}`, 'v']));
    const bad: Array<[name: string, body: unknown, detail: string]> = [
      ['name missing', { provider: 'CLOUD_B', options: { token: 't' } }, 'name is required'],
      ['name not a string', { name: 7, provider: 'CLOUD_B', options: { token: 't' } }, 'name must be a string'],
      ['name empty', { name: '', provider: 'CLOUD_B', options: { token: 't' } }, 'name must not be empty'],
      ['name blank', { name: '   ', provider: 'CLOUD_B', options: { token: 't' } }, 'name must not be empty'],
      [
        'name too long',
        { name: 'n'.repeat(256), provider: 'CLOUD_B', options: { token: 't' } },
        'name must be at most 255 characters',
      ],
      [
        'name with NUL',
        { name: 'a\u0000b', provider: 'CLOUD_B', options: { token: 't' } },
        'name must not contain a NUL character (U+0000)',
      ],
      [
        'provider missing',
        { name: 'x', options: { token: 't' } },
        'provider is required: one of CLOUD_A_ROLE_BASED, CLOUD_A_CRED_BASED, CLOUD_B, CLOUD_C, CDN_D, CLOUD_E, CLOUD_F, REGISTRAR_G, DNS_H',
      ],
      [
        'provider unknown',
        { name: 'x', provider: 'CLOUD_Z', options: { token: 't' } },
        'provider must be one of CLOUD_A_ROLE_BASED, CLOUD_A_CRED_BASED, CLOUD_B, CLOUD_C, CDN_D, CLOUD_E, CLOUD_F, REGISTRAR_G, DNS_H',
      ],
      [
        'provider in lower case',
        { name: 'x', provider: 'cloud_b', options: { token: 't' } },
        'provider must be one of CLOUD_A_ROLE_BASED, CLOUD_A_CRED_BASED, CLOUD_B, CLOUD_C, CDN_D, CLOUD_E, CLOUD_F, REGISTRAR_G, DNS_H',
      ],
      ['options missing', { name: 'x', provider: 'CLOUD_B' }, 'options is required: a JSON object of string fields'],
      [
        'options an array',
        { name: 'x', provider: 'CLOUD_B', options: ['a'] },
        'options must be a JSON object of string fields',
      ],
      [
        'options a string',
        { name: 'x', provider: 'CLOUD_B', options: 'secret' },
        'options must be a JSON object of string fields',
      ],
      [
        'an option not a string',
        { name: 'x', provider: 'CLOUD_B', options: { token: 5 } },
        'options.token must be a string',
      ],
      [
        'an option an object',
        { name: 'x', provider: 'CLOUD_B', options: { token: { a: 'b' } } },
        'options.token must be a string',
      ],
      [
        'an option empty',
        { name: 'x', provider: 'CLOUD_B', options: { token: '' } },
        'options.token must not be empty',
      ],
      [
        'an option too long',
        { name: 'x', provider: 'CLOUD_B', options: { token: longValue } },
        'options.token must be at most 4096 characters',
      ],
      [
        'too many options',
        { name: 'x', provider: 'CLOUD_B', options: manyFields },
        'options must have at most 32 fields',
      ],
      [
        'an option name not a word',
        { name: 'x', provider: 'CLOUD_B', options: { 'bad name': 'v' } },
        'options field names must be 1 to 64 letters, digits or underscores, starting with a letter',
      ],
      [
        'access_key missing',
        { name: 'x', provider: 'CLOUD_A_CRED_BASED', options: { secret_key: secretKey } },
        'options.access_key is required for provider CLOUD_A_CRED_BASED',
      ],
      [
        'secret_key missing',
        { name: 'x', provider: 'CLOUD_A_CRED_BASED', options: { access_key: 'AKIA' } },
        'options.secret_key is required for provider CLOUD_A_CRED_BASED',
      ],
      [
        'role_arn missing',
        { name: 'x', provider: 'CLOUD_A_ROLE_BASED', options: { external_id: 'e' } },
        'options.role_arn is required for provider CLOUD_A_ROLE_BASED',
      ],
      [
        'team_id not a string',
        credBased('x', { team_id: 12 }),
        'team_id must be a string: the token of a team of this API key',
      ],
    ];
    for (const [name, body, detail] of bad) {
      it(`answers a 400 problem naming the field: ${name}`, async () => {
        const res = await create(body);
        assert.equal(res.statusCode, 400, res.body);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.deepEqual(res.json(), bodyProblem(detail));
        assert.ok(!res.body.includes(secretKey));
      });
    }

    it("answers the same 400 for another team's team_id and for one that does not exist", async () => {
      for (const token of [teams['globex']!.token, randomBytes(16).toString('hex'), 'not-a-token']) {
        const res = await create(credBased('x', { team_id: token }));
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), bodyProblem('team_id is not a team of this API key'));
      }
    });

    it('answers 400 problems to a body that is missing, not JSON or not an object', async () => {
      const missing = await h.send('POST', path, { key: keys['acme']! });
      assert.equal(missing.statusCode, 400);
      assert.deepEqual(
        missing.json(),
        v3Problem(path, 400, 1050, 'Request body missing: this operation needs a JSON body'),
      );
      const garbled = await h.send('POST', path, {
        key: keys['acme']!,
        body: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(garbled.statusCode, 400);
      assert.match(String(garbled.headers['content-type']), /^application\/problem\+json/);
      const problem = garbled.json() as Record<string, unknown>;
      assert.equal(problem['type'], '/problems/1051');
      assert.match(String(problem['detail']), /^Request body malformed: /);
      for (const body of ['[1, 2]', '"text"', '42', 'null']) {
        const res = await h.send('POST', path, {
          key: keys['acme']!,
          body,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.statusCode, 400, body);
        assert.deepEqual(res.json(), v3Problem(path, 400, 1051, 'Request body malformed: expected a JSON object'));
      }
    });

    it('needs team_id from a key tied to several teams, and creates in the team it names', async () => {
      const res = await create(credBased('multi'), multi);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), bodyProblem('team_id is required: this API key is tied to several teams'));
      const body = await created(credBased('multi globex', { team_id: teams['globex']!.token }), multi);
      assert.equal(body.team_id, teams['globex']!.token);
      const other = await create(credBased('x', { team_id: teams['pro']!.token }), multi);
      assert.deepEqual(other.json(), bodyProblem('team_id is not a team of this API key'));
    });
  });

  describe('options at rest', () => {
    it('stores the options only sealed with the server key, as one JSON string', async () => {
      const body = await created(credBased('sealed'));
      const row = await h.runtime.database.db
        .selectFrom('connectors')
        .selectAll()
        .where('public_id', '=', body.id)
        .executeTakeFirstOrThrow();
      assert.ok(!row.options_sealed.includes(secretKey), 'the secret key is stored in clear');
      assert.ok(!row.options_sealed.includes(credentials.access_key));
      assert.ok(!JSON.stringify(row).includes(secretKey));
      assert.match(row.options_sealed, /^v1\./);
      assert.deepEqual(JSON.parse(h.runtime.box.decrypt(row.options_sealed)), credentials);
    });

    it('keeps connectors and their options across a restart of the store', async () => {
      const body = await created({
        name: 'durable',
        provider: 'CLOUD_A_ROLE_BASED',
        options: { role_arn: 'arn:cloud-a:iam::1:role/r' },
      });
      // A second process on the same store and server key, as after a restart.
      const core = await openCoreRuntime(h.config, {
        database: await h.openDatabase(),
        log: pino({ level: 'silent' }),
      });
      try {
        const caller: Caller = { keyId: 0, keyHint: '', kind: 'v3', permissions: null, teamIds: [teams['acme']!.id] };
        const found = await findConnector(core.store, caller, body.id);
        assert.ok(found !== undefined);
        assert.equal(found.name, 'durable');
        assert.deepEqual(JSON.parse(core.box.decrypt(found.optionsSealed)), { role_arn: 'arn:cloud-a:iam::1:role/r' });
      } finally {
        await core.close();
      }
    });
  });

  describe('GET /connectors', () => {
    const session = () => ({ h, v3: keys['pager']! });
    const { page, all } = v3ListReader<WireConnector>(path, session);

    it('pages 5 connectors 2 at a time: next walks them all in creation order, the last page has pagination {}', async () => {
      await openTeam('pager', 'enterprise');
      const ids: string[] = [];
      for (let i = 1; i <= 5; i++) ids.push((await created(credBased(`pager ${i}`), keys['pager']!)).id);
      const first = await page('?limit=2');
      assert.deepEqual(
        first.items.map((i) => i.name),
        ['pager 1', 'pager 2'],
      );
      const next = new URL(first.pagination.next!);
      assert.equal(next.pathname, path);
      assert.deepEqual([...next.searchParams.keys()].sort(), ['cursor', 'limit']);
      assert.equal(next.searchParams.get('limit'), '2');
      const walk = await all('?limit=2');
      assert.deepEqual(
        walk.items.map((i) => i.id),
        ids,
      );
      assert.equal(walk.urls.length, 2);
      assert.deepEqual(walk.items[0], {
        ...walk.items[0],
        team_id: teams['pager']!.token,
        provider: 'CLOUD_A_CRED_BASED',
        last_run: null,
      });
      assert.ok(walk.items.every((i) => !('options' in i)));
      assert.deepEqual(await page('?limit=5'), { items: walk.items, pagination: {} });
      assert.deepEqual((await page('')).pagination, {});
    });

    it('ignores time filters (connectors have none) and does not repeat them in next', async () => {
      const res = await page('?limit=2&first_seen_after=2030-01-01T00:00:00Z');
      assert.equal(res.items.length, 2);
      assert.equal(new URL(res.pagination.next!).searchParams.get('first_seen_after'), null);
    });

    it('answers 400 problems naming a bad limit or cursor', async () => {
      for (const [query, detail] of [
        ['?limit=0', 'limit must be an integer from 1 to 1000'],
        ['?limit=1001', 'limit must be an integer from 1 to 1000'],
        ['?limit=two', 'limit must be an integer from 1 to 1000'],
        ['?cursor=garbage', malformedCursor],
      ] as const) {
        const res = await h.send('GET', `${path}${query}`, { key: keys['pager']! });
        assert.equal(res.statusCode, 400, query);
        assert.deepEqual(res.json(), v3Problem(path, 400, 4150, detail));
      }
    });

    it("lists only the key's teams; a multi-team key sees the connectors of each of its teams", async () => {
      const acme = (await h.send('GET', `${path}?limit=1000`, { key: keys['acme']! })).json() as {
        items: WireConnector[];
      };
      assert.ok(acme.items.length > 0);
      assert.ok(acme.items.every((i) => i.team_id === teams['acme']!.token));
      const globex = (await h.send('GET', `${path}?limit=1000`, { key: keys['globex']! })).json() as {
        items: WireConnector[];
      };
      assert.ok(globex.items.every((i) => i.team_id === teams['globex']!.token));
      const both = (await h.send('GET', `${path}?limit=1000`, { key: multi })).json() as { items: WireConnector[] };
      assert.equal(both.items.length, acme.items.length + globex.items.length);
      assert.deepEqual(
        new Set(both.items.map((i) => i.team_id)),
        new Set([teams['acme']!.token, teams['globex']!.token]),
      );
    });

    it("refuses another team's cursor", async () => {
      const next = new URL((await page('?limit=1')).pagination.next!);
      const res = await h.send('GET', `${path}${next.search}`, { key: keys['acme']! });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), v3Problem(path, 400, 4150, malformedCursor));
    });
  });

  describe('GET and DELETE /connectors/{id}', () => {
    it('answers 200 with the connector as created', async () => {
      const body = await created(credBased('fetch me'));
      const res = await h.send('GET', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), body);
      assert.ok(!res.body.includes(secretKey));
      const upper = await h.send('GET', `${path}/${body.id.toUpperCase()}`, { key: keys['acme']! });
      assert.deepEqual(upper.json(), body);
    });

    it('answers the not-found problem to an unknown or malformed id', async () => {
      for (const id of [randomUUID(), 'nope', '1', `${randomUUID()}x`]) {
        const res = await h.send('GET', `${path}/${id}`, { key: keys['acme']! });
        assert.equal(res.statusCode, 404, id);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.deepEqual(res.json(), notFound(`${path}/${id}`));
      }
    });

    it('deletes with 204 and no body; then GET and DELETE answer 404', async () => {
      const body = await created(credBased('delete me'));
      const res = await h.send('DELETE', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      const gone = await h.send('GET', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(gone.statusCode, 404);
      assert.deepEqual(gone.json(), notFound(`${path}/${body.id}`));
      const again = await h.send('DELETE', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(again.statusCode, 404);
      assert.deepEqual(again.json(), notFound(`${path}/${body.id}`));
      const row = await h.runtime.database.db
        .selectFrom('connectors')
        .select('id')
        .where('public_id', '=', body.id)
        .executeTakeFirst();
      assert.equal(row, undefined, 'the row and its sealed options are gone');
    });

    it("hides another team's connector from list, get and delete, exactly as an unknown one", async () => {
      const body = await created(credBased('acme only'));
      const list = (await h.send('GET', `${path}?limit=1000`, { key: keys['globex']! })).json() as {
        items: WireConnector[];
      };
      assert.ok(!list.items.some((i) => i.id === body.id));
      const get = await h.send('GET', `${path}/${body.id}`, { key: keys['globex']! });
      assert.equal(get.statusCode, 404);
      assert.deepEqual(get.json(), notFound(`${path}/${body.id}`));
      const del = await h.send('DELETE', `${path}/${body.id}`, { key: keys['globex']! });
      assert.equal(del.statusCode, 404);
      assert.deepEqual(del.json(), notFound(`${path}/${body.id}`));
      const still = await h.send('GET', `${path}/${body.id}`, { key: keys['acme']! });
      assert.equal(still.statusCode, 200);
      // A key tied to both teams reaches it.
      assert.equal((await h.send('GET', `${path}/${body.id}`, { key: multi })).statusCode, 200);
    });
  });

  describe('GET /connectors/external-id', () => {
    const externalIdOf = async (key: string, query = '') => {
      const res = await h.send('GET', `${externalIdPath}${query}`, { key });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { external_id: string; team_id: string };
    };

    it('answers one random id per team, stable across calls, never taken for a connector id', async () => {
      const first = await externalIdOf(keys['acme']!);
      assert.deepEqual(Object.keys(first).sort(), ['external_id', 'team_id']);
      assert.match(first.external_id, /^[0-9a-f]{32}$/);
      assert.equal(first.team_id, teams['acme']!.token);
      assert.deepEqual(await externalIdOf(keys['acme']!), first);
      assert.deepEqual(await externalIdOf(keys['acme']!, `?team_id=${teams['acme']!.token}`), first);
      assert.deepEqual(await externalIdOf(keys['acme']!, '?team_id='), first);
      const globex = await externalIdOf(keys['globex']!);
      assert.notEqual(globex.external_id, first.external_id);
      assert.equal(globex.team_id, teams['globex']!.token);
      assert.deepEqual(await externalIdOf(multi, `?team_id=${teams['globex']!.token}`), globex);
      const del = await h.send('DELETE', externalIdPath, { key: keys['acme']! });
      assert.equal(del.statusCode, 404);
      assert.deepEqual(await externalIdOf(keys['acme']!), first);
    });

    it('answers the same value to concurrent first requests', async () => {
      await openTeam('racing', 'enterprise');
      const answers = await Promise.all(Array.from({ length: 8 }, () => externalIdOf(keys['racing']!)));
      assert.equal(new Set(answers.map((a) => a.external_id)).size, 1);
    });

    it('answers a 400 problem naming team_id: foreign, unknown, repeated, or missing for a multi-team key', async () => {
      const cases: Array<[key: string, query: string, detail: string]> = [
        [keys['acme']!, `?team_id=${teams['globex']!.token}`, 'team_id is not a team of this API key'],
        [keys['acme']!, `?team_id=${randomBytes(16).toString('hex')}`, 'team_id is not a team of this API key'],
        [keys['acme']!, `?team_id=a&team_id=b`, 'team_id given more than once'],
        [multi, '', 'team_id is required: this API key is tied to several teams'],
      ];
      for (const [key, query, detail] of cases) {
        const res = await h.send('GET', `${externalIdPath}${query}`, { key });
        assert.equal(res.statusCode, 400, query);
        assert.deepEqual(res.json(), v3Problem(externalIdPath, 400, 4150, detail));
      }
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
        const res = await h.send(method, url, { key: keys['pro']!, ...(body === undefined ? {} : { body }) });
        assert.equal(res.statusCode, 403, `${method} ${url}`);
        assert.deepEqual(
          res.json(),
          v3Problem(url.split('?')[0]!, 403, 1009, 'This API key cannot access the connectors endpoints'),
        );
      }
    });

    it('answers 403 to a key whose permissions leave out connectors', async () => {
      const key = (await h.key('acme', '--v3', '--permission', 'inventory')).key;
      const res = await h.send('GET', path, { key });
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
      const ext = await h.send('GET', `${externalIdPath}?team_id=${teams['pro']!.token}`, { key });
      assert.equal(ext.statusCode, 403);
      const list = (await h.send('GET', `${path}?limit=1000`, { key })).json() as { items: WireConnector[] };
      assert.ok(list.items.length > 0 && list.items.every((i) => i.team_id === teams['acme']!.token));
    });

    it('answers 401 without a key and to a v2 key', async () => {
      const none = await h.send('GET', path);
      assert.equal(none.statusCode, 401);
      assert.deepEqual(none.json(), v3Problem(path, 401, 1001, 'API key missing: send it as the Authorization header'));
      const v2 = (await h.key('acme')).key;
      for (const [method, url] of [
        ['GET', path],
        ['POST', path],
        ['GET', externalIdPath],
      ] as const) {
        const res = await h.send(method, url, { key: v2, ...(method === 'POST' ? { body: credBased('x') } : {}) });
        assert.equal(res.statusCode, 401);
        assert.deepEqual(res.json(), v3Problem(url, 401, 1003, 'API key invalid'));
      }
    });

    it('answers 405 to another method on the paths', async () => {
      const res = await h.send('PUT', path, { key: keys['acme']!, body: {} });
      assert.equal(res.statusCode, 405);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    });
  });

  describe('team removal', () => {
    it("cascades to the team's connectors and external ID", async () => {
      await openTeam('doomed', 'enterprise');
      await created(credBased('doomed connector'), keys['doomed']!);
      await externalIdOf(keys['doomed']!);
      const db = h.runtime.database.db;
      await db.deleteFrom('api_key_teams').where('team_id', '=', teams['doomed']!.id).execute();
      await db.deleteFrom('teams').where('id', '=', teams['doomed']!.id).execute();
      assert.equal(
        (await db.selectFrom('connectors').select('id').where('team_id', '=', teams['doomed']!.id).execute()).length,
        0,
      );
      assert.equal(
        (
          await db
            .selectFrom('connector_external_ids')
            .select('team_id')
            .where('team_id', '=', teams['doomed']!.id)
            .execute()
        ).length,
        0,
      );
    });

    async function externalIdOf(key: string) {
      const res = await h.send('GET', externalIdPath, { key });
      assert.equal(res.statusCode, 200, res.body);
    }
  });
});
