import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fireDueSurfaceRuns } from '../../src/core/surface/monitoring.service.ts';
import { createBulkResolver, type BulkResolver } from '../../src/engine/dns/bulk-resolver.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { createSurfaceEngine } from '../../src/engine/discovery/surface-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { olderSettingsBody } from '../support/asset-settings-bodies.ts';
import { startBind, type BindServer } from '../support/bind-server.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { addMonitoredDomain, endedSurfaceRun, latestSurfaceRun, until } from '../support/monitored-domain.ts';
import { listenTracked, type TrackedServer } from '../support/http-server.ts';
import { startVulnerableSites, type VulnerableSites } from '../support/vulnerable-site/index.ts';

/**
 * Surface monitoring end to end: the settings switch runs on and off, the worker runs discovery
 * against BIND on loopback (DNS answers, the word list, a provider takeover), the stateless tests
 * against the vulnerable fixture site, and the run's results land in the subdomains, the IP
 * inventory (v3 /ips) and the vulnerabilities, where a claimed-again CNAME is patched next run.
 */

const SOA = 'SOA ns1.mon.test. hostmaster.mon.test. ( 1 3600 600 86400 60 )';
const MON_ZONE = `$TTL 300
@      ${SOA}
       NS    ns1
       MX    10 www
       A     127.0.0.1
ns1    A     127.0.0.1
www    A     127.0.0.1
admin  A     127.0.0.3
docs   CNAME gone-repo.bitbucket.io.
`;
const BITBUCKET_ZONE = `$TTL 300
@ SOA ns1.bitbucket.io. hostmaster.bitbucket.io. ( 1 3600 600 86400 60 )
  NS ns1
ns1 A 127.0.0.1
gone-repo A 127.0.0.1
`;

let bind: BindServer;
let bulk: BulkResolver;
let sites: VulnerableSites;
let pages: TrackedServer;
/** Whether the Bitbucket repository docs.mon.test points at exists (the provider's page says). */
let isRepositoryClaimed = false;

function providerPage(req: http.IncomingMessage, res: http.ServerResponse): void {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  if (host === 'docs.mon.test' && !isRepositoryClaimed) {
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Repository not found</h1>');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Welcome</h1>');
}

