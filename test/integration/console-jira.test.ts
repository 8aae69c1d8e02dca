import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { syncJira } from '../../src/core/integrations/jira-sync.service.ts';
import { createJiraClientFactory } from '../../src/engine/jira/jira-client.ts';
import { escapeHtml } from '../../src/http/console/html.ts';
import type { ConsoleClient } from '../support/console-client.ts';
import { signedInMember } from '../support/console-client.ts';
import { finding, scan, scanTarget } from '../support/findings.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startFakeJira, type FakeJira } from '../support/jira-server.ts';

const token = 'jira-CONSOLE-TOKEN-5e4d3c2b1a';

/**
 * The console's Jira tab and the Jira link on a finding's page: connect, replace (a blank token
 * keeps the stored one for the same site only), disconnect; a bad field refused with the API's
 * code and message; the token in no page ever; roles and CSRF; the issue the sync made, linked
 * from the finding's page (a local Jira answering as Jira's REST API v3 does).
 */
describe(`console: Jira (${testStore})`, () => {
  let h: Harness;
  let jira: FakeJira;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  let rival: ConsoleClient;
  let v3key: string;
  let v2key: string;
  let teamId: number;
  /** Every page body the test read: none may carry the token. */
  const bodies: string[] = [];

  const read = async (client: ConsoleClient, url: string): Promise<LightMyRequestResponse> => {
    const res = await client.get(url);
    bodies.push(res.body);
    return res;
  };
  const post = async (client: ConsoleClient, url: string, fields: Record<string, string>) => {
    const res = await client.post(url, fields);
    bodies.push(res.body);
    return res;
  };
  const goodForm = () => ({
    base_url: jira.baseUrl,
    account_email: jira.email,
    api_token: token,
    project_key: 'SEC',
    issue_type: 'Task',
    min_severity: 'high',
    done_transition: 'Done',
    reopen_transition: 'To Do',
  });
  /** The uuid of the team's finding of that severity (the v2 list). */
  const uuidOf = async (severity: string): Promise<string> => {
    const res = await h.send('GET', '/rest/v2/vulnerabilities/', { key: v2key });
    const list = res.json() as { vulnerabilities: Array<{ uuid: string; severity: string }> };
    return list.vulnerabilities.find((v) => v.severity === severity)!.uuid;
  };
  const sync = () =>
    syncJira(
      {
        store: h.runtime.store,
        box: h.runtime.box,
        client: createJiraClientFactory({ guard: h.runtime.guard, resolver: h.runtime.resolver, timeoutMs: 5000 }),
        now: () => new Date(),
      },
      teamId,
      new AbortController().signal,
    );

  before(async () => {
    h = await createHarness();
    jira = await startFakeJira({ email: 'secops@acme.test', token, projectKey: 'SEC' });
    v2key = (await h.team('acme')).key;
    await h.team('rivals');
    v3key = (await h.key('acme', '--v3')).key;
    teamId = (await h.runtime.store.teams.findByName('acme'))!.id;
    admin = await signedInMember(h, 'acme', 'admin@acme.test', 'Admin');
    viewer = await signedInMember(h, 'acme', 'viewer@acme.test', 'Viewer');
    rival = await signedInMember(h, 'rivals', 'admin@rivals.test', 'Admin');
  });
  after(async () => {
    await h.close();
    await jira.stop();
  });

  it('shows a Viewer the tab without a form, and refuses its forged connection (403)', async () => {
    const res = await read(viewer, '/team/jira');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /The team has no Jira connection/);
    assert.match(res.body, /<a href="\/team\/jira" aria-current="page">Jira<\/a>/);
    assert.doesNotMatch(res.body, /<form method="post" action="\/team\/jira/);
    assert.match(res.body, /Your role \(Viewer\) reads the connection/);
    const forged = await post(viewer, '/team/jira', goodForm());
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /Your role \(Viewer\) does not allow this/);
    assert.equal(await h.runtime.store.jira.findConnection(teamId), undefined);
  });

  it('refuses a form without the session token (CSRF) and one from another site', async () => {
    await read(admin, '/team/jira');
    let res = await post(admin, '/team/jira', { ...goodForm(), _csrf: 'forged' });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /This form is no longer valid/);
    await read(admin, '/team/jira');
    res = await admin.post('/team/jira', goodForm(), { origin: 'https://evil.example' });
    assert.equal(res.statusCode, 403);
    assert.equal(await h.runtime.store.jira.findConnection(teamId), undefined);
  });

  it("refuses a bad field with the API's code and message, and never fills the token back in", async () => {
    const cases: Array<[string, string]> = [
      ['base_url', 'ftp://jira.example.com'],
      ['base_url', 'http://jira.example.com'],
      ['account_email', 'nobody'],
      ['project_key', 'sec'],
      ['min_severity', 'urgent'],
      ['issue_type', 'Task\u0007'],
    ];
    for (const [field, value] of cases) {
      const body: Record<string, string> = { ...goodForm(), [field]: value };
      const api = await h.send('PUT', '/rest/v3/integrations/jira', {
        key: v3key,
        body,
      });
      assert.equal(api.statusCode, 400, api.body);
      const problem = api.json() as { type: string; detail: string };
      assert.equal(problem.type, '/problems/1051');
      await read(admin, '/team/jira');
      const res = await post(admin, '/team/jira', body);
      assert.equal(res.statusCode, 400, `${field}: ${res.statusCode}`);
      assert.ok(res.body.includes(escapeHtml(problem.detail)), `${field}: the page shows "${problem.detail}"`);
      assert.match(res.body, /\(error 1051\)/);
      assert.match(res.body, new RegExp(`id="jira-${field}"[^>]*aria-invalid="true"`), `${field} is marked`);
      assert.match(
        res.body,
        /id="jira-api_token" name="api_token" type="password" autocomplete="new-password" required/,
      );
    }
    assert.equal(await h.runtime.store.jira.findConnection(teamId), undefined);
  });

  it('connects a project; the page shows it, the API reads it, and the token is sealed', async () => {
    await read(admin, '/team/jira');
    const res = await post(admin, '/team/jira', goodForm());
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team/jira?notice=jira-saved');
    const page = await read(admin, res.headers.location as string);
    assert.match(page.body, /Jira connection saved/);
    assert.ok(page.body.includes(escapeHtml(jira.baseUrl)));
    assert.match(page.body, /<code>SEC<\/code>, issue type Task/);
    assert.match(page.body, /data-jira-status="active"/);
    assert.match(page.body, /Replace the connection/);
    assert.match(page.body, /Leave blank to keep the stored token/);
    assert.match(page.body, /action="\/team\/jira\/delete"/);
    const api = (await h.send('GET', '/rest/v3/integrations/jira', { key: v3key })).json() as Record<string, string>;
    assert.equal(api['project_key'], 'SEC');
    assert.equal(api['account_email'], jira.email);
    const row = (await h.runtime.store.jira.findConnection(teamId))!;
    assert.equal(h.runtime.box.decrypt(row.apiTokenSealed), token);
    const seen = await read(viewer, '/team/jira');
    assert.match(seen.body, /<code>SEC<\/code>/);
    assert.doesNotMatch(seen.body, /<form method="post" action="\/team\/jira/);
  });

  it('links the issue the sync made from the finding page, for every role and no other team', async () => {
    const target = await scanTarget(h, 'acme', 'shop.acme.test');
    await scan(h, target, [
      finding('sqli', { severity: 'high', host: 'shop.acme.test', title: 'SQL injection' }),
      finding('banner', { severity: 'low', host: 'shop.acme.test', title: 'Server banner' }),
    ]);
    const outcome = await sync();
    assert.equal(outcome.kind, 'synced', JSON.stringify(outcome));
    assert.equal(jira.issues.length, 1, 'only the high finding gets an issue');
    const high = await uuidOf('high');
    const low = await uuidOf('low');
    const browse = `${jira.baseUrl}/browse/SEC-1`;
    for (const client of [admin, viewer]) {
      const res = await read(client, `/vulnerabilities/${high}`);
      assert.equal(res.statusCode, 200);
      assert.match(
        res.body,
        new RegExp(
          `<dt>Jira</dt><dd id="jira-issue"><a href="${escapeHtml(browse).replace(/[.]/g, '\\.')}" rel="noreferrer noopener" data-jira-key="SEC-1">SEC-1</a> <span class="status status-unverified">open</span>`,
        ),
      );
    }
    const other = await read(admin, `/vulnerabilities/${low}`);
    assert.equal(other.statusCode, 200);
    assert.doesNotMatch(other.body, /id="jira-issue"/);
    const foreign = await read(rival, `/vulnerabilities/${high}`);
    assert.equal(foreign.statusCode, 404);
    assert.ok(!foreign.body.includes('SEC-1'));
  });

  it('replaces the connection: a blank token keeps the stored one for the same site only', async () => {
    await read(admin, '/team/jira');
    let res = await post(admin, '/team/jira', {
      ...goodForm(),
      api_token: '',
      issue_type: 'Bug',
      min_severity: 'medium',
    });
    assert.equal(res.statusCode, 303);
    let row = (await h.runtime.store.jira.findConnection(teamId))!;
    assert.equal(row.issueType, 'Bug');
    assert.equal(row.minSeverity, 'medium');
    assert.equal(h.runtime.box.decrypt(row.apiTokenSealed), token, 'the stored token is kept');
    await read(admin, '/team/jira');
    res = await post(admin, '/team/jira', { ...goodForm(), api_token: '', base_url: 'https://jira.elsewhere.test' });
    assert.equal(res.statusCode, 400);
    assert.match(
      res.body,
      /api_token is required: the stored token is kept only for the same site <span class="code">\(error 1051\)/,
    );
    assert.match(res.body, /id="jira-api_token"[^>]*aria-invalid="true"/);
    row = (await h.runtime.store.jira.findConnection(teamId))!;
    assert.equal(row.baseUrl, jira.baseUrl, 'nothing saved');
  });

  it('shows a stopped sync and its last error', async () => {
    await read(admin, '/team/jira');
    await post(admin, '/team/jira', { ...goodForm(), api_token: 'wrong-token-value' });
    const target = await scanTarget(h, 'acme', 'shop.acme.test');
    await scan(h, target, [finding('xss', { severity: 'critical', host: 'shop.acme.test', title: 'XSS' })]);
    await sync();
    const res = await read(admin, '/team/jira');
    assert.match(res.body, /data-jira-status="stopped"/);
    assert.match(res.body, /<dd id="jira-last-error">Jira refused the credentials/);
    assert.ok(!res.body.includes('wrong-token-value'));
  });

  it('disconnects: the link leaves the finding page; a second disconnect is not found', async () => {
    await read(admin, '/team/jira');
    let res = await post(admin, '/team/jira/delete', {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team/jira?notice=jira-deleted');
    const page = await read(admin, res.headers.location as string);
    assert.match(page.body, /Jira disconnected/);
    assert.match(page.body, /The team has no Jira connection/);
    assert.match(page.body, /Connect a Jira project/);
    res = await post(admin, '/team/jira/delete', {});
    assert.equal(res.statusCode, 404);
    const page2 = await read(admin, `/vulnerabilities/${await uuidOf('high')}`);
    assert.doesNotMatch(page2.body, /id="jira-issue"/);
  });

  it('never put the API token in any page it answered', () => {
    assert.ok(bodies.length > 20);
    for (const body of bodies) assert.ok(!body.includes(token), 'a page carried the token');
  });
});
