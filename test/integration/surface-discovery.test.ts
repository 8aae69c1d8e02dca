import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createBulkResolver, type BulkResolver, type LookupResult } from '../../src/engine/dns/bulk-resolver.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import {
  discoverSurface,
  type DiscoveredName,
  type DiscoveryDeps,
  type DiscoveryReport,
  type DiscoveryRequest,
} from '../../src/engine/discovery/surface-discovery.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { startBind, type BindServer } from '../support/bind-server.ts';
import { listenTracked, type TrackedServer } from '../support/http-server.ts';

/**
 * Subdomain discovery and takeover tests against BIND 9 on 127.0.0.1 (authoritative for the
 * test zones), an HTTPS server presenting a certificate with SANs and an HTTP server, both
 * answering by Host header, and a name server on 127.0.0.2 that refuses everything.
 */

const SOA = 'SOA ns1.disc.test. hostmaster.disc.test. ( 1 3600 600 86400 60 )';
const DISC_ZONE = `$TTL 300
@            ${SOA}
             NS    ns1
             MX    10 mx
             TXT   "v=spf1 include:spf-mail.disc.test ~all"
             A     127.0.0.1
ns1          A     127.0.0.1
mx           A     127.0.0.1
spf-mail     A     127.0.0.1
_sip._tcp    SRV   0 5 5060 sip
sip          A     127.0.0.1
www          A     127.0.0.1
alias        CNAME via-cname
via-cname    A     127.0.0.1
cert-only    A     127.0.0.1
page-link    A     127.0.0.1
static       A     127.0.0.1
api-inline   A     127.0.0.1
from-script  A     127.0.0.1
zone-name    A     127.0.0.1
deeper       A     127.0.0.1
api          A     127.0.0.1
dev-api      A     127.0.0.1
api2         A     127.0.0.1
v6only       AAAA  ::1
dangling     CNAME nowhere.cloud-host.test.
kept         CNAME app.cloud-host.test.
docs         CNAME gone-repo.bitbucket.io.
wiki         CNAME live-repo.bitbucket.io.
good         NS    ns1
lame         NS    ns1
refusing     NS    ns-refuse
ns-refuse    A     127.0.0.2
orphan       NS    ns-missing
`;
const GOOD_ZONE = `$TTL 300
@ ${SOA}
  NS ns1.disc.test.
`;
const CLOUD_ZONE = `$TTL 300
@ SOA ns1.cloud-host.test. hostmaster.cloud-host.test. ( 1 3600 600 86400 60 )
  NS ns1
ns1 A 127.0.0.1
app A 127.0.0.1
`;
const BITBUCKET_ZONE = `$TTL 300
@ SOA ns1.bitbucket.io. hostmaster.bitbucket.io. ( 1 3600 600 86400 60 )
  NS ns1
ns1 A 127.0.0.1
gone-repo A 127.0.0.1
live-repo A 127.0.0.1
`;
const WILD_ZONE = `$TTL 300
@ SOA ns1.wild.test. hostmaster.wild.test. ( 1 3600 600 86400 60 )
  NS ns1
ns1 A 127.0.0.1
* A 127.0.0.9
real A 127.0.0.10
deep.real A 127.0.0.11
`;
/** 5,000 live names: enough for several onNames batches. */
const BULK_ZONE = `$TTL 300
@ SOA ns1.bulk.test. hostmaster.bulk.test. ( 1 3600 600 86400 60 )
  NS ns1
ns1 A 127.0.0.1
$GENERATE 1-5000 h$ A 127.0.0.1
`;

const guard = new EgressGuard(['127.0.0.0/8']);
let bind: BindServer;
let bulk: BulkResolver;
let httpServer: TrackedServer;
let httpsServer: TrackedServer;
let refuser: dgram.Socket;
/** Requests seen, as `host path`, with the custom header and the time. */
const seen: Array<{ host: string; path: string; header: string | undefined; at: number }> = [];

