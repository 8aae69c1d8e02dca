import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const token = /^[0-9a-f]{32}$/;
const unknownToken = '0123456789abcdef0123456789abcdef';

interface WireGroupMember {
  token: string;
  group_token: string;
  user_token: string;
  created: string;
  updated: string;
}

describe('v2 group members', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  let group: string;
  let otherGroup: string;
  let theirGroup: string;
  const users: Record<string, string> = {};

  async function setUpTeam(k: string, emails: string[]) {
    await h.send('POST', '/rest/v2/members/', { key: k, body: emails.map((email) => ({ email, role: 'Editor' })) });
    for (const m of (await h.send('GET', '/rest/v2/members/', { key: k })).json() as Array<{
      email: string;
      user_token: string;
    }>)
      users[m.email] = m.user_token;
  }

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('acme')).key;
    otherKey = (await h.team('other')).key;
    await setUpTeam(key, ['ann@acme.example', 'ben@acme.example']);
    await setUpTeam(otherKey, ['zoe@other.example']);
    await h.admin('member', 'accept', 'ann@acme.example', '--team', 'acme');
    group = (await h.send('POST', '/rest/v2/groups/', { key, body: { name: 'red' } })).json().token;
    otherGroup = (await h.send('POST', '/rest/v2/groups/', { key, body: { name: 'blue' } })).json().token;
    theirGroup = (await h.send('POST', '/rest/v2/groups/', { key: otherKey, body: { name: 'red' } })).json().token;
  });
  after(async () => h.close());

  const add = async (body: unknown, g = group, k = key) =>
    h.send('POST', `/rest/v2/groups/${g}/members/`, { key: k, body });
  const list = async (g = group, k = key) =>
    (await h.send('GET', `/rest/v2/groups/${g}/members/`, { key: k })).json() as WireGroupMember[];

  it('lists no members of a new group', async () => {
    const res = await h.send('GET', `/rest/v2/groups/${group}/members/`, { key });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), []);
  });

  it('adds active and pending members of the team, with every field, by userToken or user_token', async () => {
    const res = await add({ userToken: users['ann@acme.example'] });
    assert.equal(res.statusCode, 200);
    const ann = res.json() as WireGroupMember;
    assert.match(ann.token, token);
    assert.match(ann.created, iso);
    assert.deepEqual(ann, {
      token: ann.token,
      group_token: group,
      user_token: users['ann@acme.example'],
      created: ann.created,
      updated: ann.created,
    });
    const ben = (await add({ user_token: users['ben@acme.example'] })).json() as WireGroupMember;
    assert.equal(ben.user_token, users['ben@acme.example']);
    assert.deepEqual(await list(), [ann, ben]);
    assert.deepEqual(await list(otherGroup), [], 'other groups are unaffected');
  });

  it('answers the existing group member when the user is in the group already', async () => {
    const [ann] = await list();
    const res = await add({ userToken: users['ann@acme.example'] });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), ann);
    assert.equal((await list()).length, 2);
  });

  it('answers 9022 for a malformed user token and 9024 for a user outside the team', async () => {
    for (const body of [{}, { userToken: 'nope' }, { userToken: 42 }, { userToken: unknownToken.toUpperCase() }]) {
      const res = await add(body);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res.json(),
        v2Error(9022, 'User token of the group member malformed: a token is 32 lowercase hexadecimal characters', [
          'userToken',
        ]),
      );
    }
    for (const userToken of [unknownToken, users['zoe@other.example']]) {
      const res = await add({ userToken });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), v2Error(9024, 'User does not belong to the team', ['userToken']));
    }
  });

  it('reads userToken before user_token (the older name stands in only for an absent or null userToken)', async () => {
    const malformed = v2Error(
      9022,
      'User token of the group member malformed: a token is 32 lowercase hexadecimal characters',
      ['userToken'],
    );
    assert.deepEqual((await add({ userToken: 'nope', user_token: users['ben@acme.example'] })).json(), malformed);
    assert.deepEqual((await add({ userToken: null, user_token: 'nope' })).json(), malformed);
    const res = await add({ userToken: null, user_token: users['ben@acme.example'] }, otherGroup);
    assert.equal(res.statusCode, 200);
    assert.equal((res.json() as WireGroupMember).user_token, users['ben@acme.example']);
    await h.send('DELETE', `/rest/v2/groups/${otherGroup}/members/${(res.json() as WireGroupMember).token}/`, { key });
  });

  it('answers the unknown group (9003) before a malformed body (9022)', async () => {
    const res = await add({ userToken: 'nope' }, theirGroup);
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), v2Error(9003, 'Group does not exist', ['groupToken']));
  });

  it("answers 9001 and 9003 for the group in every operation, another team's group included", async () => {
    const paths = (g: string) =>
      [
        ['GET', `/rest/v2/groups/${g}/members/`],
        ['POST', `/rest/v2/groups/${g}/members/`],
        ['DELETE', `/rest/v2/groups/${g}/members/${unknownToken}/`],
      ] as const;
    for (const [method, path] of paths('not-a-token')) {
      const res = await h.send(method, path, { key, body: { userToken: users['ann@acme.example'] } });
      assert.deepEqual(
        res.json(),
        v2Error(9001, 'Group token malformed: a token is 32 lowercase hexadecimal characters', ['groupToken']),
        path,
      );
    }
    for (const g of [unknownToken, theirGroup]) {
      for (const [method, path] of paths(g)) {
        const res = await h.send(method, path, { key, body: { userToken: users['ann@acme.example'] } });
        assert.equal(res.statusCode, 404);
        assert.deepEqual(res.json(), v2Error(9003, 'Group does not exist', ['groupToken']), path);
      }
    }
  });

  it('answers 1050 without a body and 1051 for a body that is not a JSON object', async () => {
    let res = await h.send('POST', `/rest/v2/groups/${group}/members/`, { key });
    assert.deepEqual(res.json(), v2Error(1050, 'Request body missing: this operation needs a JSON body'));
    res = await add([users['ann@acme.example']]);
    assert.deepEqual(res.json(), v2Error(1051, 'Request body malformed: expected a JSON object'));
  });

  it('removes a member from the group; 9021 for a malformed token, 9023 for one not in this group', async () => {
    const [ann, ben] = await list();
    const theirMember = (
      await add({ userToken: users['zoe@other.example'] }, theirGroup, otherKey)
    ).json() as WireGroupMember;
    let res = await h.send('DELETE', `/rest/v2/groups/${group}/members/not-a-token/`, { key });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(
      res.json(),
      v2Error(9021, 'Group member token malformed: a token is 32 lowercase hexadecimal characters', [
        'groupMemberToken',
      ]),
    );
    for (const [g, t] of [
      [group, unknownToken],
      [otherGroup, ann!.token],
      [group, theirMember.token],
      [theirGroup, theirMember.token],
    ] as const) {
      res = await h.send('DELETE', `/rest/v2/groups/${g}/members/${t}/`, { key });
      assert.equal(res.statusCode, 404);
      const expected =
        g === theirGroup
          ? v2Error(9003, 'Group does not exist', ['groupToken'])
          : v2Error(9023, 'Group member does not exist', ['groupMemberToken']);
      assert.deepEqual(res.json(), expected);
    }
    res = await h.send('DELETE', `/rest/v2/groups/${group}/members/${ann!.token}/`, { key });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {});
    assert.deepEqual(await list(), [ben]);
    assert.deepEqual(await list(theirGroup, otherKey), [theirMember], "another team's group member is untouched");
    res = await h.send('DELETE', `/rest/v2/groups/${group}/members/${ann!.token}`, { key });
    assert.deepEqual(res.json(), v2Error(9023, 'Group member does not exist', ['groupMemberToken']));
  });
});
