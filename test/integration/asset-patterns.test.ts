import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const token = /^[0-9a-f]{32}$/;
const unknownToken = '0123456789abcdef0123456789abcdef';

interface WirePattern {
  token: string;
  group_token: string;
  pattern: string;
  created: string;
  updated: string;
}

describe('v2 asset patterns', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  let group: string;
  let sibling: string;
  let theirGroup: string;
  let theirPattern: WirePattern;

  const base = (g: string) => `/rest/v2/groups/${g}/assetpatterns/`;
  const create = async (pattern: unknown, g = group, k = key) => h.send('POST', base(g), { key: k, body: { pattern } });
  const list = async (g = group, k = key) => (await h.send('GET', base(g), { key: k })).json() as WirePattern[];

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('acme')).key;
    otherKey = (await h.team('other')).key;
    group = (await h.send('POST', '/rest/v2/groups/', { key, body: { name: 'web' } })).json().token;
    sibling = (await h.send('POST', '/rest/v2/groups/', { key, body: { name: 'sibling' } })).json().token;
    theirGroup = (await h.send('POST', '/rest/v2/groups/', { key: otherKey, body: { name: 'web' } })).json().token;
    theirPattern = (await create('*.other.example', theirGroup, otherKey)).json();
  });
  after(async () => h.close());

  it('lists no patterns of a new group', async () => {
    const res = await h.send('GET', base(group), { key });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), []);
  });

  it('creates patterns with every field, stored in canonical lowercase form', async () => {
    const res = await create('*.Example.COM.');
    assert.equal(res.statusCode, 200);
    const p = res.json() as WirePattern;
    assert.match(p.token, token);
    assert.match(p.created, iso);
    assert.deepEqual(p, {
      token: p.token,
      group_token: group,
      pattern: '*.example.com',
      created: p.created,
      updated: p.created,
    });
    const cidr = (await create('192.0.2.0/24')).json() as WirePattern;
    assert.equal(cidr.pattern, '192.0.2.0/24');
    assert.deepEqual(await list(), [p, cidr]);
    assert.deepEqual(await list(sibling), []);
  });

  it('answers 9012 with the reason for an invalid pattern', async () => {
    const cases: Array<[unknown, string]> = [
      ['', 'the pattern is empty'],
      [undefined, 'pattern is required'],
      ['www .example.com', 'a pattern contains no spaces'],
      ['bücher.example', 'a pattern is ASCII (send international names in punycode)'],
      [
        'ap*.example.com',
        '"ap*.example.com": * must be a whole label (as in *.example.com), not part of the label "ap*"',
      ],
      ['10.0.0.0/40', '"10.0.0.0/40" is not a valid CIDR range'],
    ];
    for (const [pattern, why] of cases) {
      const res = await create(pattern);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), v2Error(9012, `Asset pattern invalid: ${why}`, ['pattern']));
    }
    assert.equal((await list()).length, 2);
  });

  it('answers 1050 without a body and 1051 for a body that is not a JSON object', async () => {
    let res = await h.send('POST', base(group), { key });
    assert.deepEqual(res.json(), v2Error(1050, 'Request body missing: this operation needs a JSON body'));
    res = await h.send('POST', base(group), { key, body: ['*.example.com'] });
    assert.deepEqual(res.json(), v2Error(1051, 'Request body malformed: expected a JSON object'));
  });

  it('updates a pattern with PUT and PATCH; 9012 leaves it unchanged', async () => {
    const [p] = await list();
    let res = await h.send('PUT', `${base(group)}${p!.token}/`, { key, body: { pattern: 'WWW.example.com' } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      { ...(res.json() as WirePattern), updated: '' },
      { ...p, pattern: 'www.example.com', updated: '' },
    );
    res = await h.send('PATCH', `${base(group)}${p!.token}`, { key, body: { pattern: '*.example.com' } });
    assert.equal(res.json().pattern, '*.example.com');
    res = await h.send('PUT', `${base(group)}${p!.token}/`, { key, body: { pattern: '*example.com' } });
    assert.deepEqual(
      res.json(),
      v2Error(
        9012,
        'Asset pattern invalid: "*example.com": * must be a whole label (as in *.example.com), not part of the label "*example"',
        ['pattern'],
      ),
    );
    assert.equal((await list())[0]!.pattern, '*.example.com');
  });

  it("answers 9011 for a malformed pattern token and 9013 for another group's or team's pattern", async () => {
    const [p] = await list();
    for (const method of ['PUT', 'DELETE'] as const) {
      let res = await h.send(method, `${base(group)}nope/`, { key, body: { pattern: 'a.example' } });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res.json(),
        v2Error(9011, 'Asset pattern token malformed: a token is 32 lowercase hexadecimal characters', [
          'assetPatternToken',
        ]),
      );
      for (const [g, t] of [
        [group, unknownToken],
        [sibling, p!.token],
        [group, theirPattern.token],
      ] as const) {
        res = await h.send(method, `${base(g)}${t}/`, { key, body: { pattern: 'a.example' } });
        assert.equal(res.statusCode, 404);
        assert.deepEqual(res.json(), v2Error(9013, 'Asset pattern does not exist', ['assetPatternToken']));
      }
    }
    assert.deepEqual(await list(theirGroup, otherKey), [theirPattern], "another team's pattern is untouched");
  });

  it("answers 9001 and 9003 for the group in every operation, another team's group included", async () => {
    const ops = (g: string) =>
      [
        ['GET', base(g)],
        ['POST', base(g)],
        ['PUT', `${base(g)}${unknownToken}/`],
        ['DELETE', `${base(g)}${unknownToken}/`],
      ] as const;
    for (const [method, path] of ops('not-a-token')) {
      const res = await h.send(method, path, { key, body: { pattern: 'a.example' } });
      assert.deepEqual(
        res.json(),
        v2Error(9001, 'Group token malformed: a token is 32 lowercase hexadecimal characters', ['groupToken']),
        path,
      );
    }
    for (const g of [unknownToken, theirGroup]) {
      for (const [method, path] of ops(g)) {
        const res = await h.send(method, path, { key, body: { pattern: 'a.example' } });
        assert.equal(res.statusCode, 404);
        assert.deepEqual(res.json(), v2Error(9003, 'Group does not exist', ['groupToken']), path);
      }
    }
  });

  it('deletes a pattern', async () => {
    const [p, cidr] = await list();
    const res = await h.send('DELETE', `${base(group)}${cidr!.token}/`, {
      key,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {});
    assert.deepEqual(await list(), [p]);
    const again = await h.send('DELETE', `${base(group)}${cidr!.token}/`, { key });
    assert.deepEqual(again.json(), v2Error(9013, 'Asset pattern does not exist', ['assetPatternToken']));
  });
});
