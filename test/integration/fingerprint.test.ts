import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import type {
  FingerprintOptions,
  FingerprintOrigin,
  FingerprintReport,
} from '../../src/core/surface/exposure-engines.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { createFingerprinter } from '../../src/engine/fingerprint/fingerprinter.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { listenTracked, startHttpsServer, type TrackedServer } from '../support/http-server.ts';
import {
  loadFingerprintCorpus,
  serveFingerprintCorpus,
  type CorpusPage,
  type FingerprintSite,
} from '../support/fingerprint-site.ts';

// Every origin is 127.0.0.1: the resolver is never asked and nothing leaves the machine.
const resolver = createDnsResolver(['127.0.0.1:9']); /* no name leaves the machine: a closed loopback port */
const fingerprinter = createFingerprinter({ guard: new EgressGuard(['127.0.0.0/8', '::1/128']), resolver });
const options: FingerprintOptions = { requestsPerSecond: 0, customHeaders: [], requestTimeoutMs: 5000 };
const origin = (port: number, scheme: 'http' | 'https' = 'http'): FingerprintOrigin => ({
  scheme,
  host: '127.0.0.1',
  port,
  scopeName: '127.0.0.1',
});
const run = (
  origins: FingerprintOrigin[],
  overrides: Partial<FingerprintOptions> = {},
  signal = new AbortController().signal,
): Promise<FingerprintReport> => fingerprinter.fingerprint(origins, { ...options, ...overrides }, signal);

/** A server on 127.0.0.1 answering every request with `handler`. */
async function serve(handler: http.RequestListener): Promise<TrackedServer> {
  return listenTracked(http.createServer(handler));
}

describe('fingerprinting the corpus', () => {
  let site: FingerprintSite;
  let report: FingerprintReport;
  const corpus: CorpusPage[] = loadFingerprintCorpus();

  before(async () => {
    site = await serveFingerprintCorpus(corpus);
    report = await run(site.servers.map((s) => origin(s.port)));
  });
  after(() => site.stop());

  it('covers 30+ stacks and a plain page', () => {
    assert.ok(corpus.filter((p) => p.expected.length > 0).length >= 30);
    assert.ok(corpus.some((p) => p.id === 'plain' && p.expected.length === 0));
  });

  it('finds the expected technologies of every page, versions included', () => {
    const misses: string[] = [];
    for (const { page, port } of site.servers) {
      const found = report.technologies.filter((t) => t.port === port);
      for (const expected of page.expected) {
        const hit = found.find((t) => t.name === expected.name);
        if (hit === undefined)
          misses.push(`${page.id}: ${expected.name} not found (found ${found.map((t) => t.name).join(', ')})`);
        else if (expected.version !== undefined && hit.version !== expected.version)
          misses.push(`${page.id}: ${expected.name} version ${String(hit.version)}, expected ${expected.version}`);
      }
    }
    assert.deepEqual(misses, []);
  });

  it('finds none of the corpus stacks on the plain page', () => {
    const stacks = new Set(corpus.flatMap((p) => p.expected.map((e) => e.name)));
    const plain = report.technologies.filter((t) => t.port === site.portOf('plain'));
    assert.deepEqual(
      plain.filter((t) => stacks.has(t.name)),
      [],
    );
  });

  it('reports each observation with host, port, protocol, category names and a confidence', () => {
    assert.equal(report.origins, corpus.length);
    assert.equal(report.requests, corpus.length);
    assert.deepEqual(report.warnings, []);
    const nginx = report.technologies.find((t) => t.port === site.portOf('nginx') && t.name === 'Nginx');
    assert.deepEqual(nginx, {
      host: '127.0.0.1',
      port: site.portOf('nginx'),
      serviceProtocol: 'http',
      name: 'Nginx',
      version: '1.24.0',
      categories: ['Web servers', 'Reverse proxies'],
      confidence: 100,
    });
    for (const t of report.technologies) {
      assert.ok(t.confidence > 0 && t.confidence <= 100, `${t.name} confidence ${t.confidence}`);
      assert.ok(
        t.categories.length > 0 && t.categories.every((c) => !/^\d+$/.test(c)),
        `${t.name} categories ${t.categories.join(',')}`,
      );
    }
  });

  it('applies implies: technologies the page never names come from the ones it does', () => {
    const on = (id: string) => report.technologies.filter((t) => t.port === site.portOf(id));
    assert.deepEqual(on('wordpress').find((t) => t.name === 'MySQL')?.version, null);
    assert.ok(on('express').some((t) => t.name === 'Node.js'));
    assert.ok(on('openresty').some((t) => t.name === 'Nginx'));
    assert.ok(on('iis').some((t) => t.name === 'Windows Server'));
  });
});

