import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { vulnerabilityRenderer } from '../../src/http/v2/vulnerability.render.ts';
import { inventoryRenderer } from '../../src/http/v3/inventory.render.ts';
import { sql } from '../../src/storage/kysely.ts';
import { refreshRenderCache, type Renderers } from '../../src/storage/render-cache.ts';
import { KyselyVulnerabilityRepository } from '../../src/storage/repositories/vulnerability.repository.ts';
import { finding, scan, scanTarget, type ScanTarget } from '../support/findings.ts';
import { createHarness, type Harness } from '../support/harness.ts';

type Row = { id: number; document: string; details_full: string | null; render_version: number };

/**
 * The stored documents are a render cache of the wire shapes (http/v2/vulnerability.render.ts,
 * http/v3/inventory.render.ts) keyed by a render version: a bumped version (injected here, as a
 * changed shape would bump it) renders the rows again from their source, the finding or the
 * columns, and gives the teams new data versions so a cached page is not served again; a single
 * read of a row still older renders it on the fly.
 */
describe('render cache: a bumped render version renders the stored documents again', () => {
  let h: Harness;
  let key: string;
  let v3: string;
  let target: ScanTarget;
  const bumped: Renderers = {
    vulnerabilities: { ...vulnerabilityRenderer, version: vulnerabilityRenderer.version + 1 },
    inventory: { ...inventoryRenderer, version: inventoryRenderer.version + 1 },
  };

  before(async () => {
    h = await createHarness();
    key = (await h.team('render')).key;
    v3 = (await h.key('render', '--v3')).key;
    target = await scanTarget(h, 'render', 'app.example.com');
    const long = 'x'.repeat(20_000);
    await scan(h, target, [
      finding('a'),
      finding('b', { details: { text: [{ value: long }] } as never }),
      finding('c', {
        cookie: {
          domain: 'app.example.com',
          name: 's',
          path: '/',
          value: 'v',
          expires: new Date(Date.UTC(2030, 0, 1)),
          httponly: true,
          secure: false,
        } as never,
      }),
    ]);
    await h.runtime.store.ipAddresses.insertMany(
      [1, 2, 3].map((i) => ({
        teamId: target.team.id,
        assetId: target.asset.id,
        ipAddress: `10.0.0.${i}`,
        ipVersion: 'IPv4' as const,
        domainName: 'app.example.com',
        at: new Date(Date.UTC(2026, 0, i)),
        enrichment: undefined,
      })),
    );
    await h.runtime.store.ipAddresses.bumpVersion(target.team.id);
  });
  after(async () => h.close());

  const vulnerabilityRows = async () =>
    (
      await sql<Row>`select id, document, details_full, render_version from vulnerabilities order by id`.execute(
        h.runtime.database.db,
      )
    ).rows;
  const ipRows = async () =>
    (await sql<Row>`select id, document, render_version from ip_addresses order by id`.execute(h.runtime.database.db))
      .rows;

  it('renders every older row again to the same bytes and bumps the data versions of its teams', async () => {
    const list = (await h.send('GET', '/rest/v2/vulnerabilities/', { key })).body;
    const ips = (await h.send('GET', '/rest/v3/ips', { key: v3 })).body;
    const before = { vulnerabilities: await vulnerabilityRows(), ips: await ipRows() };
    assert.equal(before.vulnerabilities.length, 3);
    assert.ok(
      before.vulnerabilities.some((r) => r.details_full !== null),
      'one row keeps full details',
    );
    const versions = {
      vulnerabilities: await h.runtime.store.vulnerabilities.version(target.team.id),
      ips: await h.runtime.store.ipAddresses.version(target.team.id),
    };

    const refreshed = await refreshRenderCache(h.runtime.database.db, bumped);
    assert.deepEqual(refreshed, { vulnerabilities: 3, ip_addresses: 3, ports: 0, technologies: 0 });

    const after = { vulnerabilities: await vulnerabilityRows(), ips: await ipRows() };
    assert.deepEqual(
      after.vulnerabilities.map((r) => [r.id, r.document, r.details_full]),
      before.vulnerabilities.map((r) => [r.id, r.document, r.details_full]),
      'the same bytes',
    );
    assert.deepEqual(
      after.ips.map((r) => [r.id, r.document]),
      before.ips.map((r) => [r.id, r.document]),
    );
    for (const row of [...after.vulnerabilities, ...after.ips]) assert.equal(Number(row.render_version), 2);
    assert.ok((await h.runtime.store.vulnerabilities.version(target.team.id)) > versions.vulnerabilities);
    assert.ok(
      (await h.runtime.store.ipAddresses.version(target.team.id)) > versions.ips,
      'cached pages are not served again',
    );
    assert.equal((await h.send('GET', '/rest/v2/vulnerabilities/', { key })).body, list);
    assert.equal((await h.send('GET', '/rest/v3/ips', { key: v3 })).body, ips);

    assert.deepEqual(
      await refreshRenderCache(h.runtime.database.db, bumped),
      { vulnerabilities: 0, ip_addresses: 0, ports: 0, technologies: 0 },
      'a store already at the version costs one read per table',
    );
  });

  it('renders a row still older on the fly when it is read alone', async () => {
    const [row] = await vulnerabilityRows();
    const uuid = (JSON.parse(row!.document) as { uuid: string }).uuid;
    const single = (await h.send('GET', `/rest/v2/vulnerabilities/${uuid}/`, { key })).body;
    await sql`update vulnerabilities set document = '{"stale":true}', render_version = 0 where id = ${row!.id}`.execute(
      h.runtime.database.db,
    );
    const repository = new KyselyVulnerabilityRepository(h.runtime.database.db, bumped.vulnerabilities);
    assert.equal((await repository.findByUuid(target.team.id, uuid))!.document, row!.document);
    assert.equal((await h.send('GET', `/rest/v2/vulnerabilities/${uuid}/`, { key })).body, single);
  });
});
