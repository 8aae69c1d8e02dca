import dgram from 'node:dgram';
import http from 'node:http';
import https from 'node:https';
import { after, before } from 'node:test';
import { createBulkResolver, type BulkResolver, type LookupResult } from '../../src/engine/dns/bulk-resolver.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import type { DiscoveryDeps, DiscoveryReport, DiscoveryRequest } from '../../src/engine/discovery/surface-discovery.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { startBind, type BindServer } from './bind-server.ts';
import { listenTracked, opensslCertificate, type TrackedServer } from './http-server.ts';

/**
 * What the subdomain discovery and takeover test files (test/integration/surface-discovery-*.test.ts)
 * run against: BIND 9 on 127.0.0.1 (authoritative for the test zones), an HTTPS server presenting
 * a certificate with SANs and an HTTP server, both answering by Host header, and a name server on
 * 127.0.0.2 that refuses everything. Each file calls `useDiscoveryServers()` once, at its top.
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

/** A request the HTTP(S) servers saw, as `host path`, with the custom header and the time. */
export interface SeenRequest {
  host: string;
  path: string;
  header: string | undefined;
  at: number;
}

/** Pages by host (port stripped) and path; `port` is the HTTP server's, for absolute links. */
function page(host: string, path: string, port: number): { status: number; type: string; body: string } {
  const http = `http://`;
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

/** A certificate whose SANs name a host only the certificate knows. */
function sanCertificate(): { key: string; cert: string } {
  return opensslCertificate('/CN=www.disc.test', [
    'subjectAltName=DNS:www.disc.test,DNS:cert-only.disc.test,DNS:*.wild-cert.disc.test,DNS:other.example.org',
  ]);
}

/** The servers of one test file; read their fields once its `before` has run. */
export class DiscoveryServers {
  bind!: BindServer;
  bulk!: BulkResolver;
  httpServer!: TrackedServer;
  httpsServer!: TrackedServer;
  refuser!: dgram.Socket;
  /** Requests seen by the HTTP(S) servers. */
  readonly seen: SeenRequest[] = [];

  /** What discoverSurface needs, pointed at these servers, with `overrides` applied. */
  readonly deps = (overrides: Partial<DiscoveryDeps> = {}): DiscoveryDeps => ({
    guard,
    resolver: createDnsResolver([this.bind.address], { timeoutMs: 500, tries: 1 }),
    bulk: this.bulk,
    ports: { https: this.httpsServer.port, http: this.httpServer.port, dns: this.bind.port },
    limits: { httpTimeoutMs: 2000, nameServerTimeoutMs: 1000 },
    ...overrides,
  });

  private readonly handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const header = req.headers['x-perimeter-test'];
    this.seen.push({
      host,
      path: req.url ?? '/',
      header: typeof header === 'string' ? header : undefined,
      at: performance.now(),
    });
    const answer = page(host, req.url ?? '/', this.httpServer.port);
    res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
  };

  async start(): Promise<void> {
    this.bind = await startBind([
      { name: 'disc.test', text: DISC_ZONE },
      { name: 'good.disc.test', text: GOOD_ZONE },
      { name: 'cloud-host.test', text: CLOUD_ZONE },
      { name: 'bitbucket.io', text: BITBUCKET_ZONE },
      { name: 'wild.test', text: WILD_ZONE },
      { name: 'bulk.test', text: BULK_ZONE },
    ]);
    // Tests here count every name of thousands: time enough to survive a loaded CI machine (one
    // run lost 14 of 5,000 names to two 500 ms time-outs in a row while the suites ran).
    this.bulk = createBulkResolver({
      servers: [this.bind.address],
      timeoutMs: 2000,
      retries: 3,
      isRecursionDesired: false,
    });
    this.httpServer = await listenTracked(http.createServer(this.handler));
    this.httpsServer = await listenTracked(https.createServer(sanCertificate(), this.handler));
    // A name server on 127.0.0.2 (BIND's port) that refuses every query, as a provider does for a zone it does not host.
    const refuser = dgram.createSocket('udp4');
    this.refuser = refuser;
    refuser.on('message', (message, peer) => {
      const answer = Buffer.from(message);
      answer[2] = ((answer[2] as number) | 0x80) & 0xfb;
      answer[3] = ((answer[3] as number) & 0xf0) | 5;
      refuser.send(answer, peer.port, peer.address);
    });
    await new Promise<void>((resolve, reject) => {
      refuser.once('error', reject);
      refuser.bind(this.bind.port, '127.0.0.2', () => resolve());
    });
  }

  async stop(): Promise<void> {
    this.bulk?.close();
    this.refuser?.close();
    await Promise.all([this.bind?.stop(), this.httpServer?.stop(), this.httpsServer?.stop()]);
  }
}

/** Starts the servers before the file's tests and stops them after. */
export function useDiscoveryServers(): DiscoveryServers {
  const servers = new DiscoveryServers();
  before(() => servers.start());
  after(() => servers.stop());
  return servers;
}

/** A discovery request of disc.test (scrape on, the rest off, a custom header), with `overrides` applied. */
export function request(overrides: Partial<DiscoveryRequest>): DiscoveryRequest {
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

/** The report's entry for `name`, if any. */
export const named = (report: DiscoveryReport, name: string) => report.names.find((n) => n.name === name);

/** A bulk resolver that counts, per record type, the names each resolveAll stream asked and the results it delivered. */
export function counting(
  inner: BulkResolver,
): BulkResolver & { asked: Map<string, string[]>; results: { count: number } } {
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