/** Pages by host (port stripped) and path. */
function page(host: string, path: string): { status: number; type: string; body: string } {
  const http = `http://`;
  const port = httpServer.port;
  if (path === '/' && (host === 'disc.test' || host === 'www.disc.test')) {
    return {
      status: 200,
      type: 'text/html',
      body: `<html><head><title>disc</title><script src="${http}static.disc.test:${port}/app.js"></script><script src="${http}static.disc.test:${port}/app2.js"></script>
<script src="${http}static.disc.test:${port}/app3.js"></script></head><body><a href="${http}page-link.disc.test:${port}/">link</a><a href="https://elsewhere.example.org/">out</a>
<script>fetch("https://api-inline.disc.test/v1/items")</script></body></html>`,
    };
  }
  if (host === 'page-link.disc.test' && path === '/')
    return { status: 200, type: 'text/html', body: '<p>Our status page moved to http://deeper.disc.test/status</p>' };
  if (host === 'static.disc.test' && path === '/app.js')
    return {
      status: 200,
      type: 'application/javascript',
      body: 'const endpoint = "https://from-script.disc.test/graphql";',
    };
  if (host === 'static.disc.test' && /^\/app[23]\.js$/.test(path))
    return { status: 200, type: 'application/javascript', body: '/* nothing */' };
  if (host === 'docs.disc.test') return { status: 404, type: 'text/html', body: '<h1>Repository not found</h1>' };
  if (host === 'wiki.disc.test') return { status: 200, type: 'text/html', body: '<h1>Welcome to our wiki</h1>' };
  return { status: 404, type: 'text/plain', body: 'not found' };
}

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  const header = req.headers['x-perimeter-test'];
  seen.push({
    host,
    path: req.url ?? '/',
    header: typeof header === 'string' ? header : undefined,
    at: performance.now(),
  });
  const answer = page(host, req.url ?? '/');
  res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
}

/** A certificate whose SANs name a host only the certificate knows. */
function sanCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-disc-cert-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyPath,
        '-out',
        certPath,
        '-days',
        '1',
        '-subj',
        '/CN=www.disc.test',
        '-addext',
        'subjectAltName=DNS:www.disc.test,DNS:cert-only.disc.test,DNS:*.wild-cert.disc.test,DNS:other.example.org',
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function deps(overrides: Partial<DiscoveryDeps> = {}): DiscoveryDeps {
  return {
    guard,
    resolver: createDnsResolver([bind.address], { timeoutMs: 500, tries: 1 }),
    bulk,
    ports: { https: httpsServer.port, http: httpServer.port, dns: bind.port },
    limits: { httpTimeoutMs: 2000, nameServerTimeoutMs: 1000 },
    ...overrides,
  };
}

function request(overrides: Partial<DiscoveryRequest>): DiscoveryRequest {
  return {
    root: 'disc.test',
    knownNames: [],
    scrape: true,
    bruteForce: false,
    takeoverTests: false,
    requestsPerSecond: 0,
    customHeaders: [{ name: 'X-Perimeter-Test', value: 'run-1' }],
    signal: AbortSignal.timeout(60_000),
    ...overrides,
  };
}

const named = (report: DiscoveryReport, name: string) => report.names.find((n) => n.name === name);

before(async () => {
  bind = await startBind([
    { name: 'disc.test', text: DISC_ZONE },
    { name: 'good.disc.test', text: GOOD_ZONE },
    { name: 'cloud-host.test', text: CLOUD_ZONE },
    { name: 'bitbucket.io', text: BITBUCKET_ZONE },
    { name: 'wild.test', text: WILD_ZONE },
    { name: 'bulk.test', text: BULK_ZONE },
  ]);
  // Tests here count every name of thousands: time enough to survive a loaded CI machine (one
  // run lost 14 of 5,000 names to two 500 ms time-outs in a row while the suites ran).
  bulk = createBulkResolver({ servers: [bind.address], timeoutMs: 2000, retries: 3, isRecursionDesired: false });
  httpServer = await listenTracked(http.createServer(handler));
  httpsServer = await listenTracked(https.createServer(sanCertificate(), handler));
  // A name server on 127.0.0.2 (BIND's port) that refuses every query, as a provider does for a zone it does not host.
  refuser = dgram.createSocket('udp4');
  refuser.on('message', (message, peer) => {
    const answer = Buffer.from(message);
    answer[2] = ((answer[2] as number) | 0x80) & 0xfb;
    answer[3] = ((answer[3] as number) & 0xf0) | 5;
    refuser.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    refuser.once('error', reject);
    refuser.bind(bind.port, '127.0.0.2', () => resolve());
  });
});

after(async () => {
  bulk?.close();
  refuser?.close();
  await Promise.all([bind?.stop(), httpServer?.stop(), httpsServer?.stop()]);
});

