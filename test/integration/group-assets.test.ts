import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';

const unknownToken = '0123456789abcdef0123456789abcdef';

/** The inventory of the team, in the order it is added (www.example.com becomes a subdomain). */
const names = [
  'example.com',
  'www.example.com',
  'a.b.example.com',
  'api.eu.example.com',
  'example.org',
  'notexample.com',
  'xn--bcher-kva.example',
  'shop.xn--bcher-kva.example',
  '192.0.2.10',
  '198.51.100.1',
  '2001:db8::1',
];

/** pattern → the names of the inventory it selects, in inventory order. */
const table: Record<string, string[]> = {
  'example.com': ['example.com'],
  '*.example.com': ['www.example.com', 'a.b.example.com', 'api.eu.example.com'],
  'api.*.example.com': ['api.eu.example.com'],
  '*.*.example.com': ['a.b.example.com', 'api.eu.example.com'],
  'EXAMPLE.*': ['example.com', 'example.org'],
  '*.xn--bcher-kva.example': ['shop.xn--bcher-kva.example'],
  'nothing.example': [],
  '192.0.2.10': ['192.0.2.10'],
  '192.0.2.0/24': ['192.0.2.10'],
  '2001:DB8:0::1': ['2001:db8::1'],
  '2001:db8::/32': ['2001:db8::1'],
};

describe('v2 assets of groups (experimental)', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  const groupOf: Record<string, string> = {};
  let theirGroup: string;

  async function group(name: string, patterns: string[], k = key): Promise<string> {
    const token = (await h.send('POST', '/rest/v2/groups/', { key: k, body: { name } })).json().token as string;
    for (const pattern of patterns)
      assert.equal(
        (await h.send('POST', `/rest/v2/groups/${token}/assetpatterns/`, { key: k, body: { pattern } })).statusCode,
        200,
      );
    return token;
  }
  const assetsOf = async (body: unknown, query = '', k = key) =>
    h.send('POST', `/rest/v2/groups/assets/${query}`, { key: k, body });
  const namesOf = async (tokens: string[], query = '') =>
    ((await assetsOf(tokens, query)).json().assets as Array<{ name: string }>).map((a) => a.name);

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('acme')).key;
    otherKey = (await h.team('other')).key;
    for (const name of names)
      assert.ok([200, 202].includes((await h.send('POST', '/rest/v2/assets/', { key, body: { name } })).statusCode));
    await h.send('POST', '/rest/v2/assets/', { key: otherKey, body: { name: 'theirs.example.com' } });
    let i = 0;
    for (const pattern of Object.keys(table)) groupOf[pattern] = await group(`g${i++}`, [pattern]);
    theirGroup = await group('theirs', ['*.example.com'], otherKey);
  });
  after(async () => h.close());

  for (const [pattern, expected] of Object.entries(table)) {
    it(`${pattern} selects ${expected.length === 0 ? 'nothing' : expected.join(', ')}`, async () => {
      assert.deepEqual(await namesOf([groupOf[pattern]!]), expected);
    });
  }

  it('answers the asset list object with the assets as the asset listings show them', async () => {
    const res = await assetsOf([groupOf['EXAMPLE.*']]);
    assert.equal(res.statusCode, 200);
    const all = (await h.send('GET', '/rest/v2/assets/?include_subdomains=true', { key })).json().assets as Array<{
      name: string;
    }>;
    const body = res.json();
    assert.deepEqual(body, {
      assets: all.filter((a) => ['example.com', 'example.org'].includes(a.name)),
      has_more: false,
      current_marker: body.current_marker,
    });
    assert.equal(typeof body.current_marker, 'string');
  });

  it('selects the union of several groups once each, in inventory order', async () => {
    assert.deepEqual(
      await namesOf([
        groupOf['192.0.2.0/24']!,
        groupOf['*.example.com']!,
        groupOf['example.com']!,
        groupOf['example.com']!,
      ]),
      ['example.com', 'www.example.com', 'a.b.example.com', 'api.eu.example.com', '192.0.2.10'],
    );
  });

  it('answers an empty list for no groups and for groups without patterns', async () => {
    const empty = await group('empty', []);
    for (const body of [[], [empty]]) {
      const res = await assetsOf(body);
      assert.deepEqual(res.json(), { assets: [], has_more: false, current_marker: res.json().current_marker });
    }
  });

  it('pages with markers bound to the set of groups, stable under inserts', async () => {
    const everything = await group('everything', ['*', '0.0.0.0/0', '::/0']);
    const seen: string[] = [];
    let marker = '';
    let pages = 0;
    for (;;) {
      const body = (await assetsOf([everything], `?pageSize=4&marker=${encodeURIComponent(marker)}`)).json();
      seen.push(...body.assets.map((a: { name: string }) => a.name));
      if (pages++ === 0) await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'late.example.net' } });
      if (!body.has_more) {
        assert.equal('next_marker' in body, false);
        break;
      }
      marker = body.next_marker;
    }
    assert.deepEqual(seen, [...names, 'late.example.net']);
    const first = (await assetsOf([everything], '?page_size=2')).json();
    const res = await assetsOf([groupOf['example.com']], `?marker=${encodeURIComponent(first.next_marker)}`);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), v2Error(4150, 'marker is not a marker of this listing', ['marker']));
    const again = (
      await assetsOf([everything, everything], `?pageSize=2&marker=${encodeURIComponent(first.current_marker)}`)
    ).json();
    assert.deepEqual(again.assets, first.assets, 'the same set of groups, however written, shares markers');
  });

  it('answers 1050 without a body, 1051 for a body that is not an array, and 4150 for a bad page size', async () => {
    let res = await h.send('POST', '/rest/v2/groups/assets/', { key });
    assert.deepEqual(res.json(), v2Error(1050, 'Request body missing: this operation needs a JSON body'));
    res = await assetsOf({ groups: [] });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), v2Error(1051, 'Request body malformed: expected a JSON array of group tokens'));
    res = await assetsOf([], '?pageSize=1001');
    assert.deepEqual(res.json(), v2Error(4150, 'pageSize must be an integer from 1 to 1000', ['pageSize']));
  });

  it("answers 9001 for a malformed token and 9003 for an unknown or another team's group", async () => {
    for (const body of [['nope'], [groupOf['example.com'], 42]]) {
      const res = await assetsOf(body);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res.json(),
        v2Error(9001, 'Group token malformed: a token is 32 lowercase hexadecimal characters', ['groupTokens']),
      );
    }
    for (const t of [unknownToken, theirGroup]) {
      const res = await assetsOf([groupOf['example.com'], t]);
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), v2Error(9003, `Group does not exist: ${t}`, ['groupTokens']));
    }
    const theirs = (await assetsOf([theirGroup], '', otherKey)).json();
    assert.deepEqual(
      theirs.assets.map((a: { name: string }) => a.name),
      ['theirs.example.com'],
      "a team's groups select only its own assets",
    );
  });
});

