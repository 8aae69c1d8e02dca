import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { SurfaceRun } from '../../src/core/surface/surface-run.types.ts';
import { createBulkResolver, type BulkResolver } from '../../src/engine/dns/bulk-resolver.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { createSurfaceEngine } from '../../src/engine/discovery/surface-engine.ts';
import { createExposureEngines } from '../../src/engine/exposure.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { olderSettingsBody } from '../support/asset-settings-bodies.ts';
import { startBind, type BindServer } from '../support/bind-server.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { addMonitoredDomain, endedSurfaceRun, latestSurfaceRun } from '../support/monitored-domain.ts';
import { startHttpServer, startHttpsServer, type TestHttpServer } from '../support/http-server.ts';

/**
 * Ports, TLS and technologies in a surface run, end to end: BIND on loopback answers the
 * monitored names, a web server, an HTTPS server with a self-signed certificate and an SSH-like
 * banner service listen on loopback, and one run records the open ports (v3 /ports), the
 * technologies (v3 /technologies) and the TLS findings (v2 vulnerabilities). The next run sees a
 * port closed and a version changed; a run with every test off sends nothing at all.
 */

const ZONE = `$TTL 300
@    SOA ns1.exp.test. hostmaster.exp.test. ( 1 3600 600 86400 60 )
     NS  ns1
     A   127.0.0.1
ns1  A   127.0.0.1
www  A   127.0.0.1
`;

