import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const token = /^[0-9a-f]{32}$/;
const unknownToken = '0123456789abcdef0123456789abcdef';

interface WireGroup {
  token: string;
  name: string;
  description: string;
  created: string;
  updated: string;
}

describe('v2 groups', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  let theirGroup: WireGroup;

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('acme')).key;
    otherKey = (await h.team('other')).key;
    theirGroup = (await h.send('POST', '/rest/v2/groups/', { key: otherKey, body: { name: 'Theirs' } })).json();
  });
  after(async () => h.close());

  const create = async (body: unknown, k = key) => h.send('POST', '/rest/v2/groups/', { key: k, body });

  it('lists no groups for a new team', async () => {
    const res = await h.send('GET', '/rest/v2/groups/', { key });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), []);
  });

  it('creates a group with every field, description optional', async () => {
    const res = await create({ name: 'Web team_1', description: 'Public web properties' });
    assert.equal(res.statusCode, 200);
    const group = res.json() as WireGroup;
    assert.match(group.token, token);
    assert.match(group.created, iso);
    assert.deepEqual(group, {
      token: group.token,
      name: 'Web team_1',
      description: 'Public web properties',
      created: group.created,
      updated: group.created,
    });
    const bare = (await create({ name: 'ops' })).json() as WireGroup;
    assert.equal(bare.description, '');
    const listed = (await h.send('GET', '/rest/v2/groups/', { key })).json() as WireGroup[];
    assert.deepEqual(listed, [group, bare]);
  });

  it('answers 9002 for each rule of the name and the description', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{}, 'Group name invalid: name is required and must be a string', 'name'],
      [{ name: 7 }, 'Group name invalid: name is required and must be a string', 'name'],
      [{ name: '' }, 'Group name invalid: the name is empty', 'name'],
      [{ name: '   ' }, 'Group name invalid: the name is empty', 'name'],
      [{ name: 'a'.repeat(255) }, 'Group name invalid: the name must be shorter than 255 characters', 'name'],
      [
        { name: 'web/team' },
        'Group name invalid: the name may contain only letters, digits, underscore, dash and space',
        'name',
      ],
      [
        { name: 'équipe' },
        'Group name invalid: the name may contain only letters, digits, underscore, dash and space',
        'name',
      ],
      [{ name: 'WEB TEAM_1' }, 'Group name invalid: a group with that name exists', 'name'],
      [
        { name: 'desc', description: 'd'.repeat(255) },
        'Group description invalid: the description must be shorter than 255 characters',
        'description',
      ],
      [{ name: 'desc', description: ['x'] }, 'Group description invalid: description must be a string', 'description'],
    ];
    for (const [body, message, parameter] of cases) {
      const res = await create(body);
      assert.equal(res.statusCode, 400, message);
      assert.deepEqual(res.json(), v2Error(9002, message, [parameter]));
    }
    assert.equal(
      (await create({ name: 'a'.repeat(254), description: 'd'.repeat(254) })).statusCode,
      200,
      '254 characters are allowed',
    );
    assert.equal((await create({ name: 'Web team_1' }, otherKey)).statusCode, 200, 'names are unique per team only');
  });

  it('creates one group of concurrent creations with the same name', async () => {
    const results = await Promise.all(['Race', 'race', 'RACE', 'Race'].map((name) => create({ name })));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 400, 400, 400]);
    for (const r of results.filter((x) => x.statusCode === 400))
      assert.deepEqual(r.json(), v2Error(9002, 'Group name invalid: a group with that name exists', ['name']));
  });

  it('answers 1050 without a body and 1051 for a body that is not a JSON object', async () => {
    let res = await h.send('POST', '/rest/v2/groups/', { key });
    assert.deepEqual(res.json(), v2Error(1050, 'Request body missing: this operation needs a JSON body'));
    res = await create(['ops']);
    assert.deepEqual(res.json(), v2Error(1051, 'Request body malformed: expected a JSON object'));
  });

  describe('update and delete', () => {
    let group: WireGroup;
    before(async () => {
      group = (await create({ name: 'Editable', description: 'first' })).json();
    });

    it('updates the given fields with PUT and PATCH, keeping the others', async () => {
      let res = await h.send('PUT', `/rest/v2/groups/${group.token}/`, { key, body: { description: 'second' } });
      assert.equal(res.statusCode, 200);
      const updated = res.json() as WireGroup;
      assert.deepEqual({ ...updated, updated: '' }, { ...group, description: 'second', updated: '' });
      assert.match(updated.updated, iso);
      res = await h.send('PATCH', `/rest/v2/groups/${group.token}`, { key, body: { name: 'EDITABLE renamed' } });
      assert.deepEqual(
        { ...(res.json() as WireGroup), updated: '' },
        { ...group, name: 'EDITABLE renamed', description: 'second', updated: '' },
      );
      res = await h.send('PUT', `/rest/v2/groups/${group.token}/`, { key, body: { name: 'editable RENAMED' } });
      assert.equal(res.statusCode, 200, 'a group may change the case of its own name');
      res = await h.send('PUT', `/rest/v2/groups/${group.token}/`, { key, body: { name: 'ops' } });
      assert.deepEqual(res.json(), v2Error(9002, 'Group name invalid: a group with that name exists', ['name']));
      res = await h.send('PUT', `/rest/v2/groups/${group.token}/`, { key, body: { name: '' } });
      assert.deepEqual(res.json(), v2Error(9002, 'Group name invalid: the name is empty', ['name']));
      res = await h.send('PUT', `/rest/v2/groups/${group.token}/`, { key });
      assert.deepEqual(res.json(), v2Error(1050, 'Request body missing: this operation needs a JSON body'));
    });

    it("answers 9001 for a malformed token and 9003 for an unknown or another team's group", async () => {
      for (const method of ['PUT', 'DELETE'] as const) {
        let res = await h.send(method, '/rest/v2/groups/not-a-token/', { key, body: { name: 'x' } });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(
          res.json(),
          v2Error(9001, 'Group token malformed: a token is 32 lowercase hexadecimal characters', ['groupToken']),
        );
        for (const t of [unknownToken, theirGroup.token]) {
          res = await h.send(method, `/rest/v2/groups/${t}/`, { key, body: { name: 'x' } });
          assert.equal(res.statusCode, 404);
          assert.deepEqual(res.json(), v2Error(9003, 'Group does not exist', ['groupToken']));
        }
      }
      const theirs = (await h.send('GET', '/rest/v2/groups/', { key: otherKey })).json() as WireGroup[];
      assert.equal(theirs[0]!.name, 'Theirs', "another team's group is untouched");
    });

    it('deletes a group with its members and patterns, accepting an empty JSON body', async () => {
      await h.send('POST', '/rest/v2/members/', { key, body: [{ email: 'del@example.com', role: 'Viewer' }] });
      const member = ((await h.send('GET', '/rest/v2/members/', { key })).json() as Array<{ user_token: string }>)[0]!;
      assert.equal(
        (
          await h.send('POST', `/rest/v2/groups/${group.token}/members/`, {
            key,
            body: { userToken: member.user_token },
          })
        ).statusCode,
        200,
      );
      assert.equal(
        (
          await h.send('POST', `/rest/v2/groups/${group.token}/assetpatterns/`, {
            key,
            body: { pattern: '*.example.com' },
          })
        ).statusCode,
        200,
      );
      const res = await h.send('DELETE', `/rest/v2/groups/${group.token}/`, {
        key,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {});
      const db = h.runtime.database.db;
      assert.deepEqual(await db.selectFrom('group_members').select('id').execute(), []);
      assert.deepEqual(await db.selectFrom('asset_patterns').select('id').execute(), []);
      assert.equal(
        ((await h.send('GET', '/rest/v2/groups/', { key })).json() as WireGroup[]).some((g) => g.token === group.token),
        false,
      );
      const again = await h.send('DELETE', `/rest/v2/groups/${group.token}/`, { key });
      assert.deepEqual(again.json(), v2Error(9003, 'Group does not exist', ['groupToken']));
    });
  });
});
