import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { spawnOwned } from '../support/child-processes.ts';
import { buildClient, clientEnv, listen, runCli, type CliRun } from '../support/client-cli.ts';
import { finding, scan, scanTarget } from '../support/findings.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';

// The client command line (src/client, docs/cli.md), compiled to dist/client/cli.js and run as a
// process of its own through bin/perimeter.js against a listening server: login, assets, findings
// in three formats, a scan followed to its verdict, exports and imports, help, and exit codes.

const severityCodes: Record<string, number> = { none: 0, information: 0, low: 10, medium: 11, high: 12, critical: 13 };

describe(`perimeter client command line (${testStore})`, () => {
  let h: Harness;
  let server: string;
  let key: string;
  let v3Key: string;
  let site: TargetServer;
  let profileToken: string;
  const configHome = mkdtempSync(join(tmpdir(), 'perimeter-cli-config-'));
  const work = mkdtempSync(join(tmpdir(), 'perimeter-cli-work-'));
  /** A run with the stored login (or none), plus extra environment. */
  const cli = (argv: string[], extra: Record<string, string> = {}, input?: string): Promise<CliRun> =>
    runCli(argv, { env: clientEnv(configHome, extra), ...(input === undefined ? {} : { input }) });
  /** A run with the login in the environment, as a CI pipeline gives it. */
  const ci = (argv: string[]): Promise<CliRun> =>
    cli(argv, { PERIMETER_SERVER: server, PERIMETER_API_KEY: key, PERIMETER_V3_API_KEY: v3Key });

  before(async () => {
    await buildClient();
    h = await createHarness({ endpointValidationTimeoutMs: 3000 });
    key = (await h.team('cli', { plan: 'enterprise' })).key;
    v3Key = (await h.key('cli', '--v3')).key;
    server = await listen(h);
    site = await startGeneratedSite(12);
    const asset = await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } });
    assert.equal(asset.statusCode, 200, asset.body);
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'cli');
    const profile = await h.send('POST', '/rest/v2/profiles/', {
      key,
      body: { asset_token: asset.json().token, endpoint: `127.0.0.1:${site.port}`, name: 'loopback-site' },
    });
    assert.equal(profile.statusCode, 200, profile.body);
    profileToken = profile.json().token;
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
    const target = await scanTarget(h, 'cli', 'app.example.com');
    await scan(h, target, [
      finding('xss', { severity: 'high', title: 'Reflected XSS' }),
      finding('hdr', { severity: 'low', title: 'Header missing, "quoted"' }),
    ]);
  });
  after(async () => {
    await h?.close();
    await site?.stop();
    rmSync(configHome, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('prints its version and a help listing client and server commands', async () => {
    const version = await cli(['--version']);
    assert.equal(version.code, 0, version.stderr);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal(version.stdout, `perimeter ${pkg.version}\n`);
    const top = await cli(['--help']);
    assert.equal(top.code, 0);
    for (const word of ['login', 'assets', 'scan start', 'findings export', 'import', 'serve', 'migrate', 'admin'])
      assert.ok(top.stdout.includes(word), `top help names ${word}`);
  });

  it('answers --help for every command and subcommand, with exit 0 and no call to a server', async () => {
    const lines = [
      ['login'],
      ['logout'],
      ['assets'],
      ['assets', 'list'],
      ['assets', 'add'],
      ['assets', 'rm'],
      ['scan'],
      ['scan', 'start'],
      ['scan', 'stop'],
      ['scan', 'status'],
      ['findings'],
      ['findings', 'list'],
      ['findings', 'export'],
      ['import'],
    ];
    const runs = await Promise.all(lines.map((words) => cli([...words, '--help'])));
    runs.forEach((run, i) => {
      const words = lines[i]!.join(' ');
      assert.equal(run.code, 0, `${words} --help: ${run.stderr}`);
      assert.match(run.stdout, new RegExp(`^usage: perimeter ${words}`), `${words} --help`);
    });
  });

  it('exits 2 with the usage on a usage error', async () => {
    for (const argv of [
      ['assets', 'lst'],
      ['assets', 'add'],
      ['findings', 'list', '--format', 'xml'],
      ['findings', 'list', '--colour', 'red'],
      ['scan', 'start', 'x', '--fail-on', 'high'],
      ['import', 'word', 'file'],
    ]) {
      const run = await ci(argv);
      assert.equal(run.code, 2, `${argv.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^perimeter: .+\n(.*\n)*usage: perimeter/, argv.join(' '));
    }
    const notLoggedIn = await cli(['assets', 'list']);
    assert.equal(notLoggedIn.code, 2);
    assert.match(notLoggedIn.stderr, /no server: run `perimeter login`/);
  });

  it('refuses a bad key with the API message and exit 3, and writes nothing', async () => {
    const run = await cli(['login', '--server', server, '--key', 'ffffffffffffffffffffffffffffffff']);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /perimeter: the v2 key was refused: .*\(error 1003, HTTP 401\)/);
    assert.throws(() => statSync(join(configHome, 'perimeter', 'config.json')), /ENOENT/);
    const envKey = await cli(['assets', 'list'], { PERIMETER_SERVER: server, PERIMETER_API_KEY: 'f'.repeat(32) });
    assert.equal(envKey.code, 3);
    assert.match(envKey.stderr, /error 1003, HTTP 401/);
  });

  it('exits 3 when the server cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const run = await cli(['assets', 'list'], { PERIMETER_SERVER: `127.0.0.1:${port}`, PERIMETER_API_KEY: key });
    assert.equal(run.code, 3);
    assert.equal(run.stderr, `perimeter: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
  });

  it('logs in (prompting for what is missing) into a 0600 file in a 0700 folder, and logs out', async () => {
    const prompted = await cli(['login'], {}, `${server}\n${key}\n\n`);
    assert.equal(prompted.code, 0, prompted.stderr);
    const path = join(configHome, 'perimeter', 'config.json');
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { server, key });
    const out = await cli(['logout']);
    assert.equal(out.code, 0);
    assert.throws(() => statSync(path), /ENOENT/);

    const run = await cli(['login', '--server', server, '--key', key, '--v3-key', v3Key]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /logged in to http:\/\/127\.0\.0\.1:\d+ \(v2 and v3 keys\)/);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(configHome, 'perimeter')).mode & 0o777, 0o700);
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { server, key, v3Key });
  });

  it('adds, lists and removes assets (by name and by token)', async () => {
    const added = await cli(['assets', 'add', 'cli-one.example']);
    assert.equal(added.code, 0, added.stderr);
    const token = /token ([0-9a-f]{32})/.exec(added.stdout)?.[1];
    assert.ok(token, added.stdout);
    assert.equal((await cli(['assets', 'add', 'cli-two.example'])).code, 0);
    const duplicate = await cli(['assets', 'add', 'cli-two.example']);
    assert.equal(duplicate.code, 3);
    assert.match(duplicate.stderr, /\(error 2018, HTTP 409\)/);

    const table = await cli(['assets', 'list']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^token\s+name\s+status\s+monitored\s+created\n/);
    assert.match(table.stdout, new RegExp(`${token}\\s+cli-one\\.example`));
    const json = JSON.parse((await cli(['assets', 'list', '--format', 'json'])).stdout) as { name: string }[];
    assert.deepEqual(
      json.map((a) => a.name).filter((n) => n.startsWith('cli-')),
      ['cli-one.example', 'cli-two.example'],
    );
    const csv = (await cli(['assets', 'list', '--format', 'csv'])).stdout.split('\n');
    assert.equal(csv[0], 'token,name,status,monitored,created');

    assert.equal((await cli(['assets', 'rm', token!])).code, 0);
    const byName = await cli(['assets', 'rm', 'cli-two.example']);
    assert.equal(byName.code, 0, byName.stderr);
    assert.match(byName.stdout, /removed cli-two\.example/);
    const left = JSON.parse((await ci(['assets', 'list', '--format', 'json'])).stdout) as { name: string }[];
    assert.deepEqual(
      left.filter((a) => a.name.startsWith('cli-')),
      [],
    );
  });

  it('signs its v2 requests with the secret of a signing key', async () => {
    const signing = await h.key('cli', '--signing');
    const env = { PERIMETER_SERVER: server, PERIMETER_API_KEY: signing.key };
    const signed = await cli(['assets', 'list', '--format', 'json'], { ...env, PERIMETER_API_SECRET: signing.secret! });
    assert.equal(signed.code, 0, signed.stderr);
    assert.ok(Array.isArray(JSON.parse(signed.stdout)));
    const unsigned = await cli(['assets', 'list'], env);
    assert.equal(unsigned.code, 3);
    assert.match(unsigned.stderr, /HTTP 401/);
  });

  it('lists findings as a table, JSON and CSV, with filters', async () => {
    const filter = ['--host', 'app.example.com'];
    const table = await cli(['findings', 'list', ...filter]);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^severity\s+status\s+host\s+title\s+uuid\s+last seen$/);
    assert.match(lines[1]!, /^high\s+new\s+app\.example\.com\s+Reflected XSS\s/);
    assert.match(lines[2]!, /^low\s+new\s+app\.example\.com\s+Header missing, "quoted"\s/);

    const json = await cli(['findings', 'list', ...filter, '--format', 'json']);
    const items = JSON.parse(json.stdout) as { title: string; severity: string; uuid: string }[];
    assert.deepEqual(items.map((f) => f.severity).sort(), ['high', 'low']);

    const csv = await cli(['findings', 'list', ...filter, '--format', 'csv']);
    const rows = csv.stdout.trimEnd().split('\n');
    assert.equal(
      rows[0],
      'uuid,severity,status,title,host,asset,scan_source,scan_profile_token,cwe,created_at,updated_at',
    );
    assert.equal(rows.length, 3);
    assert.ok(
      rows.some((r) => r.includes(',"Header missing, ""quoted""",app.example.com,')),
      csv.stdout,
    );

    const high = JSON.parse(
      (await cli(['findings', 'list', ...filter, '--severity', 'high', '--format', 'json'])).stdout,
    );
    assert.deepEqual(
      high.map((f: { title: string }) => f.title),
      ['Reflected XSS'],
    );
    const limited = JSON.parse((await cli(['findings', 'list', '--limit', '1', '--format', 'json'])).stdout);
    assert.equal(limited.length, 1);
    const none = await cli(['findings', 'list', '--host', 'nothing.example']);
    assert.equal(none.stdout, 'no findings\n');
  });

  it('exports findings as CSV, NDJSON and SARIF, to a file or standard output', async () => {
    const file = join(work, 'findings.csv');
    const csv = await cli(['findings', 'export', '--format', 'csv', '--host', 'app.example.com', '-o', file]);
    assert.equal(csv.code, 0, csv.stderr);
    assert.match(csv.stderr, /wrote \d+ bytes of csv to /);
    assert.ok(readFileSync(file, 'utf8').includes('Reflected XSS'));
    const ndjson = await cli(['findings', 'export', '--format', 'ndjson', '--host', 'app.example.com']);
    assert.equal(ndjson.code, 0, ndjson.stderr);
    const records = ndjson.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { title: string });
    assert.deepEqual(records.map((r) => r.title).sort(), ['Header missing, "quoted"', 'Reflected XSS']);
    const sarif = await cli(['findings', 'export', '--format', 'sarif', '--host', 'app.example.com']);
    assert.equal(sarif.code, 0, sarif.stderr);
    const log = JSON.parse(sarif.stdout) as { version: string; runs: { results: unknown[] }[] };
    assert.equal(log.version, '2.1.0');
    assert.equal(log.runs[0]!.results.length, 2);

    const missing = await cli(['findings', 'export', '--format', 'csv'], {
      PERIMETER_V3_API_KEY: '',
      XDG_CONFIG_HOME: work,
    });
    assert.equal(missing.code, 2);
    const v2OnV3 = await cli(['findings', 'export', '--format', 'csv'], {
      PERIMETER_SERVER: server,
      PERIMETER_V3_API_KEY: key,
    });
    assert.equal(v2OnV3.code, 3, v2OnV3.stderr);
    assert.match(v2OnV3.stderr, /HTTP 401/);
  });

  it('imports a nuclei file and waits for it; a malformed one fails naming the line (exit 4)', async () => {
    assert.equal((await cli(['assets', 'add', 'app.imports-example.test'])).code, 0);
    const run = await cli(['import', 'nuclei', 'test/fixtures/imports/nuclei.jsonl', '--wait', '--interval', '0.2']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^import [0-9a-f-]{36} done: .*findings created \d+/);
    const queued = await cli(['import', 'nuclei', 'test/fixtures/imports/nuclei.jsonl']);
    assert.equal(queued.code, 0, queued.stderr);
    assert.match(queued.stdout, /^import [0-9a-f-]{36} (queued|running|done)/);

    const bad = join(work, 'bad.jsonl');
    writeFileSync(bad, '{"template-id": "x"\n');
    const failed = await cli(['import', 'nuclei', bad, '--wait', '--interval', '0.2']);
    assert.equal(failed.code, 4, failed.stderr);
    assert.match(failed.stderr, /perimeter: import [0-9a-f-]{36} failed: .*line 1/);
    const absent = await cli(['import', 'zap', join(work, 'absent.json')]);
    assert.equal(absent.code, 2);
    assert.match(absent.stderr, /cannot read .*absent\.json: ENOENT/);
  });

  it('starts a scan and waits for it: a line per change, findings by severity, the exit code of the highest', async () => {
    const run = await cli(['scan', 'start', 'loopback-site', '--wait', '--interval', '0.2']);
    const summary =
      /scan of loopback-site completed: critical (\d+), high (\d+), medium (\d+), low (\d+), information (\d+)/.exec(
        run.stdout,
      );
    assert.ok(summary, `${run.stdout}\n${run.stderr}`);
    const [critical, high, medium, low, information] = summary.slice(1).map(Number);
    const highest =
      critical! > 0
        ? 'critical'
        : high! > 0
          ? 'high'
          : medium! > 0
            ? 'medium'
            : low! > 0
              ? 'low'
              : information! > 0
                ? 'information'
                : 'none';
    assert.equal(run.code, severityCodes[highest], run.stderr);
    assert.match(run.stderr, /^scanning loopback-site \(127\.0\.0\.1:\d+\)\n/);
    assert.match(run.stderr, /\ncompleted 100%/);
    const progressLines = run.stderr.split('\n').filter((l) => /^(starting|running|completed) \d+%/.test(l));
    assert.equal(new Set(progressLines).size, progressLines.length, 'a line per change, no repeats');

    // The CI gate: --fail-on exits 1 when a finding is at or above it, else 0.
    const gate = await ci(['scan', 'start', profileToken, '--wait', '--interval', '0.2', '--fail-on', 'critical']);
    assert.equal(gate.code, critical! > 0 ? 1 : 0, gate.stderr);
    const status = await ci(['scan', 'status', 'loopback-site', '--format', 'json']);
    assert.equal(status.code, 0, status.stderr);
    assert.equal((JSON.parse(status.stdout) as { status: string }).status, 'completed');
  });

  it(
    'draws a progress bar with the percentage on a terminal',
    { skip: !existsSync('/usr/bin/script') && 'no script(1)' },
    async () => {
      // script(1) runs the command on a pseudo-terminal: standard error is a TTY there.
      const line = ['node', 'bin/perimeter.js', 'scan', 'start', profileToken, '--wait', '--interval', '0.2'].join(' ');
      const child = spawnOwned('/usr/bin/script', ['-qec', line, '/dev/null'], {
        env: clientEnv(configHome, { PERIMETER_SERVER: server, PERIMETER_API_KEY: key }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.ok(code !== 2 && code !== 3 && code !== 4, `exit ${code}: ${output}`);
      const clearLine = '\r\u001b[K';
      const redraws = output.split(clearLine).slice(1);
      assert.ok(redraws.length >= 2, `the bar is redrawn in place: ${JSON.stringify(output)}`);
      assert.match(redraws[0]!, /^\[[#-]{30}\]\s+\d+% (starting|running)/, output);
      assert.match(redraws.at(-1)!, /^\[#{30}\] 100% completed/, output);
    },
  );

  it('stops a running scan; a stop with no scan running is the API error, exit 3', async () => {
    const slow = await h.send('PUT', `/rest/v2/profiles/${profileToken}/settings/`, {
      key,
      body: { requests_per_second: 5 },
    });
    assert.equal(slow.statusCode, 200, slow.body);
    const started = await cli(['scan', 'start', 'loopback-site']);
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stdout, /scan of loopback-site \([0-9a-f]{32}\) requested/);
    const stopped = await cli(['scan', 'stop', 'loopback-site']);
    assert.equal(stopped.code, 0, stopped.stderr);
    const waited = await cli(['scan', 'start', 'no-such-profile']);
    assert.equal(waited.code, 3);
    assert.match(waited.stderr, /no scan profile with the token, name or endpoint "no-such-profile"/);
  });
});
