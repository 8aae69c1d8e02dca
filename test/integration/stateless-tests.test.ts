import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  ScanCounters,
  ScanSink,
  StatelessOptions,
  StatelessOrigin,
  StatelessOutcome,
} from '../../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';
import { serve, type TargetServer } from '../support/target-site.ts';
import { startVulnerableSites, type VulnerableSites } from '../support/vulnerable-site/index.ts';

// Every origin is 127.0.0.1: the system resolver is never asked and nothing leaves the machine.
const resolver = createDnsResolver(['127.0.0.1:9']); /* no name leaves the machine: a closed loopback port */
const engine = createHttpScanEngine({ guard: new EgressGuard(['127.0.0.0/8']), resolver });
const options: StatelessOptions = { requestsPerSecond: 0, customHeaders: [], requestTimeoutMs: 5000 };

/** The spots of the fixture's manifest the stateless tests cover (the rest needs a crawl). */
const COVERED_SPOTS = [
  'git-head',
  'directory-listing',
  'svn-wc-db',
  'env-file',
  'env-production',
  'backup-well-known',
  'phpinfo-probed',
  'server-status',
  'server-info',
  'default-page-nginx',
  'default-page-iis',
];

/** Every path the stateless tests may request, written out here independently of the engine's lists. */
const PROBE_PATHS = new Set([
  '/',
  '/perimeter-not-found',
  '/uploads/',
  '/files/',
  '/backup/',
  '/index.php',
  '/index.html',
  '/wp-config.php',
  '/config.php',
  '/.git/HEAD',
  '/.svn/wc.db',
  '/.svn/entries',
  '/.env',
  '/.env.local',
  '/.env.production',
  '/phpinfo.php',
  '/info.php',
  '/server-status',
  '/server-info',
  '/index.nginx-debian.html',
  '/iisstart.htm',
]);
/** Backup names of the well-known files and the random baselines of the same shape. */
const BACKUP_PATH =
  /^\/(?:(?:index\.php|index\.html|wp-config\.php|config\.php|prmtr[0-9a-f]{12}\.(?:php|html))(?:\.bak|~|\.old|\.orig)|\.(?:index\.php|index\.html|wp-config\.php|config\.php|prmtr[0-9a-f]{12}\.(?:php|html))\.swp)$/;

interface Recorded {
  findings: FindingInput[];
  warnings: string[];
  counters: ScanCounters[];
  outcome: StatelessOutcome;
  elapsedMs: number;
}

async function run(
  origins: StatelessOrigin[],
  overrides: Partial<StatelessOptions> = {},
  signal: AbortSignal = new AbortController().signal,
  scanEngine = engine,
): Promise<Recorded> {
  const findings: FindingInput[] = [];
  const warnings: string[] = [];
  const counters: ScanCounters[] = [];
  const sink: ScanSink = {
    finding: async (f) => void findings.push(f),
    progress: (c) => void counters.push(c),
    warning: (w) => void warnings.push(w),
  };
  const startedAt = performance.now();
  const outcome = await scanEngine.statelessTests(origins, { ...options, ...overrides }, sink, signal);
  return { findings, warnings, counters, outcome, elapsedMs: performance.now() - startedAt };
}

const originOf = (server: { port: number; scheme?: 'http' | 'https' }): StatelessOrigin => ({
  scheme: server.scheme ?? 'http',
  host: '127.0.0.1',
  port: server.port,
  scopeName: '127.0.0.1',
});
const pathOf = (finding: FindingInput): string => finding.location.replace(/^https?:\/\/[^/]+/, '');
const summary = (findings: FindingInput[]): string[] => findings.map((f) => `${f.checkId} ${pathOf(f)}`).sort();

/** A port nothing listens on (a server bound, then closed). */
async function closedPort(): Promise<number> {
  const server = await startHttpServer({});
  const port = server.port;
  await server.stop();
  return port;
}

// The Debian Apache welcome page at the start page of a bare server, and a Django DEBUG 404 page for any other path.
const APACHE_DEFAULT =
  '<!DOCTYPE html><html><head><title>Apache2 Debian Default Page: It works</title></head><body><div class="page_header">Apache2 Debian Default Page</div><div class="section_header">It works!</div><p>This is the default welcome page used to test the correct operation of the Apache2 server after installation on Debian systems.</p></body></html>';
