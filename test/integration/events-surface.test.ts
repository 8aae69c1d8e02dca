import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventKind, EventRecord } from '../../src/core/events/event.types.ts';
import { evaluateBreaches } from '../../src/core/policies/breach.service.ts';
import type { ServiceGuess } from '../../src/core/surface/exposure-engines.ts';
import { startSurfaceRun } from '../../src/core/surface/monitoring.service.ts';
import { PortInventoryService, type PortRunInput } from '../../src/core/surface/port-inventory.service.ts';
import type { SurfaceDiscoveryReport } from '../../src/core/surface/surface-engine.ts';
import {
  TechnologyInventoryService,
  type TechnologyRunInput,
} from '../../src/core/surface/technology-inventory.service.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { defaultSettingsBody } from '../support/asset-settings-bodies.ts';
import { assertCatalogued, eventsOf } from '../support/events.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { addMonitoredDomain, endedSurfaceRun, type MonitoredDomain } from '../support/monitored-domain.ts';

/**
 * The events of surface monitoring (issue 34): the port, technology and breach inventories and
 * the names a monitoring run lists write port.opened/closed, technology.discovered,
 * breach.opened/closed and subdomain.discovered/disappeared in the transaction of the change,
 * each with the catalogue's fields, the root asset and (breaches) the severity; a run that
 * changes nothing writes nothing, and another team's log stays empty.
 */

const surfaceKinds: EventKind[] = [
  'subdomain.discovered',
  'subdomain.disappeared',
  'port.opened',
  'port.closed',
  'technology.discovered',
  'breach.opened',
  'breach.closed',
];
const t = (day: number) => new Date(Date.UTC(2026, 2, day, 12));
const service = (name: string, product?: string): ServiceGuess => ({
  name,
  isTls: false,
  isHttp: name === 'http',
  banner: undefined,
  product,
  version: undefined,
});
const http = service('http', 'nginx');
const ssh = service('ssh', 'OpenSSH');
const mysql = service('mysql', 'MySQL');
const on = (port: number, guess: ServiceGuess, domainName = 'www.ports.example', address = '192.0.2.10') => ({
  address,
  port,
  domainName,
  service: guess,
});

