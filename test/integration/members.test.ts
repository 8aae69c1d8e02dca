import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OperatorError } from '../../src/core/errors/operator-error.ts';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const token = /^[0-9a-f]{32}$/;

interface WireMember {
  user_token: string;
  email: string;
  created: string;
  [key: string]: unknown;
}

describe('v2 members', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('acme')).key;
    otherKey = (await h.team('other', { plan: 'starter' })).key;
  });
  after(async () => h.close());

  const invite = async (body: unknown, k = key) => h.send('POST', '/rest/v2/members/', { key: k, body });
  const list = async (k = key) => (await h.send('GET', '/rest/v2/members/', { key: k })).json() as WireMember[];

  /** A member without its generated fields, which are checked for shape. */
  function stable(member: WireMember) {
    assert.match(member.user_token, token);
    assert.match(member.created, iso);
    return { ...member, user_token: '<token>', created: '<time>' };
  }

  it('lists no members for a new team', async () => {
    const res = await h.send('GET', '/rest/v2/members/', { key });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), []);
  });

  it('invites members as pending members with every field, roles in any case', async () => {
    const res = await invite([
      { email: ' Jane@Example.COM ', role: 'Admin' },
      { email: 'bob@example.com', role: 'viewer' },
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { invitation_errors: [] });
    const pending = {
      first_name: '',
      last_name: '',
      state: 'pending',
      authentication: 'none',
      user_token: '<token>',
      created: '<time>',
    };
    assert.deepEqual((await list()).map(stable), [
      { ...pending, email: 'jane@example.com', role: 'Admin' },
      { ...pending, email: 'bob@example.com', role: 'Viewer' },
    ]);
  });

  it('reports each invitation that cannot be made and makes the others', async () => {
    await h.admin('member', 'accept', 'bob@example.com', '--team', 'acme');
    const res = await invite([
      { email: 'not-an-address', role: 'Editor' },
      { email: 'JANE@example.com', role: 'Editor' },
      { email: 'bob@example.com', role: 'Editor' },
      { email: 'carol@example.com', role: 'Editor' },
      { email: 'Carol@Example.com', role: 'Viewer' },
      { email: 42, role: 'Editor' },
      { role: 'Editor' },
      { email: 'dave@bücher.example', role: 'Editor' },
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      invitation_errors: [
        { email: 'not-an-address', reason: 'malformed e-mail address' },
        { email: 'JANE@example.com', reason: 'already invited' },
        { email: 'bob@example.com', reason: 'already a member of the team' },
        { email: 'Carol@Example.com', reason: 'duplicated in the request' },
        { email: '42', reason: 'malformed e-mail address' },
        { email: '', reason: 'malformed e-mail address' },
        { email: 'dave@bücher.example', reason: 'malformed e-mail address' },
      ],
    });
    const members = await list();
    assert.deepEqual(
      members.map((m) => [m.email, m.role, m['state']]),
      [
        ['jane@example.com', 'Admin', 'pending'],
        ['bob@example.com', 'Viewer', 'active'],
        ['carol@example.com', 'Editor', 'pending'],
      ],
    );
  });

  it('accepts a single invitation object as a one-item array', async () => {
    const res = await invite({ email: 'erin@example.com', role: 'Editor' });
    assert.deepEqual(res.json(), { invitation_errors: [] });
    assert.equal(
      (await list()).some((m) => m.email === 'erin@example.com'),
      true,
    );
  });

  it('answers 8101 for a role other than Admin, Editor or Viewer and invites nobody', async () => {
    const before = await list();
    let res = await invite([
      { email: 'frank@example.com', role: 'Editor' },
      { email: 'gina@example.com', role: 'Owner' },
    ]);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(
      res.json(),
      v2Error(8101, 'Role of invited member malformed: invitation 1 has role "Owner"; use Admin, Editor or Viewer', [
        'role',
      ]),
    );
    res = await invite([{ email: 'frank@example.com' }]);
    assert.deepEqual(
      res.json(),
      v2Error(8101, 'Role of invited member malformed: invitation 0 has no role; use Admin, Editor or Viewer', [
        'role',
      ]),
    );
    assert.deepEqual(await list(), before);
  });

  it('answers 1050 without a body and 1051 for a body that is not an array of objects', async () => {
    let res = await h.send('POST', '/rest/v2/members/', { key });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), v2Error(1050, 'Request body missing: this operation needs a JSON body'));
    res = await invite('[{"email":');
    assert.equal(res.json().code, 1051);
    res = await invite('"jane@example.com"');
    assert.deepEqual(res.json(), v2Error(1051, 'Request body malformed: expected a JSON array of {email, role}'));
    res = await invite(['jane@example.com']);
    assert.deepEqual(res.json(), v2Error(1051, 'Request body malformed: invitation 0 is not an object {email, role}'));
    res = await invite(Array.from({ length: 1001 }, (_, i) => ({ email: `u${i}@example.com`, role: 'Viewer' })));
    assert.deepEqual(res.json(), v2Error(1051, 'Request body malformed: at most 1000 invitations per request'));
  });

  it('keeps teams apart: another team neither sees these members nor is blocked by their addresses', async () => {
    assert.deepEqual(await list(otherKey), []);
    const res = await invite([{ email: 'jane@example.com', role: 'Viewer' }], otherKey);
    assert.deepEqual(res.json(), { invitation_errors: [] });
    assert.deepEqual(
      (await list(otherKey)).map((m) => m.email),
      ['jane@example.com'],
    );
    assert.equal((await list()).find((m) => m.email === 'jane@example.com')?.['role'], 'Admin');
  });

  it('makes one member of concurrent invitations of the same address', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => invite([{ email: 'race@example.com', role: 'Viewer' }])),
    );
    assert.deepEqual(
      results.map((r) => r.statusCode),
      [200, 200, 200, 200, 200],
    );
    const errors = results.flatMap((r) => r.json().invitation_errors);
    assert.deepEqual(errors, Array(4).fill({ email: 'race@example.com', reason: 'already invited' }));
    assert.equal((await list()).filter((m) => m.email === 'race@example.com').length, 1);
  });

  describe('perimeter admin member', () => {
    it('lists the members of a team', async () => {
      const listed = JSON.parse(await h.admin('member', 'list', '--team', 'acme', '--json')) as Array<
        Record<string, unknown>
      >;
      assert.deepEqual(
        listed.map((m) => [m['email'], m['role'], m['state']]),
        [
          ['jane@example.com', 'Admin', 'pending'],
          ['bob@example.com', 'Viewer', 'active'],
          ['carol@example.com', 'Editor', 'pending'],
          ['erin@example.com', 'Editor', 'pending'],
          ['race@example.com', 'Viewer', 'pending'],
        ],
      );
      assert.match(await h.admin('member', 'list', '--team', 'acme'), /^jane@example.com Admin pending [0-9a-f]{32}$/m);
      const empty = await h.team('empty');
      assert.ok(empty.key);
      assert.equal(await h.admin('member', 'list', '--team', 'empty'), 'no members');
    });

    it('accepts an invitation on behalf of the user, who then reads as active', async () => {
      const accepted = JSON.parse(
        await h.admin(
          'member',
          'accept',
          'Jane@example.com',
          '--team',
          'acme',
          '--first-name',
          'Jane',
          '--last-name',
          'Doe',
          '--authentication',
          '2fa',
          '--json',
        ),
      );
      assert.deepEqual(
        { ...accepted, user_token: '', created: '' },
        {
          email: 'jane@example.com',
          user_token: '',
          role: 'Admin',
          state: 'active',
          first_name: 'Jane',
          last_name: 'Doe',
          authentication: '2fa',
          created: '',
        },
      );
      const jane = (await list()).find((m) => m.email === 'jane@example.com')!;
      assert.deepEqual(stable(jane), {
        user_token: '<token>',
        first_name: 'Jane',
        last_name: 'Doe',
        email: 'jane@example.com',
        role: 'Admin',
        state: 'active',
        authentication: '2fa',
        created: '<time>',
      });
      assert.equal('last_login' in jane, false, 'last_login is absent until a login');
      assert.equal(
        await h.admin('member', 'accept', 'carol@example.com', '--team', 'acme'),
        'carol@example.com is an active Editor of team acme',
      );
      assert.equal((await list()).find((m) => m.email === 'carol@example.com')?.['authentication'], 'password');
    });

    it('refuses to accept what cannot be accepted', async () => {
      const refuses = (argv: string[], message: RegExp) =>
        assert.rejects(h.admin(...argv), (e: unknown) => e instanceof OperatorError && message.test(e.message));
      await refuses(
        ['member', 'accept', 'jane@example.com', '--team', 'acme'],
        /jane@example.com is already an active member of team "acme"/,
      );
      await refuses(
        ['member', 'accept', 'nobody@example.com', '--team', 'acme'],
        /no invitation for nobody@example.com in team "acme"/,
      );
      await refuses(
        ['member', 'accept', 'erin@example.com', '--team', 'other'],
        /no invitation for erin@example.com in team "other"/,
      );
      await refuses(
        ['member', 'accept', 'erin@example.com', '--team', 'acme', '--authentication', 'none'],
        /unknown authentication "none"/,
      );
      await refuses(
        ['member', 'accept', 'not-an-address', '--team', 'acme'],
        /"not-an-address" is not an e-mail address/,
      );
      await refuses(['member', 'accept', 'erin@example.com', '--team', 'nowhere'], /no team named "nowhere"/);
      await refuses(['member', 'accept', 'erin@example.com'], /member accept needs the EMAIL and --team NAME/);
      await refuses(['member', 'list'], /member list needs --team NAME/);
    });
  });
});