const DJANGO_404 = (path: string): string =>
  `<!DOCTYPE html><html><head><title>Page not found at ${path}</title></head><body><p>Using the URLconf defined in <code>ops.urls</code>, Django tried these URL patterns, in this order:</p><ol><li>admin/</li></ol><p>You&#x27;re seeing this error because you have <code>DEBUG = True</code> in your Django settings file. Change that to <code>False</code>, and Django will display a standard 404 page.</p></body></html>`;

/** A host nobody configured: the vulnerable one shows its server's default page and a framework's debug 404; the safe one neither. */
function serveBareHost(isSafe: boolean): Promise<TargetServer> {
  return serve('http', (_req, res, url) => {
    if (url.pathname === '/') {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          isSafe
            ? '<!doctype html><title>Ops</title><h1>Ops dashboard</h1><p>It works! Sign in to continue.</p>'
            : APACHE_DEFAULT,
        );
      return;
    }
    res
      .writeHead(404, { 'content-type': 'text/html' })
      .end(isSafe ? '<!doctype html><title>Not found</title><p>Not found</p>' : DJANGO_404(url.pathname));
  });
}

describe('stateless tests: what they find', () => {
  let sites: VulnerableSites;
  let bare: TargetServer;
  let bareSafe: TargetServer;
  let vulnerable: Recorded;
  let safe: Recorded;
  // What the two fixture sites received from the stateless runs (a later test scans the vulnerable one).
  let vulnerableRequests: TargetServer['requests'];
  let safeRequests: TargetServer['requests'];
  const headers = [
    { name: 'X-Perimeter-Monitor', value: 'team-42' },
    { name: 'User-Agent', value: 'perimeter-monitor-test/1.0' },
  ];
  before(async () => {
    sites = await startVulnerableSites();
    bare = await serveBareHost(false);
    bareSafe = await serveBareHost(true);
    vulnerable = await run([originOf(sites.vulnerable), originOf(bare)], { customHeaders: headers });
    safe = await run([originOf(sites.safe), originOf(bareSafe)], { customHeaders: headers });
    vulnerableRequests = [...sites.vulnerable.requests];
    safeRequests = [...sites.safe.requests];
  });
  after(async () => {
    await sites.stop();
    await bare.stop();
    await bareSafe.stop();
  });

  it('finds every exposure, default and debug spot they cover on the vulnerable site, and nothing else', () => {
    assert.equal(vulnerable.outcome.status, 'completed');
    assert.deepEqual(vulnerable.warnings, []);
    const byOrigin = (port: number): FindingInput[] =>
      vulnerable.findings.filter((f) => f.location.includes(`:${port}/`));
    const expected = sites.manifest.filter((s) => COVERED_SPOTS.includes(s.id));
    assert.equal(expected.length, COVERED_SPOTS.length, 'every covered spot is in the manifest');
    assert.deepEqual(
      summary(byOrigin(sites.vulnerable.port)),
      expected.map((s) => `${s.checkId} ${s.location}`).sort(),
    );
    assert.deepEqual(summary(byOrigin(bare.port)), ['default-page /', 'stack-trace /perimeter-not-found']);
    assert.equal(
      byOrigin(bare.port).find((f) => f.checkId === 'default-page')?.title,
      'Web server default page: Apache (Debian/Ubuntu)',
    );
    assert.equal(
      byOrigin(bare.port).find((f) => f.checkId === 'stack-trace')?.title,
      'Stack trace or debug page disclosed: Django debug page',
    );
    for (const finding of vulnerable.findings) {
      const highlight = finding.details?.text?.[0]?.highlights.find((h) => h.field === 'response.body');
      assert.ok(
        highlight !== undefined && finding.response !== undefined,
        `${finding.checkId} ${finding.location}: evidence`,
      );
      assert.equal(finding.response.body.slice(highlight.offset, highlight.offset + highlight.length), highlight.value);
    }
  });

  it('reports nothing on the safe twins, soft-404 pages and a quoted welcome page included', () => {
    assert.equal(safe.outcome.status, 'completed');
    assert.deepEqual(summary(safe.findings), []);
    assert.deepEqual(
      safe.outcome.origins.map((o) => o.isAnswered),
      [true, true],
    );
  });

  it('reports each finding exactly as the application scanner does (check id, location, title, severity)', async () => {
    const findings: FindingInput[] = [];
    const sink: ScanSink = {
      finding: async (f) => void findings.push(f),
      progress: () => undefined,
      warning: () => undefined,
    };
    const outcome = await engine.scan(
      { ...originOf(sites.vulnerable) },
      { ...defaultScanProfileSettings },
      { maxPages: 500, maxDepth: 10, maxDurationMs: 60_000, requestTimeoutMs: 5000 },
      sink,
      new AbortController().signal,
    );
    assert.equal(outcome.status, 'completed');
    const shape = (f: FindingInput): string =>
      JSON.stringify([
        f.checkId,
        f.location,
        f.title,
        f.severity,
        f.cwe,
        f.cvss?.cvss_3_1?.vector,
        f.definition?.title,
      ]);
    const scanned = new Set(findings.map(shape));
    for (const finding of vulnerable.findings.filter((f) => f.location.includes(`:${sites.vulnerable.port}/`))) {
      assert.ok(scanned.has(shape(finding)), `the application scan reports ${shape(finding)}`);
    }
  });

  it('sends the custom headers with every request, and only GET', () => {
    const all = [...vulnerableRequests, ...safeRequests, ...bare.requests, ...bareSafe.requests];
    assert.ok(all.length >= 84, `${all.length} requests`);
    for (const request of all) {
      assert.equal(request.headers['x-perimeter-monitor'], 'team-42', request.path);
      assert.equal(request.headers['user-agent'], 'perimeter-monitor-test/1.0', request.path);
      assert.equal(request.headers.cookie, undefined, `${request.path}: no cookie is kept between requests`);
      assert.equal(request.method, 'GET', request.path);
    }
  });

  it('requests nothing outside the probe list, each path once, and counts what it sent', () => {
    for (const [requests, result] of [
      [vulnerableRequests, vulnerable.outcome.origins[0]],
      [safeRequests, safe.outcome.origins[0]],
      [bare.requests, vulnerable.outcome.origins[1]],
      [bareSafe.requests, safe.outcome.origins[1]],
    ] as const) {
      const paths = requests.map((r) => r.path);
      const outside = paths.filter((p) => !PROBE_PATHS.has(p) && !BACKUP_PATH.test(p));
      assert.deepEqual(outside, [], `origin ${result?.origin.port}`);
      assert.equal(new Set(paths).size, paths.length, `each path once: ${paths.join(' ')}`);
      assert.equal(result?.requestsSent, paths.length);
      assert.equal(result?.isAnswered, true);
    }
    // The bare hosts answer 404 to every file: the start page, the not-found probe, 12 probes, 3 directories, 4 files.
    assert.equal(bareSafe.requests.length, 21);
    const total = vulnerable.counters.at(-1);
    assert.equal(
      total?.requestsSent,
      vulnerable.outcome.origins.reduce((n, o) => n + o.requestsSent, 0),
      'progress totals add up the origins',
    );
  });
});