describe('subdomain discovery: sources', () => {
  it('finds names in DNS answers, certificate SANs, pages and scripts, zone and known names, only under the root', async () => {
    seen.length = 0;
    const phases = new Set<string>();
    const report = await discoverSurface(
      deps(),
      request({
        knownNames: ['alias.disc.test', 'known-gone.disc.test'],
        zoneNames: ['zone-name.disc.test'],
        requestsPerSecond: 5,
        onProgress: (p) => phases.add(p.phase),
      }),
    );
    const sources = (name: string) => named(report, name)?.sources;
    // DNS answers: MX, SPF include, SRV target, NS (SOA mname), CNAME target of a known name.
    assert.deepEqual(sources('mx.disc.test'), ['dns']);
    assert.deepEqual(sources('spf-mail.disc.test'), ['dns']);
    assert.deepEqual(sources('sip.disc.test'), ['dns']);
    assert.deepEqual(sources('ns1.disc.test'), ['dns']);
    assert.deepEqual(sources('via-cname.disc.test'), ['dns']);
    assert.deepEqual(named(report, 'alias.disc.test'), {
      name: 'alias.disc.test',
      sources: ['known'],
      addresses: ['127.0.0.1'],
      cnames: ['via-cname.disc.test'],
      depth: 0,
    });
    // Certificate SANs (the wildcard SAN names its parent; other.example.org is not under the root).
    assert.ok(sources('cert-only.disc.test')?.includes('certificate'));
    assert.ok(sources('www.disc.test')?.includes('certificate'));
    // Pages: links, inline scripts, and a script the page loads.
    assert.ok(sources('page-link.disc.test')?.includes('page'));
    assert.ok(sources('static.disc.test')?.includes('page'));
    assert.ok(sources('api-inline.disc.test')?.includes('page'));
    assert.ok(sources('from-script.disc.test')?.includes('page'));
    assert.equal(named(report, 'from-script.disc.test')?.depth, 1);
    // Recursion: page-link (found on the root's page, depth 1) names deeper (depth 2).
    assert.deepEqual(named(report, 'deeper.disc.test')?.sources, ['page']);
    assert.equal(named(report, 'deeper.disc.test')?.depth, 2);
    // Zone data and known names; a known name that no longer exists is reported gone.
    assert.deepEqual(sources('zone-name.disc.test'), ['zone']);
    assert.deepEqual(report.gone, [{ name: 'known-gone.disc.test', outcome: 'nxdomain' }]);
    assert.ok(report.names.every((n) => n.name === 'disc.test' || n.name.endsWith('.disc.test')));
    assert.equal(
      named(report, 'wild-cert.disc.test'),
      undefined,
      'the parent of a wildcard SAN does not resolve, so it is not live',
    );
    // Brute force was off: no word-list name.
    assert.ok(report.names.every((n) => !n.sources.includes('brute-force') && !n.sources.includes('permutation')));
    assert.equal(report.isWildcard, false);
    assert.deepEqual(report.takeovers, []);
    assert.ok(report.stats.hostsScraped > 5 && report.stats.httpRequests > 10, JSON.stringify(report.stats));
    // Every request carried the custom header; one origin's requests were spaced by the rate.
    assert.ok(seen.length > 0 && seen.every((r) => r.header === 'run-1'));
    const scripts = seen.filter((r) => r.host === 'static.disc.test' && r.path.startsWith('/app')).map((r) => r.at);
    assert.ok(scripts.length >= 3);
    // Tokens are granted 200 ms apart; arrival at the server jitters by the connection set-up.
    const span = (scripts[scripts.length - 1] as number) - (scripts[0] as number);
    assert.ok(
      span >= (scripts.length - 1) * 200 * 0.9,
      `${scripts.length} requests to one origin within ${span.toFixed(0)} ms at 5 requests/s`,
    );
    assert.ok(phases.has('seeds') && phases.has('done'));
  });

  it('follows names only to the depth limit', async () => {
    const report = await discoverSurface(deps(), request({ maxDepth: 1 }));
    assert.equal(named(report, 'page-link.disc.test')?.depth, 1);
    assert.equal(named(report, 'deeper.disc.test'), undefined);
  });

  it('without scrape re-checks the given names only', async () => {
    const report = await discoverSurface(
      deps(),
      request({ scrape: false, knownNames: ['www.disc.test', 'known-gone.disc.test'] }),
    );
    assert.deepEqual(
      report.names.map((n) => n.name),
      ['disc.test', 'www.disc.test'],
    );
    assert.deepEqual(
      report.gone.map((g) => g.name),
      ['known-gone.disc.test'],
    );
    assert.equal(report.stats.hostsScraped, 0);
  });

  it('brute-forces the word list and permutes what it found', async () => {
    const report = await discoverSurface(
      deps({ wordList: ['www', 'api', 'nothere', 'mail'] }),
      request({ bruteForce: true }),
    );
    assert.ok(named(report, 'api.disc.test')?.sources.includes('brute-force'));
    assert.ok(named(report, 'www.disc.test')?.sources.includes('brute-force'));
    assert.deepEqual(named(report, 'dev-api.disc.test')?.sources, ['permutation']);
    assert.deepEqual(named(report, 'api2.disc.test')?.sources, ['permutation']);
    assert.equal(named(report, 'nothere.disc.test'), undefined);
    assert.equal(report.stats.bruteForceCandidates, 4);
    assert.ok(report.stats.permutationCandidates > 20);
    assert.equal(report.isWildcard, false);
    assert.deepEqual(report.gone, [], 'brute-force misses are not "gone"');
  });
});

