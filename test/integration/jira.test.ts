import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { eventKindDoc } from '../../src/core/events/event-catalogue.ts';
import type { EventKind } from '../../src/core/events/event.types.ts';
import { syncJira, type JiraSyncOutcome } from '../../src/core/integrations/jira-sync.service.ts';
import { createJiraClientFactory } from '../../src/engine/jira/jira-client.ts';
import { enqueueJiraSyncs, jiraSyncHandler } from '../../src/jobs/jira-sync.job.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { startFakeJira, type FakeJira } from '../support/jira-server.ts';

const path = '/rest/v3/integrations/jira';
const token = 'jira-TOKEN-9f8e7d6c5b4a';

interface Team {
  id: number;
  v3: string;
}

/** A finding of the catalogue's example, with its own identity. */
function finding(n: number, severity = 'high') {
  const uuid = `6f1c2d3e-4a5b-4c6d-8e7f-${String(n).padStart(12, '0')}`;
  return { uuid, fingerprint: `fp${String(n).padStart(14, '0')}`, severity };
}

describe('Jira integration', () => {
  let h: Harness;
  let jira: FakeJira;
  let acme: Team;
  let other: Team;
  let clock = Date.now();
  const logLines: string[] = [];
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );

  const deps = () => ({
    store: h.runtime.store,
    box: h.runtime.box,
    client: createJiraClientFactory({ guard: h.runtime.guard, resolver: h.runtime.resolver, timeoutMs: 5000 }),
    now: () => new Date(clock),
  });
  const sync = (team: Team = acme): Promise<JiraSyncOutcome> => syncJira(deps(), team.id, new AbortController().signal);
  /** Runs the job as the worker would, logging to logLines. */
  const runJob = (team: Team = acme) =>
    jiraSyncHandler(deps()).handle(
      { teamId: team.id },
      { jobId: 'test', attempt: 1, signal: new AbortController().signal, log },
    );

  const append = async (
    team: Team,
    kind: EventKind,
    f: ReturnType<typeof finding>,
    extra: Record<string, unknown> = {},
  ) => {
    const data = {
      ...eventKindDoc(kind).example,
      vulnerability_uuid: f.uuid,
      fingerprint: f.fingerprint,
      severity: f.severity,
      details_page: `https://perimeter.example.net/findings/${f.uuid}`,
      ...extra,
    };
    await h.runtime.store.events.append([
      { teamId: team.id, kind, occurredAt: new Date(clock), severity: f.severity as 'high', data },
    ]);
  };
  const connection = async (team: Team = acme) => {
    const res = await h.send('GET', path, { key: team.v3 });
    return { status: res.statusCode, body: res.body, json: res.statusCode === 200 ? res.json() : undefined };
  };
  const links = async (uuid: string, team: Team = acme) => {
    const res = await h.send('GET', `${path}/issues?vulnerability=${uuid}`, { key: team.v3 });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { items: Array<Record<string, string>> }).items;
  };
  const connect = (team: Team, body: Record<string, unknown>) => h.send('PUT', path, { key: team.v3, body });
  const goodBody = () => ({
    base_url: jira.baseUrl,
    account_email: jira.email,
    api_token: token,
    project_key: 'SEC',
  });

  before(async () => {
    h = await createHarness();
    jira = await startFakeJira({ email: 'secops@acme.test', token, projectKey: 'SEC' });
    for (const name of ['acme', 'other']) {
      await h.team(name);
      const v3 = (await h.key(name, '--v3')).key;
      const id = (await h.runtime.store.teams.findByName(name))!.id;
      if (name === 'acme') acme = { id, v3 };
      else other = { id, v3 };
    }
    // An event from before the connection: never sent to Jira.
    await append(acme, 'vulnerability.new', finding(99));
  });
  after(async () => {
    await h.close();
    await jira.stop();
  });

  it('checks every field of the connection, naming it (400, /problems/1051)', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...goodBody(), base_url: 'ftp://jira.example.com' }, 'base_url'],
      [{ ...goodBody(), base_url: 'http://jira.example.com' }, 'base_url'],
      [{ ...goodBody(), account_email: 'nobody' }, 'account_email'],
      [{ ...goodBody(), api_token: undefined }, 'api_token'],
      [{ ...goodBody(), project_key: 'sec' }, 'project_key'],
      [{ ...goodBody(), min_severity: 'urgent' }, 'min_severity'],
      [{ ...goodBody(), done_transition: '' }, 'done_transition'],
    ];
    for (const [body, field] of cases) {
      const res = await connect(acme, body);
      assert.equal(res.statusCode, 400, `${field}: ${res.body}`);
      const problem = res.json() as { type: string; detail: string };
      assert.equal(problem.type, '/problems/1051');
      assert.match(problem.detail, new RegExp(`\\b${field}\\b`));
      assert.ok(!res.body.includes(token));
    }
    assert.equal((await connection()).status, 404);
  });

  it('connects a project; the token is sealed and never shown', async () => {
    const res = await connect(acme, goodBody());
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as Record<string, unknown>;
    assert.equal(body['project_key'], 'SEC');
    assert.equal(body['min_severity'], 'high');
    assert.equal(body['issue_type'], 'Task');
    assert.equal(body['status'], 'active');
    assert.equal(body['last_error'], null);
    assert.ok(!('api_token' in body));
    const got = await connection();
    assert.equal(got.status, 200);
    assert.ok(!got.body.includes(token), 'GET never carries the token');
    const row = await h.runtime.store.jira.findConnection(acme.id);
    assert.ok(row !== undefined && !row.apiTokenSealed.includes(token));
    assert.equal(h.runtime.box.decrypt(row.apiTokenSealed), token);
    // The event from before the connection is behind the cursor.
    assert.deepEqual(await sync(), { kind: 'synced', applied: 0, more: false });
    assert.equal(jira.issues.length, 0);
  });

  it('gives a new high finding one issue with the property and a remote link to its page', async () => {
    const f = finding(1);
    await append(acme, 'vulnerability.new', f);
    const outcome = await sync();
    assert.equal(outcome.kind, 'synced');
    assert.equal(jira.issues.length, 1);
    const issue = jira.issueOf(f.fingerprint)!;
    assert.equal(issue.key, 'SEC-1');
    assert.deepEqual(issue.properties.get('perimeter'), { fingerprint: f.fingerprint });
    assert.equal(issue.issueType, 'Task');
    assert.match(issue.summary, /^\[High\] SQL injection on shop\.example\.com$/);
    const details = `https://perimeter.example.net/findings/${f.uuid}`;
    assert.deepEqual(
      issue.remoteLinks.map((l) => l.url),
      [details],
    );
    assert.ok(JSON.stringify(issue.description).includes(details), 'the description links the finding');
    assert.equal(issue.status, 'To Do');
    assert.deepEqual(await links(f.uuid), [
      {
        vulnerability_uuid: f.uuid,
        fingerprint: f.fingerprint,
        issue_key: 'SEC-1',
        url: `${jira.baseUrl}/browse/SEC-1`,
        state: 'open',
      },
    ]);
    const row = await h.runtime.store.jira.findConnection(acme.id);
    assert.ok(row?.lastSyncedAt !== null);
  });

  it('never duplicates: a redelivered event, and a lost record of the issue (crash after create)', async () => {
    const f = finding(1);
    await append(acme, 'vulnerability.new', f);
    await sync();
    assert.equal(jira.issues.length, 1);
    // As if the process died between Jira's create and our own write.
    await h.runtime.store.jira.deleteIssue(acme.id, f.fingerprint);
    assert.deepEqual(await links(f.uuid), []);
    await append(acme, 'vulnerability.new', f);
    const before = jira.requests.length;
    await sync();
    assert.equal(jira.issues.length, 1, 'found by its property, not created again');
    assert.ok(jira.requests.slice(before).includes('POST /rest/api/3/search/jql'));
    assert.equal((await links(f.uuid))[0]?.['issue_key'], 'SEC-1');
    assert.equal(jira.issues[0]!.remoteLinks.length, 1, 'the remote link is updated, not added twice');
  });

  it('moves the issue to done when patched, reopens it with a comment on regression', async () => {
    const f = finding(1);
    await append(acme, 'vulnerability.patched', f, { status: 'patched' });
    await sync();
    assert.equal(jira.issueOf(f.fingerprint)!.status, 'Done');
    assert.equal((await links(f.uuid))[0]?.['state'], 'done');
    await append(acme, 'vulnerability.regression', f, { status: 'regression' });
    await sync();
    const issue = jira.issueOf(f.fingerprint)!;
    assert.equal(issue.status, 'To Do');
    assert.equal(issue.comments.length, 1);
    assert.match(JSON.stringify(issue.comments[0]), /regression/);
    assert.equal((await links(f.uuid))[0]?.['state'], 'open');
    assert.equal(jira.issues.length, 1);
  });

  it('closes on a mark and reopens on unmark', async () => {
    const f = finding(1);
    await append(acme, 'vulnerability.status_changed', f, {
      status: 'accepted_risk',
      mark: 'accepted_risk',
      marked: true,
    });
    await sync();
    assert.equal(jira.issueOf(f.fingerprint)!.status, 'Done');
    await append(acme, 'vulnerability.status_changed', f, { status: 'new', mark: 'accepted_risk', marked: false });
    await sync();
    assert.equal(jira.issueOf(f.fingerprint)!.status, 'To Do');
    assert.equal(jira.issues.length, 1);
  });

  it('leaves findings below the rule alone, and moves the cursor past every other kind', async () => {
    await append(acme, 'vulnerability.new', finding(2, 'low'));
    await h.runtime.store.events.append([
      { teamId: acme.id, kind: 'asset.added', occurredAt: new Date(clock), data: eventKindDoc('asset.added').example },
    ]);
    const before = jira.requests.length;
    await sync();
    assert.equal(jira.issues.length, 1);
    assert.equal(jira.requests.length, before, 'no Jira call at all');
    const row = await h.runtime.store.jira.findConnection(acme.id);
    assert.equal(row?.cursorEventId, await h.runtime.store.events.latestId(acme.id));
    assert.deepEqual(await h.runtime.store.jira.teamsBehind(100), []);
  });

  it('waits as Jira asks on 429, backs off on 5xx, then catches up', async () => {
    const f = finding(3, 'critical');
    await append(acme, 'vulnerability.new', f);
    jira.failNext({ status: 429, headers: { 'retry-after': '120' } });
    const throttled = await sync();
    assert.equal(throttled.kind, 'retry');
    assert.equal((throttled as { at: Date }).at.getTime(), clock + 120_000);
    const shown = (await connection()).json as Record<string, unknown>;
    assert.equal(shown['status'], 'retrying');
    assert.match(String(shown['last_error']), /HTTP 429/);
    // Before the time Jira asked for, nothing is sent.
    const before = jira.requests.length;
    assert.equal((await sync()).kind, 'retry');
    assert.equal(jira.requests.length, before);
    // The job defers itself to that time.
    assert.deepEqual(await runJob(), { deferUntil: new Date(clock + 120_000) });
    clock += 121_000;
    jira.failNext({ status: 503 });
    const down = await sync();
    assert.equal(down.kind, 'retry');
    assert.equal(
      (down as { at: Date }).at.getTime(),
      clock + 60_000,
      'the second failure in a row waits twice as long',
    );
    clock += 61_000;
    assert.equal((await sync()).kind, 'synced');
    assert.equal(jira.issues.length, 2);
    const caughtUp = (await connection()).json as Record<string, unknown>;
    assert.equal(caughtUp['status'], 'active');
    assert.equal(caughtUp['last_error'], null);
  });

  it('stops on refused credentials, without a retry storm, until the connection is updated', async () => {
    assert.equal((await connect(acme, { ...goodBody(), api_token: 'wrong-token' })).statusCode, 200);
    const f = finding(4);
    await append(acme, 'vulnerability.new', f);
    const before = jira.requests.length;
    assert.equal(await runJob(), undefined, 'the job ends');
    const shown = (await connection()).json as Record<string, unknown>;
    assert.equal(shown['status'], 'stopped');
    assert.match(String(shown['last_error']), /^Jira refused the credentials/);
    assert.deepEqual(await h.runtime.store.jira.teamsBehind(100), [], 'the scheduler leaves it');
    assert.equal(await enqueueJiraSyncs({ store: h.runtime.store, jobs: h.jobs }), 0);
    for (let i = 0; i < 3; i += 1) assert.deepEqual(await sync(), { kind: 'idle' });
    assert.equal(jira.requests.length, before + 1, 'one refused request, no more');
    // Updated with the right token: the scheduler picks it up and the finding gets its issue.
    assert.equal((await connect(acme, goodBody())).statusCode, 200);
    assert.deepEqual(await h.runtime.store.jira.teamsBehind(100), [acme.id]);
    const jobId = await enqueueJiraSyncs({ store: h.runtime.store, jobs: h.jobs });
    assert.equal(jobId, 1);
    await runJob();
    assert.ok(jira.issueOf(f.fingerprint) !== undefined);
    assert.equal(((await connection()).json as Record<string, unknown>)['status'], 'active');
  });

  it('never writes the token to logs, errors or Jira requests other than its Authorization header', () => {
    const text = logLines.join('');
    assert.ok(logLines.length >= 2, 'the job logged its failures');
    const basic = Buffer.from(`${jira.email}:${token}`).toString('base64');
    assert.ok(!text.includes(token) && !text.includes(basic));
    assert.ok(text.includes('jira sync stopped'));
    assert.ok(jira.authorizations.includes(`Basic ${basic}`));
  });

  it('shows another team no connection and no links, and never syncs its events to this project', async () => {
    assert.equal((await connection(other)).status, 404);
    assert.deepEqual(await links(finding(1).uuid, other), []);
    assert.equal((await h.send('DELETE', path, { key: other.v3 })).statusCode, 404);
    await append(other, 'vulnerability.new', finding(5));
    const count = jira.issues.length;
    assert.deepEqual(await sync(other), { kind: 'idle' });
    await sync();
    assert.equal(jira.issues.length, count);
  });

  it('answers 400 naming vulnerability for a missing or malformed one', async () => {
    for (const query of ['', '?vulnerability=nope']) {
      const res = await h.send('GET', `${path}/issues${query}`, { key: acme.v3 });
      assert.equal(res.statusCode, 400, res.body);
      assert.match((res.json() as { detail: string }).detail, /vulnerability/);
    }
  });

  it('disconnects: the links go, the issues stay in Jira', async () => {
    const res = await h.send('DELETE', path, { key: acme.v3 });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal((await connection()).status, 404);
    assert.deepEqual(await links(finding(1).uuid), []);
    assert.ok(jira.issues.length >= 3);
  });
});
