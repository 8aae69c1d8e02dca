import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ScanCounters, ScanLimits, ScanSink, ScanTarget } from '../../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings, type ScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver, type DnsResolver } from '../../src/engine/dns/resolver.ts';
import { createDefaultChecks, createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { startHttpServer } from '../support/http-server.ts';
import { startGeneratedSite, startTargetSite, type TargetServer, type TargetSites } from '../support/target-site.ts';

// Every target is an IP literal on 127.0.0.1, so the system resolver is never asked.
const resolver = createDnsResolver(['127.0.0.1:9']); /* no name leaves the machine: a closed loopback port */
const engine = createHttpScanEngine({ guard: new EgressGuard(['127.0.0.0/8']), resolver });
const limits: ScanLimits = { maxPages: 200, maxDepth: 10, maxDurationMs: 20_000, requestTimeoutMs: 2000 };
const never = (): AbortSignal => new AbortController().signal;

interface RecordingSink extends ScanSink {
  findings: FindingInput[];
  warnings: string[];
  counters: ScanCounters[];
}

/** A sink that keeps everything it is told. */
function recordingSink(): RecordingSink {
  const findings: FindingInput[] = [];
  const warnings: string[] = [];
  const counters: ScanCounters[] = [];
  return {
    findings,
    warnings,
    counters,
    finding: async (f) => {
      findings.push(f);
    },
    progress: (c) => counters.push(c),
    warning: (message) => warnings.push(message),
  };
}

const targetOf = (server: TargetServer): ScanTarget => ({
  scheme: server.scheme,
  host: '127.0.0.1',
  port: server.port,
  scopeName: '127.0.0.1',
});
const settingsWith = (overrides: Partial<ScanProfileSettings> = {}): ScanProfileSettings => ({
  ...defaultScanProfileSettings,
  ...overrides,
});

async function scan(
  server: TargetServer,
  overrides: Partial<ScanProfileSettings> = {},
  scanLimits: ScanLimits = limits,
): Promise<RecordingSink & { status: string; error: string | undefined }> {
  const sink = recordingSink();
  const outcome = await engine.scan(targetOf(server), settingsWith(overrides), scanLimits, sink, never());
  return Object.assign(sink, { status: outcome.status, error: outcome.error });
}

const summary = (findings: FindingInput[]): string[] =>
  findings.map((f) => `${f.checkId} ${f.location.replace(/:\d+/, ':PORT')}`).sort();

describe('http scan engine: checks', () => {
  let sites: TargetSites;
  let tls: TargetSites;
  before(async () => {
    sites = await startTargetSite();
    tls = await startTargetSite({ isHttps: true });
  });
  after(async () => {
    await sites.stop();
    await tls.stop();
  });

  it('finds every check on the vulnerable site, with evidence', async () => {
    const result = await scan(sites.vulnerable);
    assert.equal(result.status, 'completed', result.error);
    // The first five checks on this site; the later checks are judged on test/support/vulnerable-site.
    const firstChecks = new Set([
      'cookie-flags',
      'directory-listing',
      'exposed-git',
      'http-security-headers',
      'reflected-xss',
    ]);
    assert.deepEqual(
      summary(result.findings.filter((f) => firstChecks.has(f.checkId) && !/header=referrer-policy/.test(f.location))),
      [
        'cookie-flags http://127.0.0.1:PORT/?cookie=session&flag=httponly',
        'cookie-flags http://127.0.0.1:PORT/?cookie=session&flag=samesite',
        'directory-listing http://127.0.0.1:PORT/files/',
        'exposed-git http://127.0.0.1:PORT/.git/HEAD',
        'http-security-headers http://127.0.0.1:PORT/?header=content-security-policy',
        'http-security-headers http://127.0.0.1:PORT/?header=x-content-type-options',
        'http-security-headers http://127.0.0.1:PORT/?header=x-frame-options',
        'reflected-xss http://127.0.0.1:PORT/search?q=',
      ],
    );
    const xss = result.findings.find((f) => f.checkId === 'reflected-xss')!;
    assert.equal(xss.cwe, 79);
    assert.deepEqual(xss.cvss?.cvss_3_1, {
      score: 6.1,
      severity: 'medium',
      vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
    });
    assert.equal(xss.severityV3, 'medium');
    assert.deepEqual(xss.owasp, [{ classification: 'A03:2021-Injection', year: 2021 }]);
    const highlight = xss.details?.text?.[0]?.highlights[0];
    assert.ok(highlight !== undefined && highlight.field === 'response.body');
    assert.equal(xss.response?.body.slice(highlight.offset, highlight.offset + highlight.length), highlight.value);
    assert.match(highlight.value, /^<prmtr[0-9a-f]+>$/);
    assert.match(xss.details?.text?.[0]?.value ?? '', /the HTML text of a <p> element/);
    assert.match(xss.request?.url ?? '', /\/search\?q=/);
    const git = result.findings.find((f) => f.checkId === 'exposed-git')!;
    assert.equal(git.cvss?.cvss_3_1?.score, 7.5);
    assert.equal(git.details?.text?.[0]?.highlights[0]?.value, 'ref: refs/heads/main');
    const listing = result.findings.find((f) => f.checkId === 'directory-listing')!;
    assert.equal(listing.details?.text?.[0]?.highlights[0]?.value, 'Index of /files/');
    for (const f of result.findings) {
      assert.equal(f.host, '127.0.0.1');
      assert.equal(f.definition.is_crowdsourced, false);
      assert.ok(f.references !== undefined && f.references.length >= 2);
      assert.ok(f.response !== undefined && f.response.body.length <= 16 * 1024);
      assert.ok((f.details?.markdown?.[0]?.value ?? '').length > 0, 'remediation in details.markdown');
    }
    const last = result.counters.at(-1)!;
    assert.ok(
      last.pagesCrawled >= 10 &&
        last.requestsSent > last.pagesCrawled &&
        last.checksDone === last.pagesCrawled * createDefaultChecks().length,
      JSON.stringify(last),
    );
  });

  it('reports nothing on the safe twin, although every check ran against it', async () => {
    const result = await scan(sites.safe);
    assert.equal(result.status, 'completed');
    assert.deepEqual(result.findings, []);
    const paths = sites.safe.requests.map((r) => r.path);
    assert.ok(paths.includes('/.git/HEAD'));
    assert.ok(paths.includes('/files/'));
    // The probe comes back encoded in text: the text breakout was tried, and failed.
    assert.ok(paths.some((p) => p.startsWith('/search?q=%3Cprmtr')));
    assert.ok(
      paths.some((p) => p.startsWith('/find?term=')),
      'GET form followed with its inputs filled',
    );
    assert.ok(
      sites.safe.requests.some((r) => r.method === 'POST' && r.path === '/login'),
      'POST form submitted with its inputs filled',
    );
  });

  it('over HTTPS also finds Strict-Transport-Security and the Secure flag, and nothing on the safe twin', async () => {
    const vulnerable = await scan(tls.vulnerable);
    const ids = summary(vulnerable.findings);
    assert.ok(
      ids.includes('http-security-headers https://127.0.0.1:PORT/?header=strict-transport-security'),
      ids.join('\n'),
    );
    assert.ok(ids.includes('cookie-flags https://127.0.0.1:PORT/?cookie=session&flag=secure'), ids.join('\n'));
    // The first five checks' findings (the later checks add Referrer-Policy and clickjacking here; they are judged on test/support/vulnerable-site).
    const firstChecks = new Set([
      'cookie-flags',
      'directory-listing',
      'exposed-git',
      'http-security-headers',
      'reflected-xss',
    ]);
    assert.equal(
      vulnerable.findings.filter((f) => firstChecks.has(f.checkId) && !/header=referrer-policy/.test(f.location))
        .length,
      10,
    );
    const safe = await scan(tls.safe);
    assert.deepEqual(summary(safe.findings), []);
  });
});

describe('http scan engine: settings and limits', () => {
  let sites: TargetSites;
  let generated: TargetServer;
  before(async () => {
    sites = await startTargetSite();
    generated = await startGeneratedSite(300);
  });
  after(async () => {
    await sites.stop();
    await generated.stop();
  });

  it('sends custom headers, cookies, the session cookie, basic auth and the cookies the site sets', async () => {
    const before = sites.vulnerable.requests.length;
    await scan(sites.vulnerable, {
      custom_headers: [{ name: 'X-Scan-Token', value: 'tok-1' }],
      custom_cookies: [{ name: 'pref', value: 'dark', secure: false, httponly: false }],
      session_cookie: { name: 'sid', value: 's3cr3t', secure: true, httponly: true },
      basic_auth: { username: 'alice', password: 'pa ss' },
    });
    const received = sites.vulnerable.requests.slice(before);
    assert.ok(received.length > 10);
    for (const request of received) {
      assert.equal(request.headers['x-scan-token'], 'tok-1');
      assert.match(String(request.headers.cookie), /pref=dark/);
      assert.match(String(request.headers.cookie), /sid=s3cr3t/);
      assert.equal(request.headers.authorization, `Basic ${Buffer.from('alice:pa ss').toString('base64')}`);
    }
    const afterAccount = received.slice(received.findIndex((r) => r.path === '/account') + 1);
    assert.ok(
      afterAccount.some((r) => String(r.headers.cookie).includes('session=abc123')),
      'site cookie sent back',
    );
  });

  it('never requests blacklisted paths', async () => {
    const before = sites.vulnerable.requests.length;
    const result = await scan(sites.vulnerable, { blacklisted_paths: ['/admin', '/files', '/.git'] });
    const paths = sites.vulnerable.requests.slice(before).map((r) => r.path);
    assert.ok(paths.includes('/about'));
    assert.deepEqual(
      paths.filter((p) => p.startsWith('/admin') || p.startsWith('/files') || p.startsWith('/.git')),
      [],
    );
    assert.ok(!result.findings.some((f) => f.checkId === 'exposed-git' || f.checkId === 'directory-listing'));
  });

  it('keeps to whitelisted paths plus the start page', async () => {
    const before = sites.vulnerable.requests.length;
    await scan(sites.vulnerable, { whitelisted_paths: ['/app'] });
    const paths = [...new Set(sites.vulnerable.requests.slice(before).map((r) => r.path))].sort();
    // /app/ is the directory-listing check asking for the parent of /app/page: still under /app.
    assert.deepEqual(paths, ['/', '/app/', '/app/inner', '/app/page']);
  });

  it('scans whitelisted ports of the target host as extra origins', async () => {
    const before = sites.safe.requests.length;
    const result = await scan(sites.vulnerable, { whitelisted_ports: [sites.safe.port] });
    assert.ok(sites.safe.requests.length - before > 5);
    assert.ok(!result.findings.some((f) => f.location.includes(`:${sites.safe.port}`)));
  });

  it('asks for a parent directory the crawl fetches itself only once, and still judges it', async () => {
    // "/" is an auto-index answered late: its children robots.txt and sitemap.xml are inspected
    // while it is pending, and the directory-listing check must not request "/" again (the crawl
    // does). Other checks' requests of "/" follow its answer.
    const listing =
      '<html><head><title>Index of /</title></head><body><h1>Index of /</h1><a href="notes.txt">notes.txt</a></body></html>';
    let rootGetsBeforeAnswer = 0;
    let isAnswered = false;
    const server = createServer((req, res) => {
      if (req.url !== '/') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      if (req.method === 'GET' && !isAnswered) rootGetsBeforeAnswer += 1;
      setTimeout(() => {
        isAnswered = true;
        res.writeHead(200, { 'content-type': 'text/html' }).end(listing);
      }, 300);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const sink = recordingSink();
      const outcome = await engine.scan(
        { scheme: 'http', host: '127.0.0.1', port, scopeName: '127.0.0.1' },
        settingsWith(),
        limits,
        sink,
        never(),
      );
      assert.equal(outcome.status, 'completed', outcome.error);
      assert.equal(rootGetsBeforeAnswer, 1, 'only the crawl asked for "/" while it was pending');
      assert.deepEqual(summary(sink.findings.filter((f) => f.checkId === 'directory-listing')), [
        'directory-listing http://127.0.0.1:PORT/',
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('stops at maxPages with a warning and still completes', async () => {
    const result = await scan(generated, {}, { ...limits, maxPages: 5 });
    assert.equal(result.status, 'completed');
    assert.ok(
      result.warnings.some((w) => w.includes('maxPages')),
      result.warnings.join('\n'),
    );
    assert.equal(result.counters.at(-1)?.pagesCrawled, 5);
  });

  it('stops at maxDepth with a warning', async () => {
    const result = await scan(generated, {}, { ...limits, maxDepth: 2 });
    assert.ok(result.warnings.some((w) => w.includes('maxDepth')));
    assert.ok((result.counters.at(-1)?.pagesCrawled ?? 0) < 20);
  });

  it('crawls a 300-page site completely (benchmark)', async () => {
    const started = performance.now();
    const result = await scan(generated, {}, { ...limits, maxPages: 1000, maxDepth: 20 });
    const elapsed = performance.now() - started;
    assert.equal(result.status, 'completed');
    // 300 pages, robots.txt and sitemap.xml (both 404 here).
    assert.equal(result.counters.at(-1)?.pagesCrawled, 302);
    assert.deepEqual(result.warnings, []);
    console.log(`# crawled 300 pages in ${Math.round(elapsed)} ms`);
  });

  it('honours requests_per_second across crawler and checks', async () => {
    const small = await startGeneratedSite(6);
    try {
      const started = performance.now();
      // 40/s: every check's requests of a 6-page site (about 200) take some 5 s.
      const rate = 40;
      const result = await scan(small, { requests_per_second: rate });
      const elapsed = performance.now() - started;
      const times = small.requests.map((r) => r.at);
      const n = times.length;
      assert.ok(n >= 7, `requests: ${n}`);
      assert.equal(result.counters.at(-1)?.requestsSent, n);
      assert.ok(elapsed >= ((n - 1) / rate) * 1000, `${n} requests in ${elapsed} ms`);
      assert.ok(Math.max(...times) - Math.min(...times) >= ((n - 1) / rate) * 1000 - 20);
    } finally {
      await small.stop();
    }
  });

  it('stops within a second of an abort and resolves aborted', async () => {
    const controller = new AbortController();
    const sink = recordingSink();
    const running = engine.scan(
      targetOf(generated),
      settingsWith({ requests_per_second: 5 }),
      limits,
      sink,
      controller.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const abortedAt = performance.now();
    controller.abort();
    const outcome = await running;
    assert.equal(outcome.status, 'aborted');
    assert.ok(performance.now() - abortedAt < 1000);
  });

  it('stops at maxDurationMs with a warning and completes', async () => {
    const result = await scan(generated, { requests_per_second: 20 }, { ...limits, maxDurationMs: 400 });
    assert.equal(result.status, 'completed');
    assert.ok(result.warnings.some((w) => w.includes('maxDurationMs')));
  });
});

describe('http scan engine: egress guard and resolution', () => {
  it('refuses 127.0.0.1 with an empty allow list before any connection', async () => {
    const sites = await startTargetSite();
    try {
      const strict = createHttpScanEngine({ guard: new EgressGuard([]), resolver });
      const sink = recordingSink();
      const outcome = await strict.scan(targetOf(sites.vulnerable), settingsWith(), limits, sink, never());
      assert.equal(outcome.status, 'unable_to_complete');
      assert.match(outcome.error ?? '', /denied by egress guard/);
      const probe = await strict.probe(
        { host: '127.0.0.1', port: sites.vulnerable.port, scheme: null },
        '127.0.0.1',
        never(),
        1000,
      );
      assert.equal(probe.isReachable, false);
      assert.ok(
        !probe.isReachable &&
          probe.observations.length === 2 &&
          probe.observations.every((o) => o.includes('denied by egress guard')),
      );
      assert.equal(sites.vulnerable.connections, 0);
    } finally {
      await sites.stop();
    }
  });

  it('answers unable_to_resolve for a name without addresses', async () => {
    const empty: DnsResolver = { resolveTxt: async () => [], resolveAddresses: async () => [] };
    const local = createHttpScanEngine({ guard: new EgressGuard(['127.0.0.0/8']), resolver: empty });
    const outcome = await local.scan(
      { scheme: 'http', host: 'app.example.test', port: 80, scopeName: 'example.test' },
      settingsWith(),
      limits,
      recordingSink(),
      never(),
    );
    assert.equal(outcome.status, 'unable_to_resolve');
    assert.match(outcome.error ?? '', /no address/);
  });
});

describe('http scan engine: probe', () => {
  it('answers for a plain HTTP port after HTTPS failed, and for a given scheme', async () => {
    const server = await startHttpServer({ '/': 'hello' });
    try {
      const result = await engine.probe(
        { host: '127.0.0.1', port: server.port, scheme: null },
        '127.0.0.1',
        never(),
        2000,
      );
      assert.deepEqual(result, {
        isReachable: true,
        scheme: 'http',
        port: server.port,
        status: 200,
        url: `http://127.0.0.1:${server.port}/`,
      });
      const only = await engine.probe(
        { host: '127.0.0.1', port: server.port, scheme: 'https' },
        '127.0.0.1',
        never(),
        2000,
      );
      assert.equal(only.isReachable, false);
      assert.ok(!only.isReachable && only.observations.length === 1);
    } finally {
      await server.stop();
    }
  });

  it('answers HTTPS with a self-signed certificate', async () => {
    const tls = await startTargetSite({ isHttps: true });
    try {
      const result = await engine.probe(
        { host: '127.0.0.1', port: tls.safe.port, scheme: null },
        '127.0.0.1',
        never(),
        2000,
      );
      assert.equal(result.isReachable && result.scheme, 'https');
    } finally {
      await tls.stop();
    }
  });

  it('follows redirects inside the scope but not out of it', async () => {
    const server = await startHttpServer({
      '/': { status: 302, headers: { location: '/home' } },
      '/home': { status: 301, headers: { location: 'http://elsewhere.invalid/' } },
    });
    try {
      const result = await engine.probe(
        { host: '127.0.0.1', port: server.port, scheme: 'http' },
        '127.0.0.1',
        never(),
        2000,
      );
      assert.deepEqual(result, {
        isReachable: true,
        scheme: 'http',
        port: server.port,
        status: 301,
        url: `http://127.0.0.1:${server.port}/home`,
      });
      assert.deepEqual(
        server.requests.map((r) => r.split(' ')[1]),
        ['/', '/home'],
      );
    } finally {
      await server.stop();
    }
  });

  it('answers unreachable for a closed port and for a silent one within the time-out', async () => {
    const closed = await startHttpServer({});
    const port = closed.port;
    await closed.stop();
    const refused = await engine.probe({ host: '127.0.0.1', port, scheme: null }, '127.0.0.1', never(), 1000);
    assert.deepEqual(refused, {
      isReachable: false,
      observations: [`https://127.0.0.1:${port}: connection refused`, `http://127.0.0.1:${port}: connection refused`],
    });
    const silent = await startHttpServer({ '/': { isHanging: true } });
    try {
      const started = performance.now();
      const result = await engine.probe(
        { host: '127.0.0.1', port: silent.port, scheme: 'http' },
        '127.0.0.1',
        never(),
        400,
      );
      assert.equal(result.isReachable, false);
      assert.ok(performance.now() - started < 900);
    } finally {
      await silent.stop();
    }
  });
});
