import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { escapeHtml } from '../../src/http/console/html.ts';
import { ConsoleClient, signedInMember } from '../support/console-client.ts';
import { createHarness, type Harness } from '../support/harness.ts';

/** The page shows the message (and the code, when the API has one). */
function shows(res: LightMyRequestResponse, message: string, code?: number): void {
  assert.ok(res.body.includes(escapeHtml(message)), `the page shows "${message}"`);
  if (code !== undefined) assert.ok(res.body.includes(`(error ${code})`), `the page shows error ${code}`);
}

const userOf = (body: string, email: string): string =>
  new RegExp(`<tr data-user="([0-9a-f]{32})">\\s*<td class="wrap">${email.replace(/\./g, '\\.')}`).exec(body)![1]!;

describe('console: team', () => {
  let h: Harness;
  let key: string;
  let v3key: string;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  let rival: ConsoleClient;
  let small: ConsoleClient;

  /** What the API answers for the same bad value (v2: the code and message of its error body). */
  const apiError = async (method: string, url: string, body: unknown) => {
    const res = await h.send(method, url, { key: url.startsWith('/rest/v3') ? v3key : key, body });
    const json = res.json();
    return url.startsWith('/rest/v3')
      ? { code: Number(/\/problems\/(\d+)/.exec(json.type)![1]), message: json.detail as string }
      : { code: json.code as number, message: json.message as string };
  };

  before(async () => {
    h = await createHarness();
    key = (await h.team('acme', { plan: 'enterprise' })).key;
    v3key = (await h.key('acme', '--v3')).key;
    await h.team('rivals', { plan: 'enterprise' });
    await h.team('small', { plan: 'starter' });
    admin = await signedInMember(h, 'acme', 'admin@acme.test', 'Admin');
    viewer = await signedInMember(h, 'acme', 'viewer@acme.test', 'Viewer');
    await h.admin('member', 'invite', 'editor@acme.test', '--team', 'acme', '--role', 'Editor');
    rival = await signedInMember(h, 'rivals', 'admin@rivals.test', 'Admin');
    small = await signedInMember(h, 'small', 'admin@small.test', 'Admin');
  });
  after(() => h.close());

  it('lets a Viewer read every Team tab without a form, and refuses its forged changes with 403', async () => {
    for (const path of ['/team', '/team/groups', '/team/keys', '/team/connectors']) {
      const res = await viewer.get(path);
      assert.equal(res.statusCode, 200, path);
      assert.doesNotMatch(res.body, /<form method="post" action="\/team/, path);
      assert.match(res.body, /Your role \(Viewer\) reads/);
    }
    const page = await viewer.get('/team');
    assert.match(page.body, /admin@acme\.test/);
    assert.match(page.body, /editor@acme\.test/);
    for (const [path, fields] of [
      ['/team/members', { email: 'x@acme.test', role: 'Admin' }],
      ['/team/groups', { name: 'ops' }],
      ['/team/keys', { kind: 'v2' }],
      ['/team/connectors', { name: 'c', provider: 'CLOUD_B' }],
    ] as const) {
      const res = await viewer.post(path, fields);
      assert.equal(res.statusCode, 403, path);
      assert.match(res.body, /Your role \(Viewer\) does not allow this/);
    }
  });

  it('invites a member and shows the one-time link once; the link sets the password', async () => {
    await admin.get('/team');
    const res = await admin.post('/team/members', { email: 'New@Acme.test', role: 'Editor' });
    assert.equal(res.statusCode, 200);
    const url = /<code class="secret" data-secret="link">([^<]+)<\/code>/.exec(res.body)![1]!;
    assert.match(url, /^http:\/\/[^/]+\/account\/link\/[A-Za-z0-9_-]+$/);
    assert.match(res.body, /it is not shown again/);
    const again = await admin.get('/team');
    assert.ok(!again.body.includes(url), 'the link is not shown again');
    assert.match(again.body, /new@acme\.test/);
    const link = await new ConsoleClient(h).get(new URL(url).pathname);
    assert.equal(link.statusCode, 200);
    // A pending member gets a new link; an active member's reset link stays the operator's.
    const renewed = await admin.post(`/team/members/${userOf(again.body, 'new@acme.test')}/link`);
    assert.equal(renewed.statusCode, 200);
    assert.match(renewed.body, /data-secret="link">http:\/\/[^<]+\/account\/link\//);
    const active = await admin.post(`/team/members/${userOf(again.body, 'viewer@acme.test')}/link`);
    assert.equal(active.statusCode, 400);
    shows(active, 'viewer@acme.test has accepted the invitation: a password reset link comes from your operator');
  });

  it("refuses a bad invitation with the API's words", async () => {
    await admin.get('/team');
    const api = await apiError('POST', '/rest/v2/members/', { email: 'x@acme.test', role: 'Owner' });
    let res = await admin.post('/team/members', { email: 'x@acme.test', role: 'Owner' });
    assert.equal(res.statusCode, 400);
    shows(res, api.message, 8101);
    const reasons = (
      await h.send('POST', '/rest/v2/members/', { key, body: { email: 'nope', role: 'Viewer' } })
    ).json();
    res = await admin.post('/team/members', { email: 'nope', role: 'Viewer' });
    assert.equal(res.statusCode, 400);
    shows(res, `Invitation not made: nope: ${reasons.invitation_errors[0].reason}.`);
    assert.match(res.body, /value="nope"/);
    res = await admin.post('/team/members', { email: 'viewer@acme.test', role: 'Viewer' });
    shows(res, 'Invitation not made: viewer@acme.test: already a member of the team.');
  });

  it('changes a role, refuses a bad role and the last Admin, and answers not found for another team', async () => {
    const page = await admin.get('/team');
    const editorToken = userOf(page.body, 'editor@acme.test');
    const adminToken = userOf(page.body, 'admin@acme.test');
    let res = await admin.post(`/team/members/${editorToken}/role`, { role: 'Viewer' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team?notice=member-role-changed');
    const members = (await h.send('GET', '/rest/v2/members/', { key })).json() as Array<{
      email: string;
      role: string;
    }>;
    assert.equal(members.find((m) => m.email === 'editor@acme.test')!.role, 'Viewer');
    res = await admin.post(`/team/members/${editorToken}/role`, { role: 'Owner' });
    assert.equal(res.statusCode, 400);
    shows(res, 'Role malformed: expected one of Admin, Editor, Viewer');
    res = await admin.post(`/team/members/${adminToken}/role`, { role: 'Editor' });
    assert.equal(res.statusCode, 400);
    shows(res, 'The team needs at least one active Admin who can sign in: make another member Admin first.');
    await rival.get('/team');
    for (const token of [editorToken, 'not-a-token']) {
      res = await rival.post(`/team/members/${token}/role`, { role: 'Admin' });
      assert.equal(res.statusCode, 404);
      assert.match(res.body, /<h1>Not found<\/h1>/);
      res = await rival.post(`/team/members/${token}/delete`);
      assert.equal(res.statusCode, 404);
    }
  });

  it('removes a member, whose session ends at once', async () => {
    const gone = await signedInMember(h, 'acme', 'leaving@acme.test', 'Editor');
    const page = await admin.get('/team');
    const res = await admin.post(`/team/members/${userOf(page.body, 'leaving@acme.test')}/delete`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team?notice=member-removed');
    const after = await gone.get('/team');
    assert.equal(after.statusCode, 302);
    assert.match(String(after.headers.location), /^\/signin/);
    assert.doesNotMatch((await admin.get('/team')).body, /leaving@acme\.test/);
  });

  it("manages groups, their members and asset patterns with the API's refusals", async () => {
    await admin.get('/team/groups');
    const api = await apiError('POST', '/rest/v2/groups/', { name: 'bad/name' });
    let res = await admin.post('/team/groups', { name: 'bad/name' });
    assert.equal(res.statusCode, 400);
    shows(res, api.message, 9002);
    res = await admin.post('/team/groups', { name: 'Ops', description: 'On call' });
    assert.equal(res.statusCode, 303);
    const path = /^(\/team\/groups\/[0-9a-f]{32})\?notice=group-created$/.exec(String(res.headers.location))![1]!;
    const groupToken = path.slice('/team/groups/'.length);
    res = await admin.post('/team/groups', { name: 'ops' });
    shows(res, 'Group name invalid: a group with that name exists', 9002);
    let group = await admin.get(path);
    const user = /<option value="([0-9a-f]{32})">viewer@acme\.test<\/option>/.exec(group.body)![1]!;
    res = await admin.post(`${path}/members`, { userToken: user });
    assert.equal(res.statusCode, 303);
    const patternApi = await apiError('POST', `/rest/v2/groups/${groupToken}/assetpatterns/`, { pattern: '*.*.bad..' });
    res = await admin.post(`${path}/patterns`, { pattern: '*.*.bad..' });
    assert.equal(res.statusCode, 400);
    shows(res, patternApi.message, 9012);
    res = await admin.post(`${path}/patterns`, { pattern: '*.Example.com' });
    assert.equal(res.statusCode, 303);
    const wire = (await h.send('GET', `/rest/v2/groups/${groupToken}/assetpatterns/`, { key })).json();
    assert.deepEqual(
      wire.map((p: { pattern: string }) => p.pattern),
      ['*.example.com'],
    );
    const gm = (await h.send('GET', `/rest/v2/groups/${groupToken}/members/`, { key })).json();
    assert.equal(gm.length, 1);
    group = await admin.get(path);
    assert.match(group.body, /<code>\*\.example\.com<\/code>/);
    // Another team's admin, a malformed and an unknown token: not found.
    for (const url of [path, '/team/groups/nope', `/team/groups/${'0'.repeat(32)}`]) {
      assert.equal((await rival.get(url)).statusCode, 404, url);
    }
    await rival.get('/team/groups');
    assert.equal((await rival.post(`${path}/delete`)).statusCode, 404);
    res = await admin.post(`${path}/patterns/${wire[0].token}/delete`);
    assert.equal(res.statusCode, 303);
    res = await admin.post(`${path}/members/${gm[0].token}/delete`);
    assert.equal(res.statusCode, 303);
    res = await admin.post(`${path}/members/${'f'.repeat(32)}/delete`);
    assert.equal(res.statusCode, 404);
    res = await admin.post(`${path}/delete`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team/groups?notice=group-deleted');
    assert.equal((await admin.get(path)).statusCode, 404);
  });

  it('creates an API key shown once, lists its use and revokes it', async () => {
    await admin.get('/team/keys');
    let res = await admin.post('/team/keys', { kind: 'v2', permission: ['assets', 'nope'] });
    assert.equal(res.statusCode, 400);
    shows(res, "Not in the team's plan (enterprise): nope.");
    res = await admin.post('/team/keys', { kind: 'v2', signing: 'true', permission: ['assets', 'zones'] });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<code class="secret" data-secret="signing">[A-Za-z0-9+/=]{44}<\/code>/);
    res = await admin.post('/team/keys', { kind: 'v2', permission: 'assets' });
    const created = /<code class="secret" data-secret="key">([0-9a-f]{32})<\/code>/.exec(res.body)![1]!;
    const id = /<h2 id="created-key">Key (key_[0-9a-z]{10}) created<\/h2>/.exec(res.body)![1]!;
    assert.equal((await h.send('GET', '/rest/v2/assets/', { key: created })).statusCode, 200);
    const list = await admin.get('/team/keys');
    assert.ok(!list.body.includes(created), 'the key is not shown again');
    assert.match(list.body, new RegExp(`<td class="mono">${id}</td>\\s*<td class="mono">${created.slice(0, 6)}…</td>`));
    assert.match(list.body, /assets, zones/);
    // Last used: the request above, to the minute (the created key's row has a second time).
    const row = new RegExp(`<tr data-key="${id}">[\\s\\S]*?</tr>`).exec(list.body)![0];
    assert.equal(row.match(/<time /g)?.length, 2, 'created and last used');
    await rival.get('/team/keys');
    assert.equal((await rival.post(`/team/keys/${id}/revoke`)).statusCode, 404);
    assert.equal((await rival.post('/team/keys/not-an-id/revoke')).statusCode, 404);
    res = await admin.post(`/team/keys/${id}/revoke`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team/keys?notice=key-revoked');
    await new Promise((resolve) => setTimeout(resolve, 2100)); // the API's key cache lives 2 s
    assert.equal((await h.send('GET', '/rest/v2/assets/', { key: created })).statusCode, 401);
  });

  it("creates and deletes connectors with the API's refusals; a plan without them says so", async () => {
    await admin.get('/team/connectors');
    const api = await apiError('POST', '/rest/v3/connectors', { name: ' ', provider: 'CLOUD_B', options: {} });
    let res = await admin.post('/team/connectors', { name: ' ', provider: 'CLOUD_B', options: '' });
    assert.equal(res.statusCode, 400);
    shows(res, api.message, 1051);
    res = await admin.post('/team/connectors', { name: 'Edge', provider: 'CLOUD_B', options: 'not an option' });
    assert.equal(res.statusCode, 400);
    shows(res, 'Options line 1 is not NAME=value.');
    res = await admin.post('/team/connectors', {
      name: 'Edge',
      provider: 'CLOUD_B',
      options: 'api_token=s3cret-value',
    });
    assert.equal(res.statusCode, 400);
    shows(res, 'options.api_token is not an option of provider CLOUD_B', 1051);
    res = await admin.post('/team/connectors', { name: 'Edge', provider: 'DNS_H', options: 'api_key=s3cret-value' });
    assert.equal(res.statusCode, 303);
    const page = await admin.get('/team/connectors');
    assert.doesNotMatch(page.body, /s3cret-value/);
    const id = /<tr data-connector="([0-9a-f-]{36})">/.exec(page.body)![1]!;
    assert.match(page.body, /data-run-status="QUEUED"/);
    await rival.get('/team/connectors');
    assert.equal((await rival.post(`/team/connectors/${id}/delete`)).statusCode, 404);
    res = await admin.post(`/team/connectors/${id}/delete`);
    assert.equal(res.statusCode, 303);
    const listed = (await h.send('GET', '/rest/v3/connectors', { key: v3key })).json();
    assert.equal(listed.connectors?.length ?? listed.items?.length ?? 0, 0);
    const starter = await small.get('/team/connectors');
    assert.match(starter.body, /does not include connectors/);
    assert.match((await small.get('/team/groups')).body, /does not include groups/);
  });
});