describe('surface monitoring events', () => {
  let h: Harness;
  let domain: MonitoredDomain;
  let otherTeamId: number;
  let assets: Record<string, { id: number; token: string; name: string }>;
  let ports: PortInventoryService;
  let technologies: TechnologyInventoryService;
  /** What the discovery engine reports on the next monitoring run. */
  let report: SurfaceDiscoveryReport;

  const teamEvents = (...kinds: EventKind[]) => eventsOf(h.runtime.store, domain.teamId, ...kinds);
  /** The team's events appended while `work` ran. */
  const written = async (work: () => Promise<unknown>): Promise<EventRecord[]> => {
    const before = await h.runtime.store.events.latestId(domain.teamId);
    await work();
    return (await teamEvents()).filter((e) => e.id > before);
  };
  const brief = (events: EventRecord[]) => events.map((e) => `${e.kind} ${JSON.stringify(e.data)}`);
  const recordPorts = (asset: string, day: number, open: PortRunInput['open']) =>
    ports.recordRun({ teamId: domain.teamId, assetId: assets[asset]!.id, at: t(day).getTime(), open });
  const recordTechnologies = (day: number, seen: TechnologyRunInput['seen']) =>
    technologies.recordRun({ teamId: domain.teamId, assetId: assets['tech.example']!.id, at: t(day).getTime(), seen });
  /** A completed run of breach.example as the runner records it: ports, technologies, then the policies. */
  const breachRun = async (day: number, open: PortRunInput['open']) => {
    const assetId = assets['breach.example']!.id;
    const at = t(day).getTime();
    await ports.recordRun({ teamId: domain.teamId, assetId, at, open });
    await technologies.recordRun({ teamId: domain.teamId, assetId, at, seen: [] });
    return evaluateBreaches(h.runtime.store, { teamId: domain.teamId, assetId, at });
  };
  const assetFields = (asset: string) => ({ asset_token: assets[asset]!.token, asset_name: asset });

  before(async () => {
    h = await createHarness();
    domain = await addMonitoredDomain(h, 'evsurface', 'evs.test');
    await h.team('evother');
    otherTeamId = (await h.runtime.store.teams.findByName('evother'))!.id;
    assets = { 'evs.test': { id: domain.assetId, token: domain.assetToken, name: 'evs.test' } };
    for (const name of ['ports.example', 'tech.example', 'breach.example']) {
      const res = await h.send('POST', '/rest/v2/assets/', { key: domain.key, body: { name } });
      assert.equal(res.statusCode, 200, res.body);
      const asset = (await h.runtime.store.assets.findByName(domain.teamId, name))!;
      assets[name] = { id: asset.id, token: asset.token, name };
    }
    ports = new PortInventoryService(h.runtime.store);
    technologies = new TechnologyInventoryService(h.runtime.store);
    // Discovery reports what `report` says; the exposure engines and the tests are switched off.
    h.runtime.surfaceRunner.engine = {
      discover: async () => structuredClone(report),
      statelessTests: () => Promise.reject(new Error('the stateless tests are switched off')),
    };
    h.runtime.surfaceRunner.tickMs = 100;
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
  });
  after(async () => h?.close());

  describe('ports', () => {
    it('opens every new port, with the asset, host, address, protocol and service', async () => {
      const events = await written(() => recordPorts('ports.example', 1, [on(443, http), on(22, ssh)]));
      const fields = { ...assetFields('ports.example'), host: 'www.ports.example', ip_address: '192.0.2.10' };
      assert.deepEqual(
        events.map((e) => [e.kind, e.data, e.assetId, e.occurredAt.toISOString()]),
        [
          [
            'port.opened',
            { ...fields, port: 443, protocol: 'TCP', service: 'http' },
            assets['ports.example']!.id,
            t(1).toISOString(),
          ],
          [
            'port.opened',
            { ...fields, port: 22, protocol: 'TCP', service: 'ssh' },
            assets['ports.example']!.id,
            t(1).toISOString(),
          ],
        ],
      );
    });

    it('writes nothing for a run that finds the same ports', async () => {
      assert.deepEqual(await written(() => recordPorts('ports.example', 2, [on(22, ssh), on(443, http)])), []);
    });

    it('closes a port the run no longer finds open, with the service last seen on it', async () => {
      const events = await written(() => recordPorts('ports.example', 3, [on(443, http)]));
      assert.deepEqual(brief(events), [
        `port.closed ${JSON.stringify({ ...assetFields('ports.example'), host: 'www.ports.example', ip_address: '192.0.2.10', port: 22, protocol: 'TCP', service: 'ssh' })}`,
      ]);
    });

    it('opens it again when a run finds it open, under the name that resolved to it now', async () => {
      const events = await written(() =>
        recordPorts('ports.example', 4, [on(443, http), on(22, service('unknown'), 'ssh.ports.example')]),
      );
      assert.deepEqual(
        events.map((e) => [e.kind, e.data.host, e.data.port, e.data.service]),
        [['port.opened', 'ssh.ports.example', 22, null]],
      );
    });
  });

  describe('technologies', () => {
    const nginx = (version: string | null) => ({
      domainName: 'www.tech.example',
      port: 443,
      serviceProtocol: 'https',
      name: 'Nginx',
      version,
      categories: ['Web servers'],
    });

    it('discovers a technology the inventory did not hold', async () => {
      const events = await written(() => recordTechnologies(1, [nginx('1.25.3')]));
      assert.deepEqual(brief(events), [
        `technology.discovered ${JSON.stringify({ ...assetFields('tech.example'), host: 'www.tech.example', port: 443, technology: 'Nginx', version: '1.25.3' })}`,
      ]);
      assert.equal(events[0]!.assetId, assets['tech.example']!.id);
    });

    it('writes nothing for a run that sees the same technologies', async () => {
      assert.deepEqual(await written(() => recordTechnologies(2, [nginx('1.25.3')])), []);
    });

    it('discovers a new version, and a technology without a version', async () => {
      const php = { ...nginx(null), name: 'PHP', categories: ['Programming languages'] };
      const events = await written(() => recordTechnologies(3, [nginx('1.25.4'), php]));
      assert.deepEqual(
        events.map((e) => [e.kind, e.data.technology, e.data.version]),
        [
          ['technology.discovered', 'Nginx', '1.25.4'],
          ['technology.discovered', 'PHP', null],
        ],
      );
    });

    it('writes nothing when an old version comes back (the inventory holds it)', async () => {
      assert.deepEqual(await written(() => recordTechnologies(4, [nginx('1.25.3')])), []);
    });
  });

  describe('breaches', () => {
    let breachId: string;

    it('opens a breach with its policy, host and severity', async () => {
      const events = await written(() =>
        breachRun(1, [on(3306, mysql, 'db.breach.example'), on(22, ssh, 'db.breach.example')]),
      );
      const breaches = events.filter((e) => e.kind.startsWith('breach.'));
      assert.deepEqual(
        breaches.map((e) => [e.kind, e.data.policy_id, e.data.severity, e.severity, e.assetId]),
        [
          ['breach.opened', 'database-exposed', 'high', 'high', assets['breach.example']!.id],
          ['breach.opened', 'ssh-exposed', 'low', 'low', assets['breach.example']!.id],
        ],
      );
      const stored = await h.runtime.store.breaches.listOfAsset(domain.teamId, assets['breach.example']!.id);
      const database = stored.find((b) => b.policyId === 'database-exposed')!;
      breachId = String(database.id);
      assert.deepEqual(breaches[0]!.data, {
        ...assetFields('breach.example'),
        breach_id: breachId,
        policy_id: 'database-exposed',
        policy_name: 'Database exposed',
        host: 'db.breach.example',
        severity: 'high',
      });
      assert.equal(events.filter((e) => e.kind === 'port.opened').length, 2);
    });

    it('writes nothing for an evaluation that finds the same breaches', async () => {
      assert.deepEqual(
        await written(() => breachRun(2, [on(3306, mysql, 'db.breach.example'), on(22, ssh, 'db.breach.example')])),
        [],
      );
    });

    it('closes a breach the evaluation no longer finds', async () => {
      const events = await written(() => breachRun(3, [on(22, ssh, 'db.breach.example')]));
      assert.deepEqual(
        events.map((e) => [e.kind, e.data.policy_id ?? e.data.port, e.data.breach_id ?? null]),
        [
          ['port.closed', 3306, null],
          ['breach.closed', 'database-exposed', breachId],
        ],
      );
      assert.equal(events[1]!.severity, 'high');
    });

    it('opens it again, under the same breach id, when it is breached again', async () => {
      const events = await written(() =>
        breachRun(4, [on(3306, mysql, 'db.breach.example'), on(22, ssh, 'db.breach.example')]),
      );
      assert.deepEqual(
        events.map((e) => [e.kind, e.data.policy_id ?? e.data.port, e.data.breach_id ?? null]),
        [
          ['port.opened', 3306, null],
          ['breach.opened', 'database-exposed', breachId],
        ],
      );
    });
  });

  describe('subdomains', () => {
    const live = (name: string, address = '127.0.0.1') => ({ name, sources: ['dns' as const], addresses: [address] });
    const reportOf = (names: string[], gone: string[] = []): SurfaceDiscoveryReport => ({
      isWildcard: false,
      names: [live('evs.test'), ...names.map((n) => live(n))],
      gone: gone.map((name) => ({ name, outcome: 'nxdomain' })),
      takeovers: [],
      warnings: [],
    });
    let lastRunId = 0;
    /** One monitoring run of evs.test over `report` (the first is started by turning monitoring on). */
    const monitoringRun = async (next: SurfaceDiscoveryReport) => {
      report = next;
      if (lastRunId === 0) {
        const res = await h.send('PUT', `/rest/v2/domains/${domain.assetToken}/settings/`, {
          key: domain.key,
          body: {
            ...defaultSettingsBody,
            monitoring: true,
            scrape: true,
            stateless_tests: false,
            subdomain_takeover_tests: false,
            enable_port_scanning: false,
            enable_tls_discovery: false,
            fingerprinting: false,
          },
        });
        assert.equal(res.statusCode, 200, res.body);
      } else {
        const deps = { store: h.runtime.store, queue: h.runtime.surfaceQueue };
        assert.notEqual(await startSurfaceRun(deps, domain.teamId, domain.assetId, 'schedule'), undefined);
      }
      const run = await endedSurfaceRun(h, domain, lastRunId);
      assert.equal(run.status, 'completed', `${run.error} ${JSON.stringify(run.warnings)}`);
      lastRunId = run.id;
      return run;
    };
    const names = (events: EventRecord[]) => events.map((e) => `${e.kind} ${String(e.data.name)}`);

    it('discovers every live name of the first run (not the monitored domain itself)', async () => {
      const events = await written(() => monitoringRun(reportOf(['www.evs.test', 'api.evs.test'])));
      assert.deepEqual(names(events), ['subdomain.discovered api.evs.test', 'subdomain.discovered www.evs.test']);
      assert.deepEqual(events[0]!.data, { ...assetFields('evs.test'), name: 'api.evs.test' });
      assert.equal(events[0]!.assetId, domain.assetId);
    });

    it('writes nothing for a run that finds the same names', async () => {
      assert.deepEqual(await written(() => monitoringRun(reportOf(['www.evs.test', 'api.evs.test']))), []);
    });

    it('a name found gone disappears once, however many runs find it gone', async () => {
      const events = await written(() => monitoringRun(reportOf(['www.evs.test'], ['api.evs.test'])));
      assert.deepEqual(names(events), ['subdomain.disappeared api.evs.test']);
      assert.deepEqual(events[0]!.data, { ...assetFields('evs.test'), name: 'api.evs.test' });
      assert.deepEqual(await written(() => monitoringRun(reportOf(['www.evs.test'], ['api.evs.test']))), []);
    });

    it('a name that comes back is discovered again; a new one is discovered', async () => {
      const events = await written(() => monitoringRun(reportOf(['www.evs.test', 'api.evs.test', 'new.evs.test'])));
      assert.deepEqual(names(events), ['subdomain.discovered api.evs.test', 'subdomain.discovered new.evs.test']);
    });
  });

  describe('the log', () => {
    it('every event carries exactly its catalogue fields', async () => {
      const events = await teamEvents(...surfaceKinds);
      assert.ok(events.length >= 20, `${events.length} events`);
      assert.deepEqual(new Set(events.map((e) => e.kind)), new Set(surfaceKinds));
      for (const event of events) {
        assertCatalogued(event);
        assert.notEqual(event.assetId, null, `${event.kind} names its asset`);
      }
    });

    it("another team's log stays empty", async () => {
      assert.deepEqual(await eventsOf(h.runtime.store, otherTeamId), []);
    });
  });
});
