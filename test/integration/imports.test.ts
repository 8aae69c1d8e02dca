import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createImport, runImport } from '../../src/core/imports/import.service.ts';
import type { ImportWriters } from '../../src/core/imports/import.types.ts';
import type { Repositories } from '../../src/core/store.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { importWriters } from '../../src/jobs/import.job.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventsOf } from '../support/events.ts';
import { waitUntil } from '../support/test-jobs.ts';

const fixtures = join(import.meta.dirname, '../fixtures/imports');
const fixture = (name: string) => readFileSync(join(fixtures, name), 'utf8');

interface ImportBody {
  id: string;
  format: string;
  status: string;
  progress: number;
  counts: Record<string, number>;
  error: { message: string; line: number | null } | null;
}

interface V2Vulnerability {
  uuid: string;
  title: string;
  status: string;
  host: string;
}

describe('imports (nuclei, ZAP, SARIF, nmap)', () => {
  let h: Harness;
  let v2 = '';
  let v3 = '';
  let otherV2 = '';
  let otherV3 = '';
  let teamId = 0;

  before(async () => {
    h = await createHarness();
    v2 = (await h.team('importers')).key;
    v3 = (await h.key('importers', '--v3')).key;
    otherV2 = (await h.team('others')).key;
    otherV3 = (await h.key('others', '--v3')).key;
    // The host of the fixture the importing team does not own is another team's asset.
    const theirs = await h.send('POST', '/rest/v2/assets/', { key: otherV2, body: { name: 'unrelated-team.test' } });
    assert.equal(theirs.statusCode, 200, theirs.body);
    teamId = (await h.runtime.store.teams.findByName('importers'))!.id;
    for (const name of ['imports-example.test', '127.0.0.1']) {
      const res = await h.send('POST', '/rest/v2/assets/', { key: v2, body: { name } });
      assert.equal(res.statusCode, 200, res.body);
    }
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
  });
  after(async () => {
    await h.close();
  });

  /** Uploads a file and waits for its import to finish; answers the final status. */
  const importFile = async (format: string, body: string, key = v3): Promise<ImportBody> => {
    const res = await h.send('POST', `/rest/v3/imports?format=${format}`, {
      key,
      body,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(res.statusCode, 202, res.body);
    const created = res.json() as ImportBody;
    assert.equal(created.format, format);
    assert.ok(['queued', 'running', 'done'].includes(created.status));
    return waitUntil(
      `import ${created.id}`,
      async () => {
        const poll = await h.send('GET', `/rest/v3/imports/${created.id}`, { key });
        assert.equal(poll.statusCode, 200, poll.body);
        const last = poll.json() as ImportBody;
        return last.status === 'done' || last.status === 'failed' ? last : undefined;
      },
      20_000,
    );
  };

  const vulnerabilities = async (): Promise<V2Vulnerability[]> => {
    const res = await h.send('GET', '/rest/v2/vulnerabilities/?pageSize=100', { key: v2 });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { vulnerabilities: V2Vulnerability[] }).vulnerabilities;
  };

  const sources = async () => {
    const rows = await h.runtime.database.db
      .selectFrom('vulnerabilities')
      .select(['title', 'source'])
      .where('team_id', '=', teamId)
      .execute();
    return rows;
  };

  it('imports nuclei JSONL: findings on the team assets, the foreign host skipped, events and source written', async () => {
    const done = await importFile('nuclei', fixture('nuclei.jsonl'));
    assert.equal(done.status, 'done', JSON.stringify(done.error));
    assert.equal(done.progress, 100);
    assert.deepEqual(
      { ...done.counts },
      {
        lines: 3,
        results: 3,
        findings_created: 2,
        findings_updated: 0,
        skipped: 1,
        ports_recorded: 0,
        hosts_skipped: 0,
      },
    );
    const list = await vulnerabilities();
    const git = list.find((v) => v.title === 'Git Configuration - Detect');
    assert.ok(git, 'the git-config finding is listed');
    assert.equal(git.status, 'new');
    assert.equal(git.host, 'app.imports-example.test');
    assert.ok(!list.some((v) => v.host === 'unrelated-team.test'), 'no finding for a host the team does not own');
    const theirs = await h.send('GET', '/rest/v2/vulnerabilities/', { key: otherV2 });
    assert.deepEqual(theirs.json().vulnerabilities, [], "nothing written to the other team's asset");
    const created = await eventsOf(h.runtime.store, teamId, 'vulnerability.new');
    assert.equal(created.length, 2);
    assert.ok((await sources()).every((r) => r.source === 'import:nuclei'));
  });

  it('re-imports the same file without twins, then a finding marked fixed comes back as a regression', async () => {
    const again = await importFile('nuclei', fixture('nuclei.jsonl'));
    assert.equal(again.counts['findings_created'], 0);
    assert.equal(again.counts['findings_updated'], 2);
    let list = await vulnerabilities();
    assert.equal(list.length, 2, 'no twins');
    assert.ok(list.every((v) => v.status === 'active'));
    const git = list.find((v) => v.title === 'Git Configuration - Detect')!;
    const fixed = await h.send('POST', `/rest/v2/vulnerabilities/uuid/${git.uuid}/setfixedstatus/`, { key: v2 });
    assert.equal(fixed.statusCode, 200, fixed.body);
    assert.equal((await vulnerabilities()).find((v) => v.uuid === git.uuid)!.status, 'patched');
    await importFile('nuclei', fixture('nuclei.jsonl'));
    list = await vulnerabilities();
    assert.equal(list.find((v) => v.uuid === git.uuid)!.status, 'regression');
    const regressions = await eventsOf(h.runtime.store, teamId, 'vulnerability.regression');
    assert.equal(regressions.length, 1);
  });

  it('imports a ZAP JSON report: one finding per alert instance', async () => {
    const done = await importFile('zap', fixture('zap.json'));
    assert.equal(done.status, 'done', JSON.stringify(done.error));
    assert.equal(done.counts['results'], 3);
    assert.equal(done.counts['findings_created'], 3);
    const titles = (await vulnerabilities()).map((v) => v.title);
    assert.equal(titles.filter((t) => t === 'Content Security Policy (CSP) Header Not Set').length, 2);
    assert.ok(titles.includes('Cross Site Scripting (Reflected)'));
    const again = await importFile('zap', fixture('zap.json'));
    assert.deepEqual([again.counts['findings_created'], again.counts['findings_updated']], [0, 3]);
    assert.ok((await sources()).some((r) => r.source === 'import:zap'));
  });

  it('imports SARIF: results with URL locations, a result without a host skipped', async () => {
    const done = await importFile('sarif', fixture('sarif.json'));
    assert.equal(done.status, 'done', JSON.stringify(done.error));
    assert.deepEqual([done.counts['results'], done.counts['findings_created'], done.counts['skipped']], [3, 2, 1]);
    const rows = await sources();
    assert.equal(rows.find((r) => r.title === 'SQL injection')?.source, 'import:sarif');
  });

  it('imports the real output of nmap against a loopback server into the port inventory', async () => {
    const server: Server = createServer((socket) => {
      socket.on('error', () => undefined); // nmap's connect scan resets the connection
      socket.end('HTTP/1.0 200 OK\r\n\r\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const { stdout } = await promisify(execFile)('nmap', [
        '-oX',
        '-',
        '-sT',
        '-Pn',
        '-n',
        '-p',
        String(port),
        '127.0.0.1',
      ]);
      assert.match(stdout, /<nmaprun/);
      const done = await importFile('nmap', stdout);
      assert.equal(done.status, 'done', JSON.stringify(done.error));
      assert.equal(done.counts['ports_recorded'], 1);
      const ports = await h.send('GET', '/rest/v3/ports', { key: v3 });
      assert.equal(ports.statusCode, 200, ports.body);
      const items = (ports.json() as { items: Array<{ port: number; status: string; ip_address?: string }> }).items;
      const row = items.find((p) => p.port === port);
      assert.ok(row, `port ${port} is in the inventory: ${ports.body}`);
      assert.equal(row.status, 'OPEN');
      const opened = await eventsOf(h.runtime.store, teamId, 'port.opened');
      assert.ok(opened.length >= 1);
    } finally {
      server.close();
    }
  });

  it('a truncated or malformed file fails naming the line and imports nothing', async () => {
    const before = (await vulnerabilities()).length;
    const lines = fixture('nuclei.jsonl').split('\n');
    const truncated = `${lines[0]}\n${lines[1]!.slice(0, 200)}`;
    const cut = await importFile('nuclei', truncated.replace('http-missing-security-headers', 'fresh-template'));
    assert.equal(cut.status, 'failed');
    assert.equal(cut.error?.line, 2);
    assert.match(cut.error!.message, /line 2/);
    const zap = fixture('zap.json');
    const cutZap = await importFile('zap', zap.slice(0, zap.indexOf('"cweid": "79"')));
    assert.equal(cutZap.status, 'failed');
    assert.ok(cutZap.error!.line! > 50, JSON.stringify(cutZap.error));
    const badZap = await importFile('zap', zap.replace('"riskcode": "3",', '"riskcode": "3"'));
    assert.equal(badZap.status, 'failed');
    assert.equal(badZap.error?.line, zap.slice(0, zap.indexOf('"riskcode": "3"')).split('\n').length + 1);
    const xml =
      '<?xml version="1.0"?>\n<nmaprun>\n<host><address addr="127.0.0.1" addrtype="ipv4"/>\n<ports><port protocol="tcp" portid="22">';
    const cutXml = await importFile('nmap', xml);
    assert.equal(cutXml.status, 'failed');
    assert.match(cutXml.error!.message, /line 4/);
    assert.equal((await vulnerabilities()).length, before, 'nothing imported');
    assert.equal(
      (await eventsOf(h.runtime.store, teamId, 'vulnerability.new')).some((e) =>
        JSON.stringify(e.data).includes('fresh-template'),
      ),
      false,
    );
  });

  it('a failure while writing leaves nothing of the import; running it again writes it once', async () => {
    const line = (template: string, host: string) =>
      JSON.stringify({
        'template-id': template,
        info: { name: `Atomic ${template}`, severity: 'low' },
        host,
        'matched-at': `http://${host}/`,
      });
    const file = `${line('atomic-a', 'app.imports-example.test')}\n${line('atomic-b', '127.0.0.1')}\n`;
    const store = h.runtime.store;
    const team = (await store.teams.findByName('importers'))!;
    const job = await createImport(
      store,
      team,
      'nuclei',
      (async function* () {
        yield Buffer.from(file);
      })(),
    );
    const real = importWriters(h.runtime.scanRunner.findings);
    let calls = 0;
    const failing: ImportWriters<Repositories> = {
      ...real,
      async recordFindings(...args) {
        calls += 1;
        const result = await real.recordFindings(...args);
        if (calls === 2) throw new Error('planned failure after the second asset');
        return result;
      },
    };
    const before = (await vulnerabilities()).length;
    const newEvents = (await eventsOf(store, teamId, 'vulnerability.new')).length;
    await assert.rejects(runImport(store, failing, job.uuid), /planned failure/);
    assert.equal(calls, 2);
    assert.equal((await vulnerabilities()).length, before, 'no finding of the failed run');
    assert.equal((await eventsOf(store, teamId, 'vulnerability.new')).length, newEvents, 'no event of it');
    assert.equal((await store.imports.findByUuid(job.uuid))!.status, 'running');
    const done = (await runImport(store, real, job.uuid))!;
    assert.equal(done.status, 'done');
    assert.equal(done.counts.findingsCreated, 2);
    assert.equal((await vulnerabilities()).length, before + 2);
    const rerun = (await runImport(store, real, job.uuid))!;
    assert.equal(rerun.counts.findingsCreated, 2, 'a finished import is left as it is');
    assert.equal((await vulnerabilities()).length, before + 2);
  });

  it('refuses an upload holding NUL, naming the line', async () => {
    const res = await h.send('POST', '/rest/v3/imports?format=nuclei', {
      key: v3,
      body: '{}\n{}\n{"a":"\u0000"}\n',
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().type, '/problems/1051');
    assert.match(res.json().detail, /line 3/);
  });

  it("another team's import id answers as unknown; an unknown format and an empty body are refused", async () => {
    const res = await h.send('POST', '/rest/v3/imports?format=nuclei', { key: v3, body: fixture('nuclei.jsonl') });
    assert.equal(res.statusCode, 202, res.body);
    const id = (res.json() as ImportBody).id;
    const foreign = await h.send('GET', `/rest/v3/imports/${id}`, { key: otherV3 });
    assert.equal(foreign.statusCode, 404);
    const unknown = await h.send('GET', '/rest/v3/imports/6f1c1c8e-0000-4000-8000-000000000000', { key: v3 });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(foreign.json(), { ...unknown.json(), instance: `/rest/v3/imports/${id}` });
    const malformed = await h.send('GET', '/rest/v3/imports/not-a-uuid', { key: v3 });
    assert.equal(malformed.statusCode, 404);
    const format = await h.send('POST', '/rest/v3/imports?format=burp', { key: v3, body: '{}' });
    assert.equal(format.statusCode, 400, format.body);
    assert.equal(format.json().type, '/problems/4150');
    assert.match(format.json().detail, /nuclei, zap, sarif, nmap/);
    const missing = await h.send('POST', '/rest/v3/imports', { key: v3, body: '{}' });
    assert.equal(missing.statusCode, 400, missing.body);
    assert.match(missing.json().detail, /format missing/);
    const empty = await h.send('POST', '/rest/v3/imports?format=zap', {
      key: v3,
      body: '',
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(empty.statusCode, 400, empty.body);
    assert.equal(empty.json().type, '/problems/1050');
  });
});
