import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/storage/database.ts';
import { sql } from '../../src/storage/kysely.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { refreshRenderCache } from '../../src/storage/render-cache.ts';
import { renderers } from '../../src/runtime.ts';
import { KyselyIpInventoryRepository } from '../../src/storage/repositories/ip-inventory.repository.ts';
import { KyselyPortInventoryRepository } from '../../src/storage/repositories/port-inventory.repository.ts';
import { KyselyTechnologyInventoryRepository } from '../../src/storage/repositories/technology-inventory.repository.ts';
import { insertTeamAndAsset, openStoreAt, type MigrationStore } from '../support/migration-store.ts';

const seen = Date.UTC(2026, 3, 1, 12, 0, 0, 250);
const gone = Date.UTC(2026, 4, 2, 8, 30, 15, 999);

describe('migrations 014 and 021: inventory rows stored before them get their list documents when the store opens', () => {
  let store: MigrationStore;
  let database: Database;

  before(async () => {
    store = await openStoreAt('013-port-technology-inventory');
    database = store.database;
  });
  after(async () => store.close());

  it('renders each existing address, port and technology as the v3 lists show it, more than a batch of them', async () => {
    const db = database.db;
    const { teamId, assetId } = await insertTeamAndAsset(database);
    // 1,203 addresses: more than one batch of the backfill; the first enriched, the second gone.
    for (let i = 0; i < 1203; i++) {
      const enriched = i === 0;
      await sql`insert into ip_addresses (team_id, asset_id, ip_address, ip_version, domain_name, active, first_seen_at, last_seen_at, disappeared_at, enriched, as_number, as_name, as_domain, continent, continent_name, country, country_name)
        values (${teamId}, ${assetId}, ${`10.0.${i >> 8}.${i & 255}`}, 'IPv4', ${`h${i}.example.com`}, ${i === 1 ? 0 : 1}, ${seen + i}, ${seen + i}, ${i === 1 ? gone : null},
          ${enriched ? 1 : 0}, ${enriched ? 15169 : null}, ${enriched ? 'Google "LLC"' : null}, null, ${enriched ? 'NA' : null}, ${enriched ? 'North America' : null}, ${enriched ? 'US' : null}, ${enriched ? 'United States' : null})`.execute(
        db,
      );
    }
    await sql`insert into ports (team_id, asset_id, ip_address, port, domain_name, status, service, is_tls, is_http, banner, product, version, first_seen_at, last_seen_at, disappeared_at)
      values (${teamId}, ${assetId}, '10.0.0.1', 443, 'www.example.com', 'CLOSED', 'https', 1, 1, null, null, null, ${seen}, ${seen}, ${gone})`.execute(
      db,
    );
    await sql`insert into technologies (team_id, asset_id, domain_name, port, name, version, service_protocol, categories, active, first_seen_at, last_seen_at, disappeared_at)
      values (${teamId}, ${assetId}, 'www.example.com', 443, 'Nginx', '1.25.3', 'https', '["Web servers","Reverse proxies"]', 1, ${seen}, ${seen}, null)`.execute(
      db,
    );

    await migrateToLatest(database);
    // The documents are a render cache: the store renders the rows migration 014 left empty when it opens.
    assert.deepEqual(await refreshRenderCache(db, renderers), {
      vulnerabilities: 0,
      ip_addresses: 1203,
      ports: 1,
      technologies: 1,
    });

    const page = await new KyselyIpInventoryRepository(db, database.dialect, renderers.inventory, database).listPage({
      teamId,
      filter: {},
      after: undefined,
      limit: 2,
    });
    assert.deepEqual(JSON.parse(`[${Buffer.from(page.items).toString()}]`), [
      {
        id: '1',
        active: true,
        disappeared_at: null,
        ip_address: '10.0.0.0',
        ip_version: 'IPv4',
        domain_name: 'h0.example.com',
        asset_id: 'asset-token',
        team_id: 'team-token',
        enriched: true,
        first_seen_at: '2026-04-01T12:00:00Z',
        autonomous_system: { name: 'Google "LLC"', domain: null, number: 15169 },
        geolocation: { continent: 'NA', continent_name: 'North America', country: 'US', country_name: 'United States' },
      },
      {
        id: '2',
        active: false,
        disappeared_at: '2026-05-02T08:30:15Z',
        ip_address: '10.0.0.1',
        ip_version: 'IPv4',
        domain_name: 'h1.example.com',
        asset_id: 'asset-token',
        team_id: 'team-token',
        enriched: false,
        first_seen_at: '2026-04-01T12:00:00Z',
        autonomous_system: { name: null, domain: null, number: null },
        geolocation: { continent: null, continent_name: null, country: null, country_name: null },
      },
    ]);
    assert.deepEqual(page.next, { firstSeenAt: seen + 1, id: 2 });
    const { rows } = await sql<{ n: number }>`select count(*) as n from ip_addresses where document = '{}'`.execute(db);
    assert.equal(Number(rows[0]!.n), 0, 'every row of every batch has its document');

    const ports = await new KyselyPortInventoryRepository(db, database.dialect, renderers.inventory, database).listPage(
      {
        teamId,
        filter: {},
        after: undefined,
        limit: 10,
      },
    );
    assert.deepEqual(JSON.parse(`[${Buffer.from(ports.items).toString()}]`), [
      {
        id: '1',
        status: 'CLOSED',
        disappeared_at: '2026-05-02T08:30:15Z',
        team_id: 'team-token',
        asset_id: 'asset-token',
        domain_name: 'www.example.com',
        ip_address: '10.0.0.1',
        port: 443,
        first_seen_at: '2026-04-01T12:00:00Z',
      },
    ]);
    const technologies = await new KyselyTechnologyInventoryRepository(
      db,
      database.dialect,
      renderers.inventory,
      database,
    ).listPage({
      teamId,
      filter: {},
      after: undefined,
      limit: 10,
    });
    assert.deepEqual(JSON.parse(`[${Buffer.from(technologies.items).toString()}]`), [
      {
        id: '1',
        active: true,
        disappeared_at: null,
        asset_id: 'asset-token',
        team_id: 'team-token',
        domain_name: 'www.example.com',
        service_protocol: 'https',
        port: 443,
        name: 'Nginx',
        version: '1.25.3',
        categories: ['Web servers', 'Reverse proxies'],
        first_seen_at: '2026-04-01T12:00:00Z',
      },
    ]);
  });
});