describe('v2 assets of groups over a large inventory', () => {
  let h: Harness;
  let key: string;
  const total = 1100;

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('big')).key;
    const team = (await h.runtime.store.teams.findByName('big'))!;
    const at = Date.now();
    const rows = Array.from({ length: total }, (_, i) => ({
      team_id: team.id,
      token: `${i.toString(16).padStart(8, '0')}${'0'.repeat(24)}`,
      uuid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
      name: `h${i}.${i % 7 === 0 ? 'hit' : 'miss'}.example`,
      kind: 'domain' as const,
      port: null,
      is_root: 1,
      root_id: null,
      status: 'unverified' as const,
      added_by: '["manual"]',
      monitored: 0,
      settings: null,
      created: at,
      updated: at,
      discovered: at,
      last_seen: at,
      verified_at: null,
      checked_at: null,
    }));
    for (let i = 0; i < rows.length; i += 250)
      await h.runtime.database.db
        .insertInto('assets')
        .values(rows.slice(i, i + 250))
        .execute();
  });
  after(async () => h.close());

  it('finds every sparse match across scan chunks and pages', async () => {
    const group = (await h.send('POST', '/rest/v2/groups/', { key, body: { name: 'hits' } })).json().token;
    await h.send('POST', `/rest/v2/groups/${group}/assetpatterns/`, { key, body: { pattern: '*.hit.example' } });
    const expected = Array.from({ length: total }, (_, i) => i)
      .filter((i) => i % 7 === 0)
      .map((i) => `h${i}.hit.example`);
    const seen: string[] = [];
    const sizes: number[] = [];
    let marker = '';
    for (;;) {
      const body = (
        await h.send('POST', `/rest/v2/groups/assets/?pageSize=40&marker=${encodeURIComponent(marker)}`, {
          key,
          body: [group],
        })
      ).json();
      seen.push(...body.assets.map((a: { name: string }) => a.name));
      sizes.push(body.assets.length);
      if (!body.has_more) break;
      marker = body.next_marker;
    }
    assert.deepEqual(seen, expected);
    assert.deepEqual(sizes, [40, 40, 40, 38]);
    const whole = (await h.send('POST', '/rest/v2/groups/assets/?pageSize=1000', { key, body: [group] })).json();
    assert.equal(whole.assets.length, expected.length);
    assert.equal(whole.has_more, false);
  });
});