describe('subdomain discovery: wildcard zones', () => {
  it('detects the wildcard and keeps only names whose answer differs from it', async () => {
    const report = await discoverSurface(
      deps({ wordList: ['www', 'mail', 'real', 'api', 'dev'] }),
      request({ root: 'wild.test', bruteForce: true }),
    );
    assert.equal(report.isWildcard, true);
    const wildcard = report.wildcards.find((w) => w.parent === 'wild.test');
    assert.deepEqual(wildcard?.addresses, ['127.0.0.9']);
    assert.ok((wildcard?.filtered ?? 0) >= 4, JSON.stringify(report.wildcards));
    assert.deepEqual(named(report, 'real.wild.test')?.addresses, ['127.0.0.10']);
    // Names under real.wild.test (which is not a wildcard) stay as they are.
    assert.ok(
      report.names.every(
        (n) => !n.addresses.includes('127.0.0.9') || n.sources.some((s) => s !== 'brute-force' && s !== 'permutation'),
      ),
      JSON.stringify(report.names),
    );
    assert.ok(report.names.length < 10, `the wildcard flooded the report: ${report.names.length} names`);
  });
});

describe('subdomain takeover tests', () => {
  let report: DiscoveryReport;
  before(async () => {
    report = await discoverSurface(
      deps(),
      request({
        scrape: false,
        takeoverTests: true,
        knownNames: [
          'dangling.disc.test',
          'kept.disc.test',
          'docs.disc.test',
          'wiki.disc.test',
          'good.disc.test',
          'lame.disc.test',
          'refusing.disc.test',
          'orphan.disc.test',
        ],
      }),
    );
  });
  const takeover = (name: string) => report.takeovers.find((t) => t.name === name);

  it('reports a CNAME whose target is NXDOMAIN, not one whose target resolves', () => {
    const dangling = takeover('dangling.disc.test');
    assert.equal(dangling?.kind, 'cname');
    assert.equal(dangling?.target, 'nowhere.cloud-host.test');
    assert.match(
      dangling?.evidence ?? '',
      /dangling\.disc\.test CNAME nowhere\.cloud-host\.test\.; nowhere\.cloud-host\.test: NXDOMAIN/,
    );
    assert.equal(takeover('kept.disc.test'), undefined);
    assert.deepEqual(named(report, 'kept.disc.test')?.cnames, ['app.cloud-host.test']);
  });

  it('reports a provider serving its unclaimed page for the name, not one serving content', () => {
    const docs = takeover('docs.disc.test');
    assert.equal(docs?.kind, 'cname');
    assert.equal(docs?.provider, 'Bitbucket');
    assert.equal(docs?.target, 'gone-repo.bitbucket.io');
    assert.match(docs?.evidence ?? '', /answered 404 with Bitbucket's unclaimed-resource page: "Repository not found"/);
    assert.equal(takeover('wiki.disc.test'), undefined);
  });

  it('reports delegations whose name servers are missing, refuse or do not host the zone, not a working one', () => {
    assert.equal(takeover('good.disc.test'), undefined);
    assert.deepEqual(named(report, 'good.disc.test')?.nameServers, ['ns1.disc.test']);
    const lame = takeover('lame.disc.test');
    assert.equal(lame?.kind, 'ns');
    assert.match(
      lame?.evidence ?? '',
      /ns1\.disc\.test \(127\.0\.0\.1\) answered without an authoritative SOA for lame\.disc\.test \(a referral\)/,
    );
    assert.match(
      takeover('refusing.disc.test')?.evidence ?? '',
      /ns-refuse\.disc\.test \(127\.0\.0\.2\) answered REFUSED for refusing\.disc\.test SOA/,
    );
    assert.match(takeover('orphan.disc.test')?.evidence ?? '', /ns-missing\.disc\.test: NXDOMAIN/);
    assert.deepEqual(
      report.takeovers.map((t) => t.name),
      ['dangling.disc.test', 'docs.disc.test', 'lame.disc.test', 'orphan.disc.test', 'refusing.disc.test'],
    );
  });
});

/** A bulk resolver that counts, per record type, the names each resolveAll stream asked and the results it delivered. */
function counting(inner: BulkResolver): BulkResolver & { asked: Map<string, string[]>; results: { count: number } } {
  const asked = new Map<string, string[]>();
  const results = { count: 0 };
  return {
    asked,
    results,
    lookup: (name, types, signal) => inner.lookup(name, types, signal),
    resolveAll: (names, onResult, options) => {
      const type = (options?.types ?? ['A', 'AAAA']).join('+');
      const list = asked.get(type) ?? [];
      asked.set(type, list);
      async function* recorded(): AsyncGenerator<string> {
        for await (const name of names) {
          list.push(name);
          yield name;
        }
      }
      return inner.resolveAll(
        recorded(),
        (result: LookupResult) => {
          results.count += 1;
          return onResult(result);
        },
        options,
      );
    },
    close: () => inner.close(),
  };
}

describe('subdomain discovery: resolution', () => {
  it('asks AAAA only for names whose A query was not NXDOMAIN, and keeps AAAA-only names', async () => {
    const bulkCounting = counting(bulk);
    const report = await discoverSurface(
      deps({ bulk: bulkCounting, wordList: ['www', 'nothere', 'v6only', 'alias'] }),
      request({ bruteForce: true }),
    );
    const a = bulkCounting.asked.get('A') ?? [];
    const aaaa = bulkCounting.asked.get('AAAA') ?? [];
    assert.ok(a.includes('nothere.disc.test') && a.includes('www.disc.test'), JSON.stringify(a));
    assert.ok(!aaaa.includes('nothere.disc.test'), 'an NXDOMAIN name is not asked AAAA');
    assert.ok(aaaa.includes('www.disc.test') && aaaa.includes('v6only.disc.test') && aaaa.includes('alias.disc.test'));
    // Names expected to exist (the root, DNS answers' targets) ask both types at once; guessed ones never do.
    const both = bulkCounting.asked.get('A+AAAA') ?? [];
    assert.ok(both.includes('disc.test') && both.includes('mx.disc.test'), JSON.stringify(both));
    assert.ok(!both.includes('nothere.disc.test') && !both.includes('v6only.disc.test'));
    assert.deepEqual(named(report, 'v6only.disc.test')?.addresses, ['::1'], 'a name with only AAAA is live');
    assert.deepEqual(
      named(report, 'alias.disc.test')?.cnames,
      ['via-cname.disc.test'],
      'the CNAME both answers carry is kept once',
    );
    assert.equal(named(report, 'nothere.disc.test'), undefined);
    // Each candidate once; the AAAA stream asks a subset of the guessed names.
    assert.equal(new Set([...a, ...both]).size, a.length + both.length);
    assert.ok(aaaa.every((name) => a.includes(name)));
    assert.equal(report.stats.candidates, a.length + both.length);
    assert.ok(
      report.stats.queries >= 2 * both.length + a.length + aaaa.length,
      `${report.stats.queries} queries counted`,
    );
  });
});

describe('subdomain discovery: streaming names to the core', () => {
  it('hands live names to onNames in batches and returns the same names, not in the report', async () => {
    const known = Array.from({ length: 2500 }, (_, i) => `h${i + 1}.bulk.test`);
    const batches: DiscoveredName[][] = [];
    // The guard refuses loopback here: 2,500 live hosts are not read, only resolved.
    const quiet = { guard: new EgressGuard([]), wordList: ['ns1', 'h1', 'h9999'] };
    const streamed = await discoverSurface(
      deps(quiet),
      request({
        root: 'bulk.test',
        knownNames: [...known, 'h9999.bulk.test'],
        scrape: true,
        bruteForce: true,
        onNames: async (batch) => void batches.push(batch),
      }),
    );
    const whole = await discoverSurface(
      deps(quiet),
      request({ root: 'bulk.test', knownNames: [...known, 'h9999.bulk.test'], scrape: true, bruteForce: true }),
    );
    assert.deepEqual(streamed.names, []);
    assert.ok(
      batches.length >= 3 && batches.every((batch) => batch.length > 0 && batch.length <= 1000),
      batches.map((b) => b.length).join(','),
    );
    const flat = batches.flat();
    assert.equal(new Set(flat.map((n) => n.name)).size, flat.length, 'each name is delivered once');
    const byName = (a: DiscoveredName, b: DiscoveredName): number => a.name.localeCompare(b.name);
    // Same names, addresses and depths as the report; a source found after delivery is not re-sent (h1 is known and a word).
    const strip = (n: DiscoveredName) => ({
      name: n.name,
      addresses: n.addresses,
      depth: n.depth,
      first: n.sources[0],
    });
    assert.deepEqual(flat.sort(byName).map(strip), [...whole.names].sort(byName).map(strip));
    assert.ok(whole.names.some((n) => n.name === 'h1.bulk.test' && n.sources.includes('brute-force')));
    assert.deepEqual(streamed.gone, [{ name: 'h9999.bulk.test', outcome: 'nxdomain' }]);
    assert.deepEqual(streamed.gone, whole.gone);
    assert.equal(streamed.stats.candidates, whole.stats.candidates);
  });

  it('stops taking candidates while onNames has not finished a batch', async () => {
    const names = Array.from({ length: 5000 }, (_, i) => `h${i + 1}.bulk.test`);
    const bulkCounting = counting(bulk);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let delivered = 0;
    const run = discoverSurface(
      deps({ bulk: bulkCounting }),
      request({
        root: 'bulk.test',
        knownNames: names,
        scrape: false,
        onNames: async (batch) => {
          delivered += batch.length;
          await held;
        },
      }),
    );
    // Wait until the lookups stop advancing while the first batch is held.
    let last = -1;
    for (let stable = 0; stable < 3;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      stable = bulkCounting.results.count === last ? stable + 1 : 0;
      last = bulkCounting.results.count;
    }
    assert.equal(delivered, 1000, 'one batch handed over, not yet consumed');
    const taken = [...bulkCounting.asked.values()].reduce((sum, list) => sum + list.length, 0);
    assert.ok(
      taken > 1000 && taken < names.length,
      `the run kept reading candidates (${taken} of ${names.length}) while the consumer was busy`,
    );
    release();
    const report = await run;
    assert.equal(delivered, 5000, 'every name once the consumer caught up (the root has no address)');
    assert.deepEqual(report.names, []);
  });

  it('ends the run with the error onNames rejects with', async () => {
    const names = Array.from({ length: 1500 }, (_, i) => `h${i + 1}.bulk.test`);
    let calls = 0;
    await assert.rejects(
      discoverSurface(
        deps(),
        request({
          root: 'bulk.test',
          knownNames: names,
          scrape: false,
          onNames: () => {
            calls += 1;
            return Promise.reject(new Error('store unavailable'));
          },
        }),
      ),
      /store unavailable/,
    );
    assert.equal(calls, 1, 'no batch is handed over after a rejection');
  });
});

describe('subdomain discovery: abort', () => {
  it('stops promptly when the signal aborts mid-run', async () => {
    const slow = createBulkResolver({
      servers: [bind.address],
      timeoutMs: 500,
      retries: 1,
      isRecursionDesired: false,
      ratePerSecond: 200,
    });
    const controller = new AbortController();
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`);
    let abortedAt = 0;
    try {
      const run = discoverSurface(
        deps({ bulk: slow, wordList: words }),
        request({
          bruteForce: true,
          signal: controller.signal,
          onProgress: (p) => {
            if (p.phase === 'brute-force' && abortedAt === 0) {
              setTimeout(() => {
                abortedAt = performance.now();
                controller.abort(new Error('monitoring turned off'));
              }, 300);
            }
          },
        }),
      );
      await assert.rejects(run, /monitoring turned off/);
      assert.ok(abortedAt > 0);
      assert.ok(
        performance.now() - abortedAt < 1000,
        `stopped ${(performance.now() - abortedAt).toFixed(0)} ms after the abort`,
      );
    } finally {
      slow.close();
    }
  });
});