describe('fingerprinting: what the page source shows', () => {
  it('reads globals the inline scripts assign, and ignores locals and what only a running page would have', async () => {
    const body = [
      '<html><head><script>window.Laravel = {"csrfToken":"Nq3b8ZxW"};</script>',
      '<script>var moment = function () {}; moment.version = "2.29.4";</script>',
      '<script>(function () { var Drupal = {}; })();</script>',
      '<script>if (window.jQuery) { console.log(jQuery.fn.jquery); }</script></head><body></body></html>',
    ].join('');
    const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(body));
    try {
      const names = (await run([origin(server.port)])).technologies.map((t) => `${t.name} ${String(t.version)}`);
      assert.ok(names.includes('Laravel null'), names.join(', '));
      assert.ok(names.includes('Moment.js 2.29.4'), names.join(', '));
      assert.ok(!names.some((n) => n.startsWith('Drupal') || n.startsWith('jQuery')), names.join(', '));
    } finally {
      await server.stop();
    }
  });
});

describe('fingerprinting: requests', () => {
  it('follows a redirect inside the scope and fingerprints where it lands', async () => {
    const page = loadFingerprintCorpus().find((p) => p.id === 'wordpress')!;
    const paths: string[] = [];
    const server = await serve((req, res) => {
      paths.push(req.url ?? '');
      if (req.url === '/') res.writeHead(302, { location: '/blog/' }).end();
      else
        res
          .writeHead(200, Object.fromEntries(page.headers.filter(([n]) => n.toLowerCase() !== 'set-cookie')))
          .end(page.body);
    });
    try {
      const report = await run([origin(server.port)]);
      assert.deepEqual(paths, ['/', '/blog/']);
      assert.equal(report.requests, 2);
      assert.ok(report.technologies.some((t) => t.name === 'WordPress' && t.version === '6.4.2'));
    } finally {
      await server.stop();
    }
  });

  it('does not follow a redirect out of the scope', async () => {
    const paths: string[] = [];
    const server = await serve((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(301, { location: 'http://elsewhere.invalid/', server: 'nginx/1.25.3' }).end();
    });
    try {
      const report = await run([origin(server.port)]);
      assert.deepEqual(paths, ['/']);
      assert.equal(report.requests, 1);
      assert.ok(report.technologies.some((t) => t.name === 'Nginx' && t.version === '1.25.3'));
    } finally {
      await server.stop();
    }
  });

  it('fingerprints an HTTPS origin as https', async () => {
    const server = await startHttpsServer({
      '/': {
        status: 200,
        body: '<html><body>hi</body></html>',
        headers: { 'content-type': 'text/html', server: 'Caddy' },
      },
    });
    try {
      const report = await run([origin(server.port, 'https')]);
      const caddy = report.technologies.find((t) => t.name === 'Caddy');
      assert.equal(caddy?.serviceProtocol, 'https');
    } finally {
      await server.stop();
    }
  });

  it('sends the custom headers (a custom User-Agent replaces the default)', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const server = await serve((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/html', server: 'nginx' }).end('<p>x</p>');
    });
    try {
      await run([origin(server.port)], {
        customHeaders: [
          { name: 'X-Team', value: 'blue' },
          { name: 'User-Agent', value: 'team-agent/1' },
        ],
      });
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!['x-team'], 'blue');
      assert.equal(seen[0]!['user-agent'], 'team-agent/1');
    } finally {
      await server.stop();
    }
  });

  it('honours requests_per_second across origins of one host', async () => {
    const arrivals: number[] = [];
    const servers: TrackedServer[] = [];
    for (let i = 0; i < 5; i += 1) {
      servers.push(
        await serve((_req, res) => {
          arrivals.push(performance.now());
          res.writeHead(200, { 'content-type': 'text/html' }).end('<p>x</p>');
        }),
      );
    }
    try {
      const report = await run(
        servers.map((s) => origin(s.port)),
        { requestsPerSecond: 4 },
      );
      assert.equal(report.requests, 5);
      arrivals.sort((a, b) => a - b);
      // 5 requests at 4 per second are sent over 1 s (4 intervals of 250 ms). They are timed here
      // on arrival, and the first one alone waits for its connection (tens of ms on a loaded machine,
      // 68 ms in one CI run): unlimited, the five would arrive within a few ms of each other.
      assert.ok(arrivals[4]! - arrivals[0]! >= 850, `span ${arrivals[4]! - arrivals[0]!} ms`);
      // The gaps after the first, whose start the connection set-up moves.
      for (let i = 2; i < arrivals.length; i += 1)
        assert.ok(arrivals[i]! - arrivals[i - 1]! >= 200, `gap ${arrivals[i]! - arrivals[i - 1]!} ms`);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });
});