describe('surface monitoring runs', () => {
  let h: Harness;
  let key: string;
  let v3Key: string;
  let assetToken: string;
  let assetId: number;
  let teamId: number;

  const latestRun = () => latestSurfaceRun(h, { teamId, assetId });
  const endedRun = (afterId = 0) => endedSurfaceRun(h, { teamId, assetId }, afterId);
  const putSettings = (changes: Record<string, unknown>) =>
    h.send('PUT', `/rest/v2/domains/${assetToken}/settings/`, {
      key,
      body: { ...olderSettingsBody, requests_per_second: 1000, ...changes },
    });

  before(async () => {
    bind = await startBind([
      { name: 'mon.test', text: MON_ZONE },
      { name: 'bitbucket.io', text: BITBUCKET_ZONE },
    ]);
    bulk = createBulkResolver({ servers: [bind.address], timeoutMs: 500, retries: 1, isRecursionDesired: false });
    sites = await startVulnerableSites();
    pages = await listenTracked(http.createServer(providerPage));
    h = await createHarness({ dnsResolvers: [bind.address] });
    ({ key, v3Key, assetToken, assetId, teamId } = await addMonitoredDomain(h, 'monitoring', 'mon.test'));
    // The engines as in production, pointed at the loopback servers: DNS at BIND, the provider's
    // pages at `pages`, the stateless tests at the vulnerable fixture site (over HTTP; HTTPS refused).
    const guard = new EgressGuard(['127.0.0.0/8']);
    const resolver = createDnsResolver([bind.address], { timeoutMs: 500, tries: 1 });
    h.runtime.surfaceRunner.engine = createSurfaceEngine(
      {
        guard,
        resolver,
        bulk,
        wordList: ['admin', 'docs', 'nothere', 'www'],
        ports: { https: 1, http: pages.port, dns: bind.port },
        limits: { httpTimeoutMs: 2000, nameServerTimeoutMs: 1000 },
      },
      h.runtime.scanEngine,
    );
    h.runtime.surfaceRunner.ports = { https: 1, http: sites.vulnerable.port };
    h.runtime.surfaceRunner.tickMs = 100;
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
  });

  after(async () => {
    await h?.close();
    bulk?.close();
    await Promise.all([bind?.stop(), sites?.stop(), pages?.stop()]);
  });

  it('turning monitoring on runs discovery, the takeover and stateless tests, and records names, IPs and findings', async () => {
    const res = await putSettings({
      monitoring: true,
      scrape: true,
      brute_force: true,
      subdomain_takeover_tests: true,
      stateless_tests: true,
    });
    assert.equal(res.statusCode, 200, res.body);
    const run = await endedRun();
    assert.equal(run.status, 'completed', `${run.error} ${JSON.stringify(run.warnings)}`);
    assert.equal(run.trigger, 'enable');
    assert.ok(run.summary !== null && run.summary.names >= 5, JSON.stringify(run.summary));

    // Discovered subdomains, each with the source that found it.
    const subdomains = (await h.send('GET', `/rest/v2/assets/${assetToken}/subdomains/`, { key })).json() as {
      assets: Array<{ name: string; added_by: string[] }>;
    };
    const addedBy = new Map(subdomains.assets.map((s) => [s.name, s.added_by]));
    assert.deepEqual(addedBy.get('admin.mon.test'), ['brute-force']);
    assert.ok(addedBy.get('www.mon.test')?.includes('dns-scrape'), JSON.stringify([...addedBy]));
    assert.ok(addedBy.get('ns1.mon.test')?.includes('dns-scrape'));
    assert.equal(addedBy.has('nothere.mon.test'), false);

    // The IP inventory through v3.
    const ips = (await h.send('GET', '/rest/v3/ips', { key: v3Key })).json() as {
      items: Array<{ ip_address: string; active: boolean; asset_id: string }>;
    };
    assert.deepEqual(ips.items.map((i) => i.ip_address).sort(), ['127.0.0.1', '127.0.0.3']);
    assert.ok(ips.items.every((i) => i.active));

    // Findings of surface monitoring: the takeover and the fixture's exposures on each live name.
    const vulns = (
      await h.send('GET', '/rest/v2/vulnerabilities/?scan_source[]=surface-monitoring&limit=500', { key })
    ).json() as { vulnerabilities: Array<{ title: string; host: string; status: string }> };
    const takeover = vulns.vulnerabilities.find((v) => v.title.startsWith('Subdomain takeover'));
    assert.ok(takeover !== undefined, JSON.stringify(vulns.vulnerabilities.map((v) => v.title)));
    assert.equal(takeover.host, 'docs.mon.test');
    assert.ok(
      vulns.vulnerabilities.some((v) => v.host === 'www.mon.test' && /\.git/i.test(v.title)),
      JSON.stringify(vulns.vulnerabilities.map((v) => `${v.host} ${v.title}`)),
    );
    assert.ok(sites.vulnerable.requests.every((r) => r.method === 'GET'));

    // The asset's monitoring, as the API tells it.
    const status = (await h.send('GET', `/rest/v2/domains/${assetToken}/monitoring/`, { key })).json() as {
      monitoring: boolean;
      interval_seconds: number;
      next_run: string | null;
      last_run: { status: string; trigger: string; summary: { names: number; takeovers: number } };
    };
    assert.equal(status.monitoring, true);
    assert.equal(status.interval_seconds, 86_400);
    assert.deepEqual(
      [
        status.last_run.status,
        status.last_run.trigger,
        status.last_run.summary.names,
        status.last_run.summary.takeovers,
      ],
      ['completed', 'enable', run.summary.names, 1],
    );
    assert.equal(Date.parse(status.next_run!), run.created.getTime() + 86_400_000);

    // The operator's view.
    const listing = JSON.parse(await h.admin('monitoring', 'list', '--team', 'monitoring', '--json')) as Array<{
      id: number;
      asset: string;
      status: string;
    }>;
    assert.deepEqual(
      listing.map((r) => [r.id, r.asset, r.status]),
      [[run.id, 'mon.test', 'completed']],
    );
  });

  it('the scheduler starts the next run once per due time, and a claimed-again CNAME is patched by it', async () => {
    const first = (await latestRun())!;
    isRepositoryClaimed = true;
    const deps = { store: h.runtime.store, queue: h.runtime.surfaceQueue, intervalMs: 60_000 };
    // Not due yet.
    assert.deepEqual(await fireDueSurfaceRuns(deps), { started: 0, recovered: 0 });
    // Two schedulers at a due time: one run.
    const later = new Date(Date.now() + 120_000);
    const fired = await Promise.all([fireDueSurfaceRuns(deps, later), fireDueSurfaceRuns(deps, later)]);
    assert.equal(fired[0].started + fired[1].started, 1);
    const second = await endedRun(first.id);
    assert.equal(second.status, 'completed', String(second.error));
    assert.equal(second.trigger, 'schedule');
    assert.equal(second.summary?.takeovers, 0);
    assert.equal(second.summary?.findings.patched, 1);
    const vulns = (
      await h.send('GET', '/rest/v2/vulnerabilities/?scan_source[]=surface-monitoring&limit=500', { key })
    ).json() as { vulnerabilities: Array<{ title: string; status: string }> };
    assert.equal(vulns.vulnerabilities.find((v) => v.title.startsWith('Subdomain takeover'))?.status, 'patched');
    // The same due time again: nothing more.
    assert.equal((await fireDueSurfaceRuns(deps, later)).started, 0);
  });

  it('turning monitoring off stops the run in progress within seconds, and no run starts afterwards', async () => {
    const previous = (await latestRun())!;
    // Off, then on at one request per second: the stateless tests take minutes.
    assert.equal((await putSettings({ monitoring: false })).statusCode, 200);
    assert.equal(
      (await putSettings({ monitoring: true, requests_per_second: 1, stateless_tests: true })).statusCode,
      200,
    );
    await until('the run to reach the stateless tests', async () => {
      const run = await latestRun();
      return run !== undefined &&
        run.id > previous.id &&
        run.status === 'running' &&
        run.progress.phase === 'stateless-tests'
        ? run
        : undefined;
    });
    const offAt = Date.now();
    assert.equal((await putSettings({ monitoring: false })).statusCode, 200);
    const stopped = await endedRun(previous.id);
    assert.equal(stopped.status, 'stopped');
    assert.ok(Date.now() - offAt < 5000, `stopped after ${Date.now() - offAt} ms`);
    const deps = { store: h.runtime.store, queue: h.runtime.surfaceQueue, intervalMs: 1000 };
    assert.equal((await fireDueSurfaceRuns(deps, new Date(Date.now() + 3_600_000))).started, 0);
    const status = (await h.send('GET', `/rest/v2/assets/${assetToken}/monitoring/`, { key })).json() as {
      monitoring: boolean;
      next_run: string | null;
      last_run: { status: string };
    };
    assert.deepEqual([status.monitoring, status.next_run, status.last_run.status], [false, null, 'stopped']);
  });

  it('another team sees none of it', async () => {
    const other = await h.team('monitoring-other', { plan: 'enterprise' });
    const foreign = await h.send('GET', `/rest/v2/domains/${assetToken}/monitoring/`, { key: other.key });
    assert.equal(foreign.statusCode, 404);
    const otherV3 = (await h.key('monitoring-other', '--v3')).key;
    const ips = (await h.send('GET', '/rest/v3/ips', { key: otherV3 })).json() as { items: unknown[] };
    assert.deepEqual(ips.items, []);
    const vulns = (
      await h.send('GET', '/rest/v2/vulnerabilities/?scan_source[]=surface-monitoring', { key: other.key })
    ).json() as { vulnerabilities: unknown[] };
    assert.deepEqual(vulns.vulnerabilities, []);
    assert.equal(await h.admin('monitoring', 'list', '--team', 'monitoring-other'), 'no surface-monitoring runs');
  });
});