/** An SSH-like service: it greets every connection with its banner. */
async function startBanner(banner: string): Promise<{ port: number; connections: number; stop(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.end(`${banner}\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return connections;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An egress guard that counts the addresses it was asked about: every engine connection passes it. */
class CountingGuard extends EgressGuard {
  checks = 0;
  override check(address: string) {
    this.checks += 1;
    return super.check(address);
  }
}

/** A bulk resolver that counts the queries handed to it. */
function counting(bulk: BulkResolver, counter: { queries: number }): BulkResolver {
  return {
    lookup: (name, types, signal) => {
      counter.queries += 1;
      return bulk.lookup(name, types, signal);
    },
    resolveAll: (input, onResult, options) => {
      async function* counted(): AsyncGenerator<string> {
        for await (const name of input) {
          counter.queries += 1;
          yield name;
        }
      }
      return bulk.resolveAll(counted(), onResult, options);
    },
    close: () => bulk.close(),
  } as BulkResolver;
}

interface PortItem {
  ip_address: string;
  port: number;
  status: string;
  domain_name: string;
  first_seen_at: string;
  disappeared_at: string | null;
}
interface TechnologyItem {
  domain_name: string;
  port: number;
  service_protocol: string;
  name: string;
  version: string | null;
  categories: string[];
  active: boolean;
  disappeared_at: string | null;
}

describe('surface runs: ports, TLS and technologies', () => {
  let bind: BindServer;
  let bulk: BulkResolver;
  let h: Harness;
  let web: TestHttpServer;
  let secure: TestHttpServer;
  let banner: Awaited<ReturnType<typeof startBanner>>;
  let key: string;
  let v3Key: string;
  let assetToken: string;
  let assetId: number;
  let teamId: number;
  const guard = new CountingGuard(['127.0.0.0/8']);
  /** The names a run finds: the root, `ns1` (its NS record) and `www` (the word list), all on 127.0.0.1. */
  const liveNames = ['exp.test', 'ns1.exp.test', 'www.exp.test'];
  const dns = { queries: 0 };

  const latestRun = () => latestSurfaceRun(h, { teamId, assetId });
  const endedRun = (afterId = 0) => endedSurfaceRun(h, { teamId, assetId }, afterId);
  const exposureSettings = () => ({
    // `www` is found by the word list; the pages and certificates that scraping would read are on the closed default ports.
    scrape: true,
    brute_force: true,
    subdomain_takeover_tests: false,
    stateless_tests: false,
    enable_port_scanning: true,
    port_scanning_include_recommended_ports: false,
    port_scanning_force_list: [web.port, secure.port, banner.port],
    port_scanning_avoid_list: [],
    enable_tls_discovery: true,
    enable_certificate_assessments: true,
    enable_passive_tls_assessments: true,
    enable_active_tls_assessments: false,
    fingerprinting: true,
    include_discovered_ports_in_surface_monitoring: true,
  });
  /** Turns monitoring off and on again with the given settings (a run starts at once) and waits for it to end. */
  const run = async (settings: Record<string, unknown>): Promise<SurfaceRun> => {
    const previous = (await latestRun())?.id ?? 0;
    const off = await h.send('PUT', `/rest/v2/domains/${assetToken}/settings/`, {
      key,
      body: { ...olderSettingsBody, monitoring: false },
    });
    assert.equal(off.statusCode, 200, off.body);
    const on = await h.send('PUT', `/rest/v2/domains/${assetToken}/settings/`, {
      key,
      body: { ...olderSettingsBody, requests_per_second: 1000, monitoring: true, ...settings },
    });
    assert.equal(on.statusCode, 200, on.body);
    const ended = await endedRun(previous);
    assert.equal(ended.status, 'completed', `${ended.error} ${JSON.stringify(ended.warnings)}`);
    return ended;
  };
  const ports = async () =>
    ((await h.send('GET', '/rest/v3/ports?limit=1000', { key: v3Key })).json() as { items: PortItem[] }).items;
  const technologies = async () =>
    ((await h.send('GET', '/rest/v3/technologies?limit=1000', { key: v3Key })).json() as { items: TechnologyItem[] })
      .items;
  const breaches = async () =>
    (
      (await h.send('GET', '/rest/v3/breaches?limit=1000', { key: v3Key })).json() as {
        items: Array<{
          policy_id: string;
          asset_name: string;
          status: string;
          active: boolean;
          disappeared_at: string | null;
        }>;
      }
    ).items;

  before(async () => {
    bind = await startBind([{ name: 'exp.test', text: ZONE }]);
    bulk = counting(
      createBulkResolver({ servers: [bind.address], timeoutMs: 500, retries: 1, isRecursionDesired: false }),
      dns,
    );
    const page = (server: string) => ({
      status: 200,
      headers: { 'content-type': 'text/html', server, 'x-powered-by': 'PHP/7.4.3' },
      body: '<!doctype html><html><head><title>Shop</title><script src="/js/jquery-3.5.1.min.js"></script></head><body>Welcome</body></html>',
    });
    web = await startHttpServer({ '/': page('nginx/1.18.0') });
    secure = await startHttpsServer({ '/': page('nginx/1.18.0') });
    banner = await startBanner('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6');
    h = await createHarness({ dnsResolvers: [bind.address] });
    ({ key, v3Key, assetToken, assetId, teamId } = await addMonitoredDomain(h, 'exposure', 'exp.test'));
    const resolver = createDnsResolver([bind.address], { timeoutMs: 500, tries: 1 });
    const runner = h.runtime.surfaceRunner;
    runner.engine = createSurfaceEngine(
      {
        guard,
        resolver,
        bulk,
        wordList: ['www'],
        ports: { https: 1, http: 2, dns: bind.port },
        limits: { httpTimeoutMs: 2000, nameServerTimeoutMs: 1000 },
      },
      h.runtime.scanEngine,
    );
    runner.exposure = { ...runner.exposure, engines: createExposureEngines({ guard, resolver }) };
    // The default web origins point at closed ports: the web servers are found by the port scan.
    runner.ports = { https: 1, http: 2 };
    runner.requestTimeoutMs = 3000;
    runner.tickMs = 100;
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
  });

  after(async () => {
    await h?.close();
    bulk?.close();
    await Promise.all([bind?.stop(), web?.stop(), secure?.stop(), banner?.stop()]);
  });

  it('records open ports, technologies and TLS findings of every live name', async () => {
    const first = await run(exposureSettings());
    assert.equal(first.summary?.ports?.open, 3, JSON.stringify(first.summary));
    assert.equal(first.summary?.tlsEndpoints, 1);

    const open = await ports();
    assert.deepEqual(
      open.map((p) => [p.ip_address, p.port, p.status, p.disappeared_at]).sort(),
      [web.port, secure.port, banner.port]
        .sort((a, b) => a - b)
        .map((p) => ['127.0.0.1', p, 'OPEN', null])
        .sort(),
    );
    assert.ok(
      open.every((p) => p.domain_name === 'exp.test'),
      JSON.stringify(open),
    );

    // Fingerprinting ran on the HTTP(S) services the scan found on non-default ports, for each name.
    const techs = await technologies();
    const nginx = techs.filter((t) => t.name === 'Nginx');
    const expected = liveNames.flatMap((name) => [
      [name, secure.port, 'https', '1.18.0'],
      [name, web.port, 'http', '1.18.0'],
    ]);
    assert.deepEqual(nginx.map((t) => [t.domain_name, t.port, t.service_protocol, t.version]).sort(), expected.sort());
    assert.ok(
      nginx.every((t) => t.active && t.categories.length > 0),
      JSON.stringify(nginx),
    );
    assert.ok(
      techs.some((t) => t.name === 'PHP' && t.version === '7.4.3'),
      JSON.stringify(techs.map((t) => `${t.name} ${t.version}`)),
    );
    assert.ok(
      techs.some((t) => t.name === 'jQuery' && t.version === '3.5.1'),
      JSON.stringify(techs.map((t) => `${t.name} ${t.version}`)),
    );
    assert.ok(
      web.requests.every((r) => r.startsWith('GET ') || r.startsWith('HEAD ')),
      JSON.stringify(web.requests),
    );

    // TLS: the self-signed certificate for `localhost` on both names, through the ingestion service.
    const vulns = (
      await h.send('GET', '/rest/v2/vulnerabilities/?scan_source[]=surface-monitoring&limit=500', { key })
    ).json() as { vulnerabilities: Array<{ title: string; host: string; status: string }> };
    const tlsFindings = vulns.vulnerabilities.filter((v) => /certificate/i.test(v.title));
    assert.ok(
      tlsFindings.some((v) => v.host === 'www.exp.test' && /self-signed|untrusted/i.test(v.title)),
      JSON.stringify(vulns.vulnerabilities.map((v) => `${v.host} ${v.title}`)),
    );
    assert.ok(
      tlsFindings.some((v) => v.host === 'exp.test' && /does not match the host name/i.test(v.title)),
      JSON.stringify(tlsFindings.map((v) => `${v.host} ${v.title}`)),
    );
    // The HTTPS service sends no Strict-Transport-Security header (the passive assessment's one GET).
    assert.ok(
      vulns.vulnerabilities.some((v) => v.host === 'www.exp.test' && /HSTS|Strict-Transport-Security/i.test(v.title)),
      JSON.stringify(vulns.vulnerabilities.map((v) => `${v.host} ${v.title}`)),
    );

    const status = (await h.send('GET', `/rest/v2/domains/${assetToken}/monitoring/`, { key })).json() as {
      last_run: {
        progress: { open_ports: number; phase: string };
        summary: { ports: { open: number }; technologies: { seen: number } };
      };
    };
    assert.equal(status.last_run.summary.ports.open, 3);
    assert.equal(status.last_run.progress.phase, 'done');
    assert.ok(status.last_run.summary.technologies.seen >= 4);

    // The policies over what the run recorded: SSH (identified by its banner on an odd port), HTTP
    // without TLS, and the server versions fingerprinting read, on each name.
    const expectedBreaches = [
      'cleartext-web-service exp.test NEW',
      'ssh-exposed exp.test NEW',
      ...liveNames.map((name) => `software-version-disclosed ${name} NEW`),
    ].sort();
    assert.deepEqual(
      (await breaches()).map((b) => `${b.policy_id} ${b.asset_name} ${b.status}`).sort(),
      expectedBreaches,
    );
    assert.deepEqual(first.summary?.breaches, {
      breached: expectedBreaches.length,
      opened: expectedBreaches.length,
      reopened: 0,
      resolved: 0,
    });
  });

  it('the next run closes a port that stopped answering and replaces a changed version', async () => {
    const before = await ports();
    await banner.stop();
    web.routes.set('/', {
      status: 200,
      headers: { 'content-type': 'text/html', server: 'nginx/1.20.0' },
      body: '<html><body>Welcome</body></html>',
    });
    const second = await run(exposureSettings());
    assert.deepEqual([second.summary?.ports?.open, second.summary?.ports?.closed], [2, 1]);

    const after = await ports();
    const closed = after.find((p) => p.port === banner.port)!;
    assert.equal(closed.status, 'CLOSED');
    assert.ok(closed.disappeared_at !== null);
    // The same rows: first seen is kept.
    assert.equal(closed.first_seen_at, before.find((p) => p.port === banner.port)!.first_seen_at);

    const techs = await technologies();
    const onWeb = (version: string) =>
      techs.filter((t) => t.name === 'Nginx' && t.port === web.port && t.version === version);
    assert.ok(
      onWeb('1.18.0').every((t) => !t.active && t.disappeared_at !== null) &&
        onWeb('1.18.0').length === liveNames.length,
      JSON.stringify(techs),
    );
    assert.ok(
      onWeb('1.20.0').every((t) => t.active) && onWeb('1.20.0').length === liveNames.length,
      JSON.stringify(techs),
    );

    // SSH no longer answers: its breach is resolved; the others stand.
    const ssh = (await breaches()).find((b) => b.policy_id === 'ssh-exposed')!;
    assert.deepEqual([ssh.status, ssh.active, ssh.disappeared_at === null], ['RESOLVED', false, false]);
    assert.equal(second.summary?.breaches?.resolved, 1);
  });

  it('keeps the name a port shows while that name still resolves to its address, not the first name of the run', async () => {
    // Every name resolves to 127.0.0.1; the rows show exp.test, the first in sort order. Make
    // them show www.exp.test: a run must keep it (it still resolves there).
    await h.runtime.database.db
      .updateTable('ports')
      .set({ domain_name: 'www.exp.test' })
      .where('team_id', '=', teamId)
      .where('status', '=', 'OPEN')
      .execute();
    await run(exposureSettings());
    const open = (await h.runtime.store.ports.listOfAsset(teamId, assetId)).filter((p) => p.status === 'OPEN');
    assert.ok(
      open.length === 2 && open.every((p) => p.domainName === 'www.exp.test'),
      JSON.stringify(open.map((p) => [p.port, p.domainName])),
    );
  });

  it('without include_discovered_ports_in_surface_monitoring, services on other ports are not fingerprinted', async () => {
    const third = await run({
      ...exposureSettings(),
      include_discovered_ports_in_surface_monitoring: false,
      enable_tls_discovery: false,
    });
    assert.equal(third.summary?.tlsEndpoints, null);
    const techs = await technologies();
    assert.ok(
      techs.every((t) => !t.active),
      JSON.stringify(techs.filter((t) => t.active)),
    );
  });

  it('a run with every test switched off sends no packet and changes nothing', async () => {
    const portsBefore = await ports();
    const techsBefore = await technologies();
    const counters = { guard: guard.checks, dns: dns.queries, web: web.connections, secure: secure.connections };
    const quiet = await run({
      scrape: false,
      brute_force: false,
      subdomain_takeover_tests: false,
      stateless_tests: false,
      enable_port_scanning: false,
      enable_tls_discovery: false,
      fingerprinting: false,
    });
    assert.deepEqual(
      { guard: guard.checks, dns: dns.queries, web: web.connections, secure: secure.connections },
      counters,
    );
    assert.ok(
      quiet.warnings.some((w) => /switched off/.test(w)),
      JSON.stringify(quiet.warnings),
    );
    assert.deepEqual(await ports(), portsBefore);
    assert.deepEqual(await technologies(), techsBefore);
  });

  it('another team sees none of the ports and technologies', async () => {
    await h.team('exposure-other', { plan: 'enterprise' });
    const otherV3 = (await h.key('exposure-other', '--v3')).key;
    for (const path of ['/rest/v3/ports', '/rest/v3/technologies']) {
      const res = await h.send('GET', path, { key: otherV3 });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((res.json() as { items: unknown[] }).items, [], path);
    }
  });
});