describe('fingerprinting: refusals, time-outs and aborts', () => {
  it('sends nothing to an address the egress guard refuses', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { server: 'nginx' }).end('x'));
    try {
      const guarded = createFingerprinter({ guard: new EgressGuard([]), resolver });
      const report = await guarded.fingerprint([origin(server.port)], options, new AbortController().signal);
      assert.equal(server.connections, 0);
      assert.deepEqual(report.technologies, []);
      assert.equal(report.origins, 0);
      assert.equal(report.warnings.length, 1);
      assert.match(report.warnings[0]!, /denied by egress guard/);
    } finally {
      await server.stop();
    }
  });

  it('requests nothing from an origin outside its scope name', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { server: 'nginx' }).end('x'));
    try {
      const report = await run([{ scheme: 'http', host: '127.0.0.1', port: server.port, scopeName: 'example.com' }]);
      assert.equal(server.connections, 0);
      assert.match(report.warnings[0] ?? '', /not example\.com/);
    } finally {
      await server.stop();
    }
  });

  it('gives up on an origin that does not answer within the time limit', async () => {
    const server = await serve(() => undefined);
    try {
      const startedAt = performance.now();
      const report = await run([origin(server.port)], { requestTimeoutMs: 300 });
      assert.ok(performance.now() - startedAt < 3000);
      assert.equal(report.origins, 0);
      assert.match(report.warnings[0] ?? '', /timed out/);
    } finally {
      await server.stop();
    }
  });

  it('stops on abort, and sends nothing when aborted before it starts', async () => {
    const server = await serve(() => undefined);
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('stop')), 150);
      const startedAt = performance.now();
      const report = await run([origin(server.port)], { requestTimeoutMs: 30_000 }, controller.signal);
      assert.ok(performance.now() - startedAt < 2000, 'returned promptly');
      assert.equal(report.origins, 0);
      assert.ok(report.warnings.some((w) => /aborted/.test(w)));
      const before = server.connections;
      const late = await run([origin(server.port)], {}, controller.signal);
      assert.equal(server.connections, before);
      assert.equal(late.requests, 0);
    } finally {
      await server.stop();
    }
  });
});
