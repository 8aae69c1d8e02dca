import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pino from 'pino';
import { findConnector } from '../../src/core/connectors/connector.service.ts';
import type { Caller } from '../../src/core/teams/caller.ts';
import { openCoreRuntime } from '../../src/runtime.ts';
import { malformedCursor, v3ListReader, v3Problem } from '../support/v3-list-contract.ts';
import {
  credBased,
  credentials,
  path,
  queuedRun,
  validOptions,
  secretKey,
  useConnectorsFixture,
  type WireConnector,
} from '../support/v3-connectors-fixture.ts';

/**
 * v3 connectors: creating them (POST /connectors, its answer and every 400 it gives), how their
 * options are kept at rest (sealed, and across a restart), and listing them (GET /connectors, its
 * pages, cursors and teams). The list tests read the connectors the tests before them created.
 */

const bodyProblem = (detail: string) => v3Problem(path, 400, 1051, `Request body malformed: ${detail}`);

describe('v3 connectors', () => {
  const fx = useConnectorsFixture();
  const { keys, teams, openTeam, create, created } = fx;

  describe('POST /connectors', () => {
    it('answers 201 with exactly the fields of the spec: no options, last_run its queued first run', async () => {
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
        last_run: queuedRun,
      });
    });

    it('accepts every provider of the spec with its own option fields', async () => {
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
        const options = validOptions[provider]!;
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
      ['name missing', { provider: 'CLOUD_B', options: validOptions['CLOUD_B'] }, 'name is required'],
      [
        'name not a string',
        { name: 7, provider: 'CLOUD_B', options: validOptions['CLOUD_B'] },
        'name must be a string',
      ],
      ['name empty', { name: '', provider: 'CLOUD_B', options: validOptions['CLOUD_B'] }, 'name must not be empty'],
      ['name blank', { name: '   ', provider: 'CLOUD_B', options: validOptions['CLOUD_B'] }, 'name must not be empty'],
      [
        'name too long',
        { name: 'n'.repeat(256), provider: 'CLOUD_B', options: validOptions['CLOUD_B'] },
        'name must be at most 255 characters',
      ],
      [
        'name with NUL',
        { name: 'a\u0000b', provider: 'CLOUD_B', options: validOptions['CLOUD_B'] },
        'name must not contain a NUL character (U+0000)',
      ],
      [
        'provider missing',
        { name: 'x', options: validOptions['CLOUD_B'] },
        'provider is required: one of CLOUD_A_ROLE_BASED, CLOUD_A_CRED_BASED, CLOUD_B, CLOUD_C, CDN_D, CLOUD_E, CLOUD_F, REGISTRAR_G, DNS_H',
      ],
      [
        'provider unknown',
        { name: 'x', provider: 'CLOUD_Z', options: validOptions['CLOUD_B'] },
        'provider must be one of CLOUD_A_ROLE_BASED, CLOUD_A_CRED_BASED, CLOUD_B, CLOUD_C, CDN_D, CLOUD_E, CLOUD_F, REGISTRAR_G, DNS_H',
      ],
      [
        'provider in lower case',
        { name: 'x', provider: 'cloud_b', options: validOptions['CLOUD_B'] },
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
        { name: 'x', provider: 'CLOUD_B', options: { client_secret: 5 } },
        'options.client_secret must be a string',
      ],
      [
        'an option an object',
        { name: 'x', provider: 'CLOUD_B', options: { client_secret: { a: 'b' } } },
        'options.client_secret must be a string',
      ],
      [
        'an option empty',
        { name: 'x', provider: 'CLOUD_B', options: { client_secret: '' } },
        'options.client_secret must not be empty',
      ],
      [
        'an option too long',
        { name: 'x', provider: 'CLOUD_B', options: { client_secret: longValue } },
        'options.client_secret must be at most 4096 characters',
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
        { name: 'x', provider: 'CLOUD_A_CRED_BASED', options: { access_key: 'AKIAIOSFODNN7EXAMPLE' } },
        'options.secret_key is required for provider CLOUD_A_CRED_BASED',
      ],
      [
        'role_arn missing',
        { name: 'x', provider: 'CLOUD_A_ROLE_BASED', options: { regions: 'eu-west-1' } },
        'options.role_arn is required for provider CLOUD_A_ROLE_BASED',
      ],
      [
        'a field the provider does not have',
        {
          name: 'x',
          provider: 'CLOUD_A_ROLE_BASED',
          options: { role_arn: 'arn:aws:iam::123456789012:role/r', external_id: 'e' },
        },
        'options.external_id is not an option of provider CLOUD_A_ROLE_BASED (its options: role_arn, regions)',
      ],
      [
        'a role ARN of the wrong shape',
        { name: 'x', provider: 'CLOUD_A_ROLE_BASED', options: { role_arn: 'arn:cloud-a:iam::1:role/r' } },
        'options.role_arn must be an IAM role ARN (arn:aws:iam::<12 digits>:role/<name>)',
      ],
      [
        'a tenant that is not a UUID',
        { name: 'x', provider: 'CLOUD_B', options: { ...validOptions['CLOUD_B'], tenant_id: 'contoso' } },
        'options.tenant_id must be a UUID',
      ],
      [
        'a key file that is not a service account key',
        { name: 'x', provider: 'CLOUD_C', options: { service_account_key: secretKey } },
        'options.service_account_key must be the JSON key file of a service account ("type": "service_account")',
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
      const missing = await fx.h.send('POST', path, { key: keys['acme']! });
      assert.equal(missing.statusCode, 400);
      assert.deepEqual(
        missing.json(),
        v3Problem(path, 400, 1050, 'Request body missing: this operation needs a JSON body'),
      );
      const garbled = await fx.h.send('POST', path, {
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
        const res = await fx.h.send('POST', path, {
          key: keys['acme']!,
          body,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.statusCode, 400, body);
        assert.deepEqual(res.json(), v3Problem(path, 400, 1051, 'Request body malformed: expected a JSON object'));
      }
    });

    it('needs team_id from a key tied to several teams, and creates in the team it names', async () => {
      const res = await create(credBased('multi'), fx.multi);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), bodyProblem('team_id is required: this API key is tied to several teams'));
      const body = await created(credBased('multi globex', { team_id: teams['globex']!.token }), fx.multi);
      assert.equal(body.team_id, teams['globex']!.token);
      const other = await create(credBased('x', { team_id: teams['pro']!.token }), fx.multi);
      assert.deepEqual(other.json(), bodyProblem('team_id is not a team of this API key'));
    });
  });

  describe('options at rest', () => {
    it('stores the options only sealed with the server key, as one JSON string', async () => {
      const body = await created(credBased('sealed'));
      const row = await fx.h.runtime.database.db
        .selectFrom('connectors')
        .selectAll()
        .where('public_id', '=', body.id)
        .executeTakeFirstOrThrow();
      assert.ok(!row.options_sealed.includes(secretKey), 'the secret key is stored in clear');
      assert.ok(!row.options_sealed.includes(credentials.access_key));
      assert.ok(!JSON.stringify(row).includes(secretKey));
      assert.match(row.options_sealed, /^v1\./);
      assert.deepEqual(JSON.parse(fx.h.runtime.box.decrypt(row.options_sealed)), credentials);
    });

    it('keeps connectors and their options across a restart of the store', async () => {
      const body = await created({
        name: 'durable',
        provider: 'CLOUD_A_ROLE_BASED',
        options: { role_arn: 'arn:aws:iam::123456789012:role/r' },
      });
      // A second process on the same store and server key, as after a restart.
      const core = await openCoreRuntime(fx.h.config, {
        database: await fx.h.openDatabase(),
        log: pino({ level: 'silent' }),
      });
      try {
        const caller: Caller = { keyId: 0, keyHint: '', kind: 'v3', permissions: null, teamIds: [teams['acme']!.id] };
        const found = await findConnector(core.store, caller, body.id);
        assert.ok(found !== undefined);
        assert.equal(found.name, 'durable');
        assert.deepEqual(JSON.parse(core.box.decrypt(found.optionsSealed)), {
          role_arn: 'arn:aws:iam::123456789012:role/r',
        });
      } finally {
        await core.close();
      }
    });
  });

  describe('GET /connectors', () => {
    const session = () => ({ h: fx.h, v3: keys['pager']! });
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
        last_run: queuedRun,
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
        const res = await fx.h.send('GET', `${path}${query}`, { key: keys['pager']! });
        assert.equal(res.statusCode, 400, query);
        assert.deepEqual(res.json(), v3Problem(path, 400, 4150, detail));
      }
    });

    it("lists only the key's teams; a multi-team key sees the connectors of each of its teams", async () => {
      const acme = (await fx.h.send('GET', `${path}?limit=1000`, { key: keys['acme']! })).json() as {
        items: WireConnector[];
      };
      assert.ok(acme.items.length > 0);
      assert.ok(acme.items.every((i) => i.team_id === teams['acme']!.token));
      const globex = (await fx.h.send('GET', `${path}?limit=1000`, { key: keys['globex']! })).json() as {
        items: WireConnector[];
      };
      assert.ok(globex.items.every((i) => i.team_id === teams['globex']!.token));
      const both = (await fx.h.send('GET', `${path}?limit=1000`, { key: fx.multi })).json() as {
        items: WireConnector[];
      };
      assert.equal(both.items.length, acme.items.length + globex.items.length);
      assert.deepEqual(
        new Set(both.items.map((i) => i.team_id)),
        new Set([teams['acme']!.token, teams['globex']!.token]),
      );
    });

    it("refuses another team's cursor", async () => {
      const next = new URL((await page('?limit=1')).pagination.next!);
      const res = await fx.h.send('GET', `${path}${next.search}`, { key: keys['acme']! });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), v3Problem(path, 400, 4150, malformedCursor));
    });
  });
});
