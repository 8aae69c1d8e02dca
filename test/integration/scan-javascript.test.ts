import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { launchConfinedBrowser } from '../../src/engine/http-scan/browser/browser-launch.ts';
import { createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { pathOf, scanFixture, summary, type FixtureScan } from '../support/fixture-scan.ts';
import { serve, type TargetServer } from '../support/target-site.ts';
import { domModule } from '../support/vulnerable-site/dom.ts';
import { manifest } from '../support/vulnerable-site/index.ts';

/**
 * JavaScript-rendered crawling and DOM-based XSS (issue 37, item 3) against a small site: the
 * fixture's `dom` module (a menu and a form built by scripts, DOM XSS through the fragment and
 * a query parameter) plus a page whose scripts try to reach a server outside the scope. Only the
 * `dom` module is served, so that the browser renders a handful of pages, not the whole fixture.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };

/** A page whose scripts and markup try every way out of the scope; what fails becomes a link the crawl follows. */
function egressPage(outside: string): string {
  const script = `
    const out = ${JSON.stringify(outside)};
    // The marks' paths are built from pieces: a static crawler must not find them in the script.
    const mark = (name) => { const a = document.createElement('a'); a.href = ['', 'egress', name].join('/'); a.textContent = name; document.body.append(a); };
    fetch(out + '/fetch').then(() => mark('le' + 'aked'), () => mark('bl' + 'ocked'));
    new Image().src = out + '/img';
    const s = document.createElement('script'); s.src = out + '/script.js'; document.head.append(s);
    const f = document.createElement('iframe'); f.src = out + '/frame'; document.body.append(f);
    try { const ws = new WebSocket(out.replace('http', 'ws') + '/ws'); ws.onopen = () => mark('ws-' + 'open'); } catch {}
    try { navigator.sendBeacon(out + '/beacon', 'x'); } catch {}
    fetch(['', 'egress', 'same-origin'].join('/')).then((r) => r.text()).then((t) => mark(t));
  `;
  return `<!doctype html><html><head><title>Egress</title><link rel="prefetch" href="${outside}/prefetch"><link rel="stylesheet" href="${outside}/site.css"></head><body><script>${script}</script></body></html>`;
}

/** Serves the `dom` module (vulnerable or safe twin), a home page linking it, and the egress page. */
function serveDomSite(isSafe: boolean, outside: string, onPath?: (path: string) => void): Promise<TargetServer> {
  return serve('http', (req, res, url) => {
    onPath?.(url.pathname);
    if (url.pathname === '/') {
      const links = [...domModule.links, '/egress'].map((href) => `<a href="${href}">${href}</a>`).join(' ');
      res.writeHead(200, html).end(`<!doctype html><html><head><title>Home</title></head><body>${links}</body></html>`);
      return;
    }
    if (url.pathname === '/egress') return void res.writeHead(200, html).end(egressPage(outside));
    if (url.pathname === '/egress/same-origin')
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('reached');
    const answer = domModule.handle({ req, url, method: req.method ?? 'GET', body: '', isSafe, scheme: 'http' });
    if (answer === undefined) return void res.writeHead(404, html).end('<!doctype html><title>Not found</title>');
    res.writeHead(answer.status, { ...html, ...answer.headers }).end(answer.body ?? '');
  });
}

const limits = { maxPages: 60, maxDepth: 6, maxDurationMs: 90_000, requestTimeoutMs: 5_000 };

/** Scans a site of this file with or without render_javascript, with the engine's browser or `browserPath`. */
function scan(
  server: TargetServer,
  options: { render: boolean; browserPath?: string; signal?: AbortSignal },
): Promise<FixtureScan> {
  const engine = createHttpScanEngine({
    guard: new EgressGuard(['127.0.0.0/8']),
    resolver: createDnsResolver(['127.0.0.1:9']),
    ...(options.browserPath === undefined ? {} : { browserPath: options.browserPath }),
  });
  const settings = {
    render_javascript: options.render,
    custom_cookies: [{ name: 'profile', value: 'yes', secure: false, httponly: false }],
  };
  return scanFixture(server, limits, {
    engine,
    settings,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

const jsSpots = domModule.spots;
const found = (scanned: FixtureScan, checkId: string, location: string): FindingInput[] =>
  scanned.findings.filter((f) => f.checkId === checkId && pathOf(f.location) === location);
const isBrowserWarning = (w: string): boolean => w.startsWith('JavaScript rendering skipped');

/** Chromium processes started by this test process (playwright-core starts the browser as a child). */
function browserProcesses(): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => /chrom/i.test(line));
  } catch {
    return []; // ps exits 1 when the process has no child
  }
}

describe('JavaScript-rendered crawling and DOM-based XSS', () => {
  let outside: TargetServer;
  let vulnerableSite: TargetServer;
  let safeSite: TargetServer;
  let rendered: FixtureScan;
  let renderedSafe: FixtureScan;
  before(async () => {
    outside = await serve(
      'http',
      (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('leaked'),
    );
    vulnerableSite = await serveDomSite(false, outside.origin);
    safeSite = await serveDomSite(true, outside.origin);
    [rendered, renderedSafe] = await Promise.all([
      scan(vulnerableSite, { render: true }),
      scan(safeSite, { render: true }),
    ]);
  });
  after(async () => {
    await Promise.all([outside.stop(), vulnerableSite.stop(), safeSite.stop()]);
  });

  it('the JavaScript-only spots are left out of the manifest unless asked for', () => {
    const ids = (spots: Array<{ id: string }>): string[] => spots.map((s) => s.id);
    for (const spot of jsSpots) {
      assert.equal(spot.needs, 'javascript', spot.id);
      assert.ok(!ids(manifest()).includes(spot.id), `${spot.id} is not in the static manifest`);
      assert.ok(ids(manifest({ javascript: true })).includes(spot.id), `${spot.id} is in the rendered manifest`);
    }
  });

  it('with render_javascript: finds the flaws behind the rendered menu and form, and both DOM XSS spots', () => {
    assert.equal(rendered.status, 'completed');
    assert.deepEqual(rendered.warnings.filter(isBrowserWarning), []);
    assert.deepEqual(browserProcesses(), [], 'the scans closed their browsers');
    for (const spot of jsSpots) {
      const hits = found(rendered, spot.checkId, spot.location);
      assert.equal(
        hits.length,
        1,
        `${spot.id}: ${spot.checkId} at ${spot.location} (found: ${summary(rendered.findings).join(', ')})`,
      );
    }
    const hash = found(rendered, 'dom-xss', '/dom/hash#')[0]!;
    const query = found(rendered, 'dom-xss', '/dom/welcome?name=')[0]!;
    assert.match(hash.details?.text?.[0]?.value ?? '', /the URL fragment.*innerHTML.*__perimeterCanary/s);
    assert.match(query.details?.text?.[0]?.value ?? '', /query parameter name.*document\.write/s);
    for (const finding of [hash, query]) {
      assert.equal(finding.cwe, 79);
      assert.equal(finding.severity, 'medium');
      assert.ok(finding.cvss?.cvss_3_1 !== undefined && finding.cvss.cvss_2_0 !== undefined);
      assert.equal(finding.owasp?.[0]?.classification, 'A03:2021-Injection');
      assert.match(finding.request?.url ?? '', /\/dom\/(?:hash|welcome)/);
    }
    // The payload reached the server only in the query parameter; the fragment never leaves the browser.
    assert.ok(vulnerableSite.requests.some((r) => r.path.startsWith('/dom/welcome?name=%3Cimg')));
    assert.ok(
      !vulnerableSite.requests.some((r) => r.path.includes('perimeterCanary') && r.path.startsWith('/dom/hash')),
    );
  });

  it('with render_javascript: nothing on the safe twin', () => {
    assert.equal(renderedSafe.status, 'completed');
    const xss = renderedSafe.findings.filter((f) => f.checkId === 'dom-xss' || f.checkId === 'reflected-xss');
    assert.deepEqual(summary(xss), []);
    // The safe twin's menu and form were rendered and followed all the same.
    assert.ok(safeSite.requests.some((r) => r.path.startsWith('/dom/ledger?note=')));
    assert.ok(safeSite.requests.some((r) => r.path.startsWith('/dom/feedback?topic=')));
  });

  it('the browser reaches nothing outside the scope: its requests go through the scan, the rest fails closed', () => {
    assert.equal(outside.requests.length, 0, `outside got ${outside.requests.map((r) => r.path).join(', ')}`);
    assert.equal(outside.connections, 0);
    const paths = vulnerableSite.requests.map((r) => r.path);
    const egress = paths.filter((p) => p.startsWith('/egress')).join(', ');
    assert.ok(paths.includes('/egress/blocked'), `the page ran, and its fetch of another origin failed (${egress})`);
    assert.ok(paths.includes('/egress/reached'), `a same-origin fetch of the page went through the scan (${egress})`);
    assert.ok(!paths.includes('/egress/leaked') && !paths.includes('/egress/ws-open'), egress);
    // Requests of the browser carry the scan's User-Agent: they were sent by the session.
    const sameOrigin = vulnerableSite.requests.find((r) => r.path === '/egress/same-origin');
    assert.match(String(sameOrigin?.headers['user-agent']), /perimeter-scanner/, egress);
    // …with the profile's cookie, as every request of the scan.
    const menu = vulnerableSite.requests.find((r) => r.path === '/dom/menu.md');
    assert.equal(menu?.headers.cookie, 'profile=yes');
  });

  it('without render_javascript: neither the JavaScript-only flaws nor a browser warning', async () => {
    const plain = await scan(vulnerableSite, { render: false });
    assert.equal(plain.status, 'completed');
    assert.deepEqual(plain.warnings.filter(isBrowserWarning), []);
    for (const spot of jsSpots) assert.deepEqual(found(plain, spot.checkId, spot.location), [], spot.id);
    assert.ok(!plain.findings.some((f) => f.checkId === 'dom-xss'));
    // Nothing at all on the module's pages: the fixture's static scans (checks-*.test.ts) see them too.
    assert.deepEqual(summary(plain.findings.filter((f) => pathOf(f.location).startsWith('/dom/'))), []);
  });

  it('with a missing browser: one warning, and the scan goes on without rendering', async () => {
    const before = vulnerableSite.requests.length;
    const missing = await scan(vulnerableSite, { render: true, browserPath: '/nonexistent/chromium' });
    assert.equal(missing.status, 'completed');
    const warnings = missing.warnings.filter(isBrowserWarning);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /\/nonexistent\/chromium/);
    for (const spot of jsSpots) assert.deepEqual(found(missing, spot.checkId, spot.location), [], spot.id);
    const crawled = vulnerableSite.requests.slice(before).map((r) => r.path);
    assert.ok(crawled.includes('/dom/hash') && crawled.includes('/egress'), 'the static crawl went on');
  });

  it('an abort while pages render ends the scan and closes the browser', async () => {
    const abort = new AbortController();
    // Only the browser asks for the menu's Markdown: the page's scripts are running.
    const site = await serveDomSite(false, outside.origin, (path) => {
      if (path === '/dom/menu.md') abort.abort();
    });
    try {
      const aborted = await scan(site, { render: true, signal: abort.signal });
      assert.equal(aborted.status, 'aborted');
      assert.ok(abort.signal.aborted, 'the browser rendered the menu page');
    } finally {
      await site.stop();
    }
    assert.deepEqual(browserProcesses(), [], 'no browser process of this test is left');
  });

  it('the confined browser fails closed where nothing routes its requests', async () => {
    const browser = await launchConfinedBrowser('/usr/bin/chromium');
    try {
      const page = await browser.newPage();
      await assert.rejects(page.goto(`${outside.origin}/direct`, { timeout: 10_000 }));
      await assert.rejects(page.goto('http://localhost:9/named', { timeout: 10_000 }));
    } finally {
      await browser.close();
    }
    assert.equal(outside.connections, 0);
    assert.equal(outside.requests.length, 0);
  });
});
