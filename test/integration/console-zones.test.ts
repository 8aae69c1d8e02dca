import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { escapeHtml } from '../../src/http/console/html.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { startBind, type BindServer } from '../support/bind-server.ts';
import { signedInMember, type ConsoleClient } from '../support/console-client.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { waitUntil } from '../support/test-jobs.ts';

const zoneText = `$TTL 300
@       IN SOA ns1 hostmaster 1 7200 3600 1209600 300
@       IN NS  ns1
ns1     IN A   192.0.2.1
www     IN A   192.0.2.10
api     IN CNAME www
`;

/** Posts a multipart/form-data form (file inputs) as a browser does, with the client's cookies and CSRF token. */
async function postFiles(
  client: ConsoleClient,
  url: string,
  fields: Record<string, string>,
  files: Record<string, string | Buffer>,
): Promise<LightMyRequestResponse> {
  const form = new FormData();
  if (!('_csrf' in fields)) form.append('_csrf', client.csrf);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [name, value] of Object.entries(files))
    form.append(name, new Blob([typeof value === 'string' ? value : new Uint8Array(value)]), `${name}.txt`);
  const request = new Request('http://127.0.0.1/', { method: 'POST', body: form });
  const cookie = [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  return client.h.app.inject({
    method: 'POST',
    url,
    headers: { cookie, 'content-type': request.headers.get('content-type')! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
}

/** The API's message of a refusal, as the page shows it (escaped). */
const shows = (res: LightMyRequestResponse, message: string, code: number) => {
  assert.ok(res.body.includes(escapeHtml(message)), `the page shows "${message}"`);
  assert.ok(res.body.includes(`(error ${code})`), `the page shows error ${code}`);
};

describe('console: zones', () => {
  let bind: BindServer;
  let h: Harness;
  let key: string;
  let editor: ConsoleClient;
  let viewer: ConsoleClient;
  let rival: ConsoleClient;

  const names = async (): Promise<string[]> => {
    const roots = (await h.send('GET', '/rest/v2/assets/?pageSize=100', { key })).json().assets as Array<{
      token: string;
      name: string;
    }>;
    const root = roots.find((r) => r.name === 'example.test')!;
    const res = await h.send('GET', `/rest/v2/assets/${root.token}/subdomains/?pageSize=1000`, { key });
    return (res.json().assets as Array<{ name: string }>).map((s) => s.name).sort();
  };

  before(async () => {
    bind = await startBind([
      { name: 'example.test', text: zoneText },
      { name: 'closed.test', text: zoneText, allowTransfer: [] },
    ]);
    h = await createHarness({ dnsResolvers: [bind.address], egressAllow: ['127.0.0.0/8'] });
    key = (await h.team('acme')).key;
    await h.team('rivals');
    await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'example.test' } });
    await h.admin('asset', 'verify', 'example.test');
    editor = await signedInMember(h, 'acme', 'editor@acme.test', 'Editor');
    viewer = await signedInMember(h, 'acme', 'viewer@acme.test', 'Viewer');
    rival = await signedInMember(h, 'rivals', 'admin@rivals.test', 'Admin');
  });
  after(async () => {
    await h.runtime.verification.settle();
    await h.close();
    await bind.stop();
  });

  it('shows an Editor the three forms, a file input posting multipart', async () => {
    const res = await editor.get('/zones');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<h1>Zones<\/h1>/);
    assert.match(res.body, /action="\/zones\/file" enctype="multipart\/form-data"/);
    assert.match(res.body, /<input type="file" id="zone-file-input" name="file" required/);
    assert.match(res.body, /action="\/zones\/transfer"/);
    assert.match(res.body, /action="\/zones\/lookups" enctype="multipart\/form-data"/);
  });

  it('shows a Viewer no form and refuses its forged transfer with 403', async () => {
    const page = await viewer.get('/zones');
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /<form method="post" action="\/zones/);
    assert.match(page.body, /Your role \(Viewer\) cannot index zones/);
    const res = await viewer.post('/zones/transfer', { nameServer: bind.address, zone: 'example.test' });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Your role \(Viewer\) does not allow this/);
    const upload = await postFiles(viewer, '/zones/file', {}, { file: zoneText });
    assert.equal(upload.statusCode, 403);
  });

  it('uploads a zone file and indexes it as the API does', async () => {
    await editor.get('/zones');
    const res = await postFiles(editor, '/zones/file', { origin: 'example.test' }, { file: zoneText });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/zones?notice=zone-indexed&n=4');
    const page = await editor.get(String(res.headers.location));
    assert.match(page.body, /4 names indexed under the team&#39;s root domain assets/);
    assert.deepEqual(await names(), ['api.example.test', 'ns1.example.test', 'www.example.test']);
  });

  it("refuses a bad zone upload with the API's message, keeping the origin typed", async () => {
    await editor.get('/zones');
    let res = await postFiles(editor, '/zones/file', { origin: 'bad origin!' }, { file: zoneText });
    assert.equal(res.statusCode, 400);
    shows(res, 'Zone origin malformed: "bad origin!" is not a domain name', 2411);
    assert.match(res.body, /id="origin" name="origin"[^>]* value="bad origin!"/);
    res = await postFiles(editor, '/zones/file', { origin: 'example.test' }, { file: '' });
    assert.equal(res.statusCode, 400);
    shows(res, 'Request body missing: send the zone file as the request body', 1050);
    res = await postFiles(editor, '/zones/file', {}, { file: Buffer.alloc(5 * 1024 * 1024 + 1, 0x0a) });
    assert.equal(res.statusCode, 413);
    shows(res, `Request body too large for this operation (at most ${5 * 1024 * 1024} bytes)`, 1052);
    // Past the form's own body limit, the answer is still a page, before any handler runs.
    res = await postFiles(editor, '/zones/file', {}, { file: Buffer.alloc(6 * 1024 * 1024, 0x0a) });
    assert.equal(res.statusCode, 413);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /<h1>Too large<\/h1>/);
  });

  it('refuses a multipart form without its CSRF token', async () => {
    const res = await postFiles(editor, '/zones/file', { _csrf: 'forged' }, { file: zoneText });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Form expired/);
  });

  it("transfers a zone, and refuses a bad server, a bad zone and a refused transfer with the API's messages", async () => {
    await editor.get('/zones');
    let res = await editor.post('/zones/transfer', { nameServer: bind.address, zone: 'example.test' });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/zones?notice=zone-indexed&n=4');
    res = await editor.post('/zones/transfer', { nameServer: 'not a server', zone: 'example.test' });
    assert.equal(res.statusCode, 400);
    shows(res, 'Zone server malformed: "not a server" is not a host name or IP address with an optional :port', 2412);
    assert.match(res.body, /value="not a server"/);
    res = await editor.post('/zones/transfer', { nameServer: bind.address, zone: 'bad zone' });
    assert.equal(res.statusCode, 400);
    shows(res, 'Zone name malformed: "bad zone" is not a domain name', 2413);
    res = await editor.post('/zones/transfer', { nameServer: bind.address, zone: 'closed.test' });
    assert.equal(res.statusCode, 400);
    assert.match(
      res.body,
      /Zone transfer of closed\.test from 127\.0\.0\.1:\d+ failed: the name server refused the transfer/,
    );
  });

  it('uploads a lookup list and shows its progress until done, for the team only', async () => {
    await editor.get('/zones');
    const list = ['www.example.test', 'ns1.example.test', 'missing.example.test', 'outside.org'].join('\n');
    const res = await postFiles(editor, '/zones/lookups', {}, { file: list });
    assert.equal(res.statusCode, 303, res.body);
    const path = String(res.headers.location);
    const uuid = /^\/zones\/lookups\/([0-9a-f-]{36})$/.exec(path)![1]!;
    const page = await viewer.get(path);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /data-lookup-status="\/zones\/lookups\/[0-9a-f-]{36}\/status"/);
    assert.match(page.body, /<span class="status job-queued" data-field="status">Queued<\/span>/);
    assert.match(page.body, /<script type="module" src="\/console\/static\/zones\.[0-9a-f]{12}\.js"><\/script>/);
    let status = await viewer.get(`${path}/status`);
    assert.equal(status.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(status.json(), { uuid, status: 'queued', total: 4, succeeded: 0, failed: 0, percent: 0 });
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 100 });
    const done = await waitUntil('the lookup to finish', async () => {
      const body = (await viewer.get(`${path}/status`)).json();
      return body.status === 'done' ? body : undefined;
    });
    assert.deepEqual(done, { uuid, status: 'done', total: 4, succeeded: 2, failed: 2, percent: 100 });
    // The Zones page lists the team's recent lookups, linking to each; another team's lists none of them.
    assert.match((await viewer.get('/zones')).body, new RegExp(`<a href="${path}"><time`));
    assert.doesNotMatch((await rival.get('/zones')).body, /Recent lookups/);
    // The API reads the same job.
    const api = await h.send('GET', `/rest/v2/zone/lookup/${uuid}/`, { key });
    assert.deepEqual(api.json(), { uuid, status: 'done', total: 4, succeeded: 2, failed: 2 });
    // Another team's member, an unknown job and a malformed id: the same not-found answers.
    for (const url of [path, '/zones/lookups/0f8fad5b-d9cb-469f-a165-70867728950e', '/zones/lookups/nope']) {
      const other = await rival.get(url);
      assert.equal(other.statusCode, 404, url);
      assert.match(other.body, /<h1>Not found<\/h1>/);
      status = await rival.get(`${url}/status`);
      assert.equal(status.statusCode, 404);
      assert.deepEqual(status.json(), { error: 'not found' });
    }
  });

  it("refuses an empty lookup list with the API's message", async () => {
    await editor.get('/zones');
    const res = await postFiles(editor, '/zones/lookups', {}, { file: '' });
    assert.equal(res.statusCode, 400);
    shows(res, 'Request body missing: send the names, one per line, as the request body', 1050);
  });
});
