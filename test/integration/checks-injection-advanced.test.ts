import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ScanEngine, ScanLimits, ScanSink } from '../../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import type { CanaryConfig } from '../../src/config/canary.ts';
import { createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import type { TargetServer } from '../support/target-site.ts';
import { startVulnerableSites, type VulnerableSites } from '../support/vulnerable-site/index.ts';
import { injectionAdvancedModule } from '../support/vulnerable-site/injection-advanced.ts';

const engineWith = (canary?: CanaryConfig): ScanEngine =>
  createHttpScanEngine({
    guard: new EgressGuard(['127.0.0.0/8']),
    resolver: createDnsResolver([]),
    ...(canary === undefined ? {} : { canary }),
  });
// The default canary: 127.0.0.1 on an ephemeral port, which the fixture (on 127.0.0.1) can reach.
const engine = engineWith();
// Time-based injection spots of the site sleep 4 s: the request time limit leaves room for them.
const limits: ScanLimits = { maxPages: 500, maxDepth: 10, maxDurationMs: 120_000, requestTimeoutMs: 10_000 };
const myChecks = new Set(['xml-external-entity', 'crlf-injection', 'server-side-request-forgery', 'stored-xss']);

interface ScanResult {
  status: string;
  findings: FindingInput[];
  warnings: string[];
}

async function scan(
  server: TargetServer,
  scanEngine = engine,
  signal = new AbortController().signal,
): Promise<ScanResult> {
  const findings: FindingInput[] = [];
  const warnings: string[] = [];
  const sink: ScanSink = {
    finding: async (f) => void findings.push(f),
    progress: () => undefined,
    warning: (w) => void warnings.push(w),
  };
  const outcome = await scanEngine.scan(
    { scheme: server.scheme, host: '127.0.0.1', port: server.port, scopeName: '127.0.0.1' },
    { ...defaultScanProfileSettings },
    limits,
    sink,
    signal,
  );
  return { status: outcome.status, findings, warnings };
}

const pathOf = (location: string): string => location.replace(/^https?:\/\/[^/]+/, '');
const mine = (findings: FindingInput[]): FindingInput[] => findings.filter((f) => myChecks.has(f.checkId));
const summary = (findings: FindingInput[]): string[] =>
  mine(findings)
    .map((f) => `${f.checkId} ${pathOf(f.location)}`)
    .sort();
const findingAt = (result: ScanResult, spotId: string): FindingInput => {
  const spot = injectionAdvancedModule.spots.find((s) => s.id === spotId)!;
  return result.findings.find((f) => f.checkId === spot.checkId && pathOf(f.location) === spot.location)!;
};
const evidenceOf = (finding: FindingInput): string => finding.details?.text?.[0]?.value ?? '';

/** True when a TCP connection to the port is refused (nothing listens there any more). */
function isRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** The canary ports the scanner handed a site (from the URLs its requests carried). */
function canaryPorts(server: TargetServer): number[] {
  const ports = server.requests.flatMap((r) =>
    [...decodeURIComponent(r.path).matchAll(/http:\/\/127\.0\.0\.1:(\d+)\/prmtr[0-9a-f]{24}/g)].map((m) =>
      Number(m[1]),
    ),
  );
  return [...new Set(ports)];
}

/** A port nothing listens on now (bound once and released). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('XXE, CRLF, SSRF and stored-XSS checks on the vulnerable fixture site', () => {
  let sites: VulnerableSites;
  let vulnerable: ScanResult;
  let safe: ScanResult;
  before(async () => {
    sites = await startVulnerableSites();
    // Both scans share the engine's canary: it stays open until the last one ends.
    [vulnerable, safe] = await Promise.all([scan(sites.vulnerable), scan(sites.safe)]);
  });
  after(() => sites.stop());

  it('finds every spot of the module, each once, with how it was confirmed, and nothing else from these checks', () => {
    assert.equal(vulnerable.status, 'completed', vulnerable.warnings.join('\n'));
    const spots = injectionAdvancedModule.spots;
    assert.ok(spots.length >= 7 && new Set(spots.map((s) => s.checkId)).size === 4, `${spots.length} spots`);
    for (const spot of spots) {
      assert.equal(spot.class, 'injection');
      const found = vulnerable.findings.filter(
        (f) => f.checkId === spot.checkId && pathOf(f.location) === spot.location,
      );
      assert.equal(
        found.length,
        1,
        `${spot.id}: ${spot.checkId} at ${spot.location} (found: ${summary(vulnerable.findings).join(', ')})`,
      );
      const finding = found[0]!;
      assert.match(evidenceOf(finding), /Confirmed /, `${spot.id} says how it was confirmed`);
      assert.ok(
        finding.cwe !== undefined && finding.cvss?.cvss_3_1 !== undefined && finding.owasp?.[0]?.year === 2021,
        spot.id,
      );
      assert.ok(finding.request !== undefined && finding.response !== undefined, spot.id);
      assert.ok((finding.details?.markdown?.[0]?.value ?? '').length > 0, `${spot.id}: remediation`);
      assert.ok(finding.references !== undefined && finding.references.length >= 3, `${spot.id}: references`);
    }
    const expected = new Set(spots.map((s) => `${s.checkId} ${s.location}`));
    // Spots of other modules (a guestbook behind its button) are their own tests' to judge.
    const elsewhere = new Set(sites.manifest.map((s) => `${s.checkId} ${s.location}`));
    assert.deepEqual(
      summary(vulnerable.findings).filter((s) => !expected.has(s) && !elsewhere.has(s)),
      [],
    );
  });

  it('reports nothing from these checks on the safe twin, though each of them ran against it', () => {
    assert.equal(safe.status, 'completed', safe.warnings.join('\n'));
    assert.deepEqual(summary(safe.findings), []);
    const paths = sites.safe.requests.map((r) => decodeURIComponent(r.path));
    assert.ok(
      paths.some((p) => /^\/media\/preview\?url=http:\/\/127\.0\.0\.1:\d+\/prmtr/.test(p)),
      'the SSRF probe was sent',
    );
    assert.ok(
      paths.some((p) => /^\/locale\?lang=en\r\nX-Prmtr-/.test(p)),
      'the CRLF payload was sent',
    );
    assert.ok(
      sites.safe.requests.some(
        (r) => r.method === 'POST' && r.path === '/orders/submit' && r.headers['content-type'] === 'application/xml',
      ),
      'the XML body was posted',
    );
  });

  it('grades and classifies each kind', () => {
    const kinds: Array<[string, number, string, number, string]> = [
      ['xxe-in-band', 611, 'high', 7.5, 'A05:2021-Security Misconfiguration'],
      ['crlf-location', 113, 'medium', 6.1, 'A03:2021-Injection'],
      ['ssrf-fetch', 918, 'high', 8.6, 'A10:2021-Server-Side Request Forgery (SSRF)'],
      ['stored-xss-guestbook', 79, 'high', 7.2, 'A03:2021-Injection'],
    ];
    for (const [spotId, cwe, severity, score, owasp] of kinds) {
      const f = findingAt(vulnerable, spotId);
      assert.deepEqual(
        [f.cwe, f.severity, f.cvss?.cvss_3_1?.score, f.owasp?.[0]?.classification],
        [cwe, severity, score, owasp],
        spotId,
      );
    }
  });

  it('records XXE by the passwd line, in band, and blind XXE by the canary', () => {
    const inBand = findingAt(vulnerable, 'xxe-in-band');
    const highlight = inBand.details?.text?.[0]?.highlights.find((h) => h.field === 'response.body');
    assert.ok(highlight !== undefined);
    assert.match(highlight.value, /^root:x:0:0:/);
    assert.equal(inBand.response?.body.slice(highlight.offset, highlight.offset + highlight.length), highlight.value);
    assert.match(
      inBand.request?.body ?? '',
      /ENTITY%20prmtr%20SYSTEM%20%22file%3A%2F%2F%2Fetc%2Fpasswd|ENTITY\+prmtr\+SYSTEM\+%22file%3A%2F%2F%2Fetc%2Fpasswd/,
    );
    const blind = findingAt(vulnerable, 'xxe-blind-body');
    assert.match(
      evidenceOf(blind),
      /Confirmed out of band: the whole request body \(application\/xml\) .* received GET \/prmtr[0-9a-f]{24} from 127\.0\.0\.1:\d+ \(User-Agent: "fixture-fetcher\/1\.0"\)/,
    );
    assert.equal(blind.request?.headers.find((h) => h.name === 'content-type')?.value, 'application/xml');
    assert.match(
      blind.request?.body ?? '',
      /^<\?xml .*\n<!DOCTYPE prmtr \[<!ENTITY prmtr SYSTEM "http:\/\/127\.0\.0\.1:\d+\/prmtr[0-9a-f]{24}">\]>/,
    );
  });

  it('records CRLF injection by the injected header, a header of its own', () => {
    for (const [spotId, how] of [
      ['crlf-location', /CR LF \(%0D%0A\)/],
      ['crlf-unicode', /U\+560D U\+560A/],
    ] as const) {
      const f = findingAt(vulnerable, spotId);
      const highlight = f.details?.text?.[0]?.highlights[0];
      assert.match(highlight?.field ?? '', /^response\.headers\.x-prmtr-[0-9a-f]{10}$/, spotId);
      const name = highlight!.field.slice('response.headers.'.length);
      assert.match(f.response?.headers.find((h) => h.name === name)?.value ?? '', /^1/, spotId);
      assert.match(evidenceOf(f), how, spotId);
    }
  });

  it('records SSRF with the hit: source, method and User-Agent, during the request or after it', () => {
    const fetch = findingAt(vulnerable, 'ssrf-fetch');
    assert.match(
      evidenceOf(fetch),
      /received GET \/prmtr[0-9a-f]{24} from 127\.0\.0\.1:\d+ \(User-Agent: "fixture-fetcher\/1\.0"\) \d+ ms after the request was sent/,
    );
    assert.match(fetch.response?.body ?? '', /fetched \d+ bytes/);
    const token = fetch.details?.text?.[0]?.highlights.find((h) => h.field === 'request.url');
    assert.ok(
      token !== undefined && fetch.request?.url.slice(token.offset, token.offset + token.length) === token.value,
    );
    const webhook = findingAt(vulnerable, 'ssrf-webhook-blind');
    assert.match(webhook.response?.body ?? '', /Test delivery queued/);
    assert.match(evidenceOf(webhook), /form field callback set to http:\/\/127\.0\.0\.1:\d+\/prmtr/);
  });

  it('records stored XSS on the page where the comment showed up, at its offset', () => {
    const f = findingAt(vulnerable, 'stored-xss-guestbook');
    assert.equal(f.request?.method, 'GET');
    assert.match(f.request?.url ?? '', /\/guestbook$/);
    const highlight = f.details?.text?.[0]?.highlights.find((h) => h.field === 'response.body');
    assert.ok(highlight !== undefined);
    assert.match(highlight.value, /^"'><prmtr[0-9a-f]{12}>$/);
    assert.equal(f.response?.body.slice(highlight.offset, highlight.offset + highlight.length), highlight.value);
    assert.match(
      evidenceOf(f),
      /submitted in form field comment of POST \/guestbook\/sign shows unencoded at offset \d+ of GET \/guestbook/,
    );
  });

  it('closes the canary when the scans end, and never sends a request to another host', async () => {
    const ports = canaryPorts(sites.vulnerable);
    assert.equal(ports.length, 1, 'one canary for both scans');
    assert.ok(await isRefused(ports[0]!), 'the canary no longer listens');
    for (const server of [sites.vulnerable, sites.safe]) {
      for (const request of server.requests) assert.equal(request.headers.host, `127.0.0.1:${server.port}`);
    }
  });
});

describe('the SSRF canary: configuration and lifecycle', () => {
  let sites: VulnerableSites;
  before(async () => {
    sites = await startVulnerableSites();
  });
  after(() => sites.stop());

  it('skips SSRF with a warning when the canary is off, and still finds XXE in band', async () => {
    const result = await scan(sites.vulnerable, engineWith({ listen: undefined, url: undefined }));
    assert.equal(result.status, 'completed');
    assert.ok(
      result.warnings.some((w) => /SSRF canary is not available .*server-side-request-forgery was skipped/.test(w)),
      result.warnings.join('\n'),
    );
    assert.deepEqual(
      summary(result.findings).filter((s) => /^(server-side-request-forgery|xml-external-entity)/.test(s)),
      ['xml-external-entity /xml/import?body=doc'],
    );
  });

  it('uses the configured canary URL and closes the canary when a scan is aborted', async () => {
    const port = await freePort();
    const scanEngine = engineWith({ listen: { host: '127.0.0.1', port }, url: `http://127.0.0.1:${port}/` });
    const controller = new AbortController();
    const running = scan(sites.vulnerable, scanEngine, controller.signal);
    // Abort once the scanner has handed the site a URL of the canary (it listens by then).
    for (let i = 0; i < 400 && canaryPorts(sites.vulnerable).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(canaryPorts(sites.vulnerable), [port]);
    controller.abort();
    const result = await running;
    assert.equal(result.status, 'aborted');
    assert.ok(await isRefused(port), 'the canary no longer listens after the abort');
  });
});