describe('stateless tests: pace, failures and abort', () => {
  let sites: VulnerableSites;
  let hanging: TestHttpServer;
  before(async () => {
    sites = await startVulnerableSites();
    hanging = await startHttpServer({ '/': { isHanging: true } });
  });
  after(async () => {
    await sites.stop();
    await hanging.stop();
  });

  it('honours requestsPerSecond per origin while origins run side by side', async () => {
    const rate = 25;
    const marker = [{ name: 'X-Run', value: 'rate' }];
    const result = await run([originOf(sites.vulnerable), originOf(sites.safe)], {
      requestsPerSecond: rate,
      customHeaders: marker,
    });
    assert.equal(result.outcome.status, 'completed');
    const spans: number[] = [];
    for (const server of [sites.vulnerable, sites.safe]) {
      const times = server.requests.filter((r) => r.headers['x-run'] === 'rate').map((r) => r.at);
      assert.ok(times.length >= 20, `${times.length} requests`);
      const span = times.at(-1)! - times[0]!;
      spans.push(span);
      // A bucket of one token: n requests span at least (n - 1) / rate seconds (timer slack allowed).
      assert.ok(span >= ((times.length - 1) * 1000) / rate - 60, `${times.length} requests in ${span.toFixed(0)} ms`);
      for (let i = rate; i < times.length; i += 1)
        assert.ok(times[i]! - times[i - rate]! >= 1000 - 150, 'never more than the rate in any second');
    }
    assert.ok(
      result.elapsedMs < spans[0]! + spans[1]! - 200,
      `origins ran side by side: ${result.elapsedMs.toFixed(0)} ms for spans ${spans.map((s) => s.toFixed(0)).join(' + ')}`,
    );
  });

  it('reports origins that refuse, time out, are denied or lie outside the scope, and tests the others', async () => {
    const refused = await closedPort();
    const timeoutEngine = run(
      [
        { ...originOf({ port: refused }) },
        originOf(hanging),
        { ...originOf(sites.safe), host: '127.0.0.2', scopeName: 'example.com' },
        originOf(sites.safe),
      ],
      { requestTimeoutMs: 400 },
    );
    const result = await timeoutEngine;
    assert.equal(result.outcome.status, 'completed');
    const [closed, hung, outside, answered] = result.outcome.origins;
    assert.deepEqual([closed?.isAnswered, closed?.requestsSent, closed?.error], [false, 1, 'connection refused']);
    assert.deepEqual([hung?.isAnswered, hung?.requestsSent], [false, 1]);
    assert.match(hung?.error ?? '', /timed out after 400 ms/);
    assert.deepEqual([outside?.isAnswered, outside?.requestsSent], [false, 0]);
    assert.match(outside?.error ?? '', /not example\.com or a name under it/);
    assert.equal(answered?.isAnswered, true);
    assert.ok((answered?.requestsSent ?? 0) >= 21);

    const strict = createHttpScanEngine({ guard: new EgressGuard([]), resolver });
    const denied = await run([originOf(sites.safe)], {}, new AbortController().signal, strict);
    assert.deepEqual([denied.outcome.origins[0]?.isAnswered, denied.outcome.origins[0]?.requestsSent], [false, 0]);
    assert.match(denied.outcome.origins[0]?.error ?? '', /denied by egress guard/);
  });

  it('stops within a second of the abort: paced requests and a request left hanging', async () => {
    const controller = new AbortController();
    const pending = run(
      [originOf(sites.vulnerable), originOf(hanging)],
      { requestsPerSecond: 2, requestTimeoutMs: 60_000, customHeaders: [{ name: 'X-Run', value: 'abort' }] },
      controller.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const before = sites.vulnerable.requests.filter((r) => r.headers['x-run'] === 'abort').length;
    assert.ok(before >= 2, `${before} requests before the abort`);
    const abortedAt = performance.now();
    controller.abort();
    const result = await pending;
    const stoppedIn = performance.now() - abortedAt;
    assert.ok(stoppedIn < 1000, `stopped in ${stoppedIn.toFixed(0)} ms`);
    assert.equal(result.outcome.status, 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(
      sites.vulnerable.requests.filter((r) => r.headers['x-run'] === 'abort').length,
      before,
      'no request after the abort',
    );
    assert.equal(result.outcome.origins[1]?.isAnswered, false);
  });

  it("follows the start page to its file on the same origin and tries that file's backup names", async () => {
    const site = await startHttpServer({
      '/': { status: 302, headers: { location: '/home.php' } },
      '/home.php': {
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<!doctype html><title>Home</title><p>Welcome back.</p>',
      },
      '/home.php~': "<?php\n$db = new PDO('mysql:host=db.internal', 'app', 'app-pass');\n",
    });
    try {
      const result = await run([originOf(site)]);
      assert.deepEqual(summary(result.findings), ['backup-files /home.php~']);
      const paths = site.requests.map((line) => line.split(' ')[1]);
      assert.deepEqual(paths.slice(0, 2), ['/', '/home.php']);
      assert.equal(result.outcome.origins[0]?.requestsSent, site.requests.length);
    } finally {
      await site.stop();
    }
  });

  it('resolves at once with every origin untested when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const before = sites.safe.requests.length;
    const result = await run([originOf(sites.safe)], {}, controller.signal);
    assert.equal(result.outcome.status, 'aborted');
    assert.deepEqual(
      result.outcome.origins.map((o) => [o.isAnswered, o.requestsSent]),
      [[false, 0]],
    );
    assert.equal(sites.safe.requests.length, before);
  });
});
