import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { evaluateBreaches } from '../../src/core/policies/breach.service.ts';
import type { ServiceGuess } from '../../src/core/surface/exposure-engines.ts';
import { PortInventoryService, type PortRunInput } from '../../src/core/surface/port-inventory.service.ts';
import {
  TechnologyInventoryService,
  type TechnologyRunInput,
} from '../../src/core/surface/technology-inventory.service.ts';
import type { Harness } from '../support/harness.ts';
import {
  openV3ListTeam,
  v3ListReader,
  v3ListSecurityTests,
  v3ListValidationTests,
  v3ListWalkTest,
  type V3BadQuery,
} from '../support/v3-list-contract.ts';

interface WireBreach {
  id: string;
  policy_id: string;
  policy_name: string;
  asset_id: string;
  asset_name: string;
  severity: string;
  active: boolean;
  status: string;
  status_updated_at: string;
  first_seen_at: string;
  disappeared_at: string | null;
}

const t = (day: number, hour = 12) => Date.UTC(2026, 1, day, hour);
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const http: ServiceGuess = {
  name: 'http',
  isTls: false,
  isHttp: true,
  banner: 'HTTP/1.1 200 OK',
  product: undefined,
  version: undefined,
};
const https: ServiceGuess = {
  name: 'http',
  isTls: true,
  isHttp: true,
  banner: undefined,
  product: undefined,
  version: undefined,
};
const mysql: ServiceGuess = {
  name: 'mysql',
  isTls: false,
  isHttp: false,
  banner: undefined,
  product: 'MySQL',
  version: '8.0.36',
};
const ssh: ServiceGuess = {
  name: 'ssh',
  isTls: false,
  isHttp: false,
  banner: 'SSH-2.0-OpenSSH_9.2p1',
  product: 'OpenSSH',
  version: '9.2p1',
};
const path = '/rest/v3/breaches';

describe('v3 GET /breaches', () => {
  let h: Harness;
  let v3: string;
  let teamId: number;
  let ports: PortInventoryService;
  let technologies: TechnologyInventoryService;
  let assets: Record<string, { id: number; token: string }>;
  const session = () => ({ h, v3 });

  before(async () => {
    ({ h, v3, teamId, assets } = await openV3ListTeam('breachteam', [
      'life.example',
      'pages.example',
      'late.example',
      'filters.example',
    ]));
    ports = new PortInventoryService(h.runtime.store);
    technologies = new TechnologyInventoryService(h.runtime.store);
  });
  after(async () => h.close());

  /** One completed run of an asset, as the surface runner records it: ports, technologies, then the policies. */
  const run = async (asset: string, at: number, open: PortRunInput['open'], seen: TechnologyRunInput['seen'] = []) => {
    const assetId = assets[asset]!.id;
    await ports.recordRun({ teamId, assetId, at, open });
    await technologies.recordRun({ teamId, assetId, at, seen });
    return evaluateBreaches(h.runtime.store, { teamId, assetId, at });
  };
  const on = (port: number, domainName: string, service: ServiceGuess, address = '192.0.2.10') => ({
    address,
    port,
    domainName,
    service,
  });

  const { page, all } = v3ListReader<WireBreach>(path, session);
  const of = (items: WireBreach[], asset: string) => items.filter((i) => i.asset_id === assets[asset]!.token);
  const brief = (items: WireBreach[]) => items.map((i) => `${i.policy_id} ${i.asset_name} ${i.status}`);

  describe('breaches open, resolve and return with the inventory', () => {
    it('opens a NEW breach per (policy, host) with the item shape of the spec', async () => {
      const summary = await run(
        'life.example',
        t(1),
        [
          on(3306, 'db.life.example', mysql),
          on(5432, 'db.life.example', { ...mysql, name: 'postgresql' }),
          on(443, 'www.life.example', https),
          on(22, 'www.life.example', ssh),
        ],
        [
          {
            domainName: 'www.life.example',
            port: 443,
            serviceProtocol: 'https',
            name: 'Nginx',
            version: '1.25.3',
            categories: ['Web servers', 'Reverse proxies'],
          },
        ],
      );
      assert.deepEqual(summary, { opened: 3, reopened: 0, resolved: 0, breached: 3 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(brief(items), [
        'database-exposed db.life.example NEW',
        'ssh-exposed www.life.example NEW',
        'software-version-disclosed www.life.example NEW',
      ]);
      assert.match(items[0]!.id, /^\d+$/);
      assert.deepEqual(
        { ...items[0]!, id: 'x' },
        {
          id: 'x',
          policy_id: 'database-exposed',
          policy_name: 'Database exposed',
          asset_id: assets['life.example']!.token,
          asset_name: 'db.life.example',
          severity: 'HIGH',
          active: true,
          status: 'NEW',
          status_updated_at: '2026-02-01T12:00:00Z',
          first_seen_at: '2026-02-01T12:00:00Z',
          disappeared_at: null,
        },
      );
    });

    it('changes nothing shown when a run finds the same breaches again', async () => {
      const before = (await page('?limit=1000')).items;
      const summary = await run(
        'life.example',
        t(2),
        [on(3306, 'db.life.example', mysql), on(443, 'www.life.example', https), on(22, 'www.life.example', ssh)],
        [
          {
            domainName: 'www.life.example',
            port: 443,
            serviceProtocol: 'https',
            name: 'Nginx',
            version: '1.25.3',
            categories: ['Web servers'],
          },
        ],
      );
      assert.deepEqual(summary, { opened: 0, reopened: 0, resolved: 0, breached: 3 });
      assert.deepEqual((await page('?limit=1000')).items, before);
      const rows = await h.runtime.store.breaches.listOfAsset(teamId, assets['life.example']!.id);
      assert.deepEqual(
        rows.map((r) => r.lastSeenAt.getTime()),
        [t(2), t(2), t(2)],
      );
    });

    it('keeps the breach when another port breaches it, with that port as evidence', async () => {
      await run(
        'life.example',
        t(2, 18),
        [
          on(5432, 'db.life.example', { ...mysql, name: 'postgresql' }),
          on(443, 'www.life.example', https),
          on(22, 'www.life.example', ssh),
        ],
        [
          {
            domainName: 'www.life.example',
            port: 443,
            serviceProtocol: 'https',
            name: 'Nginx',
            version: '1.25.3',
            categories: ['Web servers'],
          },
        ],
      );
      const rows = await h.runtime.store.breaches.listOfAsset(teamId, assets['life.example']!.id);
      const database = rows.find((r) => r.policyId === 'database-exposed')!;
      assert.deepEqual(
        [database.status, database.evidence, database.statusUpdatedAt.getTime()],
        ['NEW', '192.0.2.10 port 5432 (postgresql)', t(1)],
      );
    });

    it('resolves the breaches a run no longer finds, with disappeared_at and status_updated_at', async () => {
      const summary = await run('life.example', t(3), [
        on(443, 'www.life.example', https),
        on(22, 'www.life.example', ssh),
      ]);
      assert.deepEqual(summary, { opened: 0, reopened: 0, resolved: 2, breached: 1 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(
        items.map((i) => [i.policy_id, i.status, i.active, i.status_updated_at, i.disappeared_at]),
        [
          ['database-exposed', 'RESOLVED', false, '2026-02-03T12:00:00Z', '2026-02-03T12:00:00Z'],
          ['ssh-exposed', 'NEW', true, '2026-02-01T12:00:00Z', null],
          ['software-version-disclosed', 'RESOLVED', false, '2026-02-03T12:00:00Z', '2026-02-03T12:00:00Z'],
        ],
      );
    });

    it('makes a resolved breach NEW again when it returns, keeping first_seen_at', async () => {
      const summary = await run('life.example', t(4), [
        on(3306, 'db.life.example', mysql),
        on(443, 'www.life.example', https),
        on(22, 'www.life.example', ssh),
      ]);
      assert.deepEqual(summary, { opened: 0, reopened: 1, resolved: 0, breached: 2 });
      const database = of((await page('?limit=1000')).items, 'life.example')[0]!;
      assert.deepEqual(
        [database.status, database.active, database.first_seen_at, database.status_updated_at, database.disappeared_at],
        ['NEW', true, '2026-02-01T12:00:00Z', '2026-02-04T12:00:00Z', null],
      );
    });

    it('trusts the identified service: HTTP on a database port breaches the clear-text web policy, not the database one', async () => {
      await run('life.example', t(5), [on(3306, 'db.life.example', http), on(22, 'www.life.example', ssh)]);
      const items = of((await page('?limit=1000')).items, 'life.example').filter((i) => i.active);
      assert.deepEqual(brief(items), ['ssh-exposed www.life.example NEW', 'cleartext-web-service db.life.example NEW']);
    });

    it('evaluates after every completed monitoring run (the summary counts them; see surface-exposure.test.ts for a real run)', async () => {
      const rows = await h.runtime.store.breaches.listOfAsset(teamId, assets['life.example']!.id);
      assert.equal(rows.find((r) => r.policyId === 'ssh-exposed')?.evidence, '192.0.2.10 port 22 (ssh)');
    });
  });

  describe('pagination', () => {
    before(async () => {
      await run(
        'pages.example',
        t(8),
        Array.from({ length: 12 }, (_, i) =>
          on(22, `h${String(i).padStart(2, '0')}.pages.example`, ssh, `198.51.100.${i + 1}`),
        ),
      );
    });

    v3ListWalkTest(path, session, (round) =>
      run(
        'late.example',
        t(20) + round * 1000,
        Array.from({ length: round }, (_, i) => on(22, `n${i}.late.example`, ssh, `192.0.2.${100 + i}`)),
      ),
    );

    it('puts an absolute next URL with cursor, limit and every filter, and none on the last page', async () => {
      const query = `?limit=5&first_seen_after=2026-02-08T11:00:00Z&status_updated_before=2026-02-09T00:00:00%2B0000&status_updated_after=${iso(t(7))}`;
      const { items, urls } = await all(query);
      assert.deepEqual(
        items.map((i) => i.asset_name),
        Array.from({ length: 12 }, (_, i) => `h${String(i).padStart(2, '0')}.pages.example`),
      );
      assert.equal(urls.length, 2);
      for (const url of urls) {
        const next = new URL(url);
        assert.match(url, /^http:\/\/localhost:80\/rest\/v3\/breaches\?cursor=/);
        assert.deepEqual(
          [...next.searchParams.keys()],
          ['cursor', 'limit', 'first_seen_after', 'status_updated_before', 'status_updated_after'],
        );
        assert.equal(next.searchParams.get('status_updated_before'), '2026-02-09T00:00:00Z');
        assert.equal(next.searchParams.get('status_updated_after'), iso(t(7)));
      }
      const last = await page(new URL(urls[1]!).search);
      assert.equal(last.items.length, 2);
      assert.deepEqual(last.pagination, {});
    });
  });

  describe('filters', () => {
    // day 10: ssh and mysql on f.example; day 11: ftp added, mysql resolved; day 12: ssh resolved, mysql back.
    before(async () => {
      await run('filters.example', t(10), [on(22, 'f.example', ssh), on(3306, 'f.example', mysql)]);
      await run('filters.example', t(11), [on(22, 'f.example', ssh), on(21, 'f.example', { ...ssh, name: 'ftp' })]);
      await run('filters.example', t(12), [on(21, 'f.example', { ...ssh, name: 'ftp' }), on(3306, 'f.example', mysql)]);
    });

    const policiesOf = async (query: string) =>
      of((await all(`?limit=2${query}`)).items, 'filters.example').map((i) => i.policy_id);
    const cases: Array<[string, string, string[]]> = [
      ['none', '', ['database-exposed', 'ssh-exposed', 'cleartext-file-transfer-exposed']],
      ['first_seen_after (exclusive)', `&first_seen_after=${iso(t(10))}`, ['cleartext-file-transfer-exposed']],
      ['first_seen_before', `&first_seen_before=${iso(t(11))}`, ['database-exposed', 'ssh-exposed']],
      ['disappeared_after (active breaches never match)', `&disappeared_after=${iso(t(11))}`, ['ssh-exposed']],
      ['disappeared_before', `&disappeared_before=${iso(t(13))}`, ['ssh-exposed']],
      ['status_updated_after', `&status_updated_after=${iso(t(11))}`, ['database-exposed', 'ssh-exposed']],
      ['status_updated_before', `&status_updated_before=${iso(t(12))}`, ['cleartext-file-transfer-exposed']],
      [
        'status_updated window',
        `&status_updated_after=${iso(t(9))}&status_updated_before=${iso(t(11, 13))}`,
        ['cleartext-file-transfer-exposed'],
      ],
      ['status_updated as Unix time', `&status_updated_after=${t(11) / 1000}`, ['database-exposed', 'ssh-exposed']],
      // `status` is an extension of perimeter; `next` carries it (two a page).
      ['status NEW (open)', '&status=NEW', ['database-exposed', 'cleartext-file-transfer-exposed']],
      ['status RESOLVED', '&status=RESOLVED', ['ssh-exposed']],
      [
        'status both, repeated',
        '&status=RESOLVED&status=NEW',
        ['database-exposed', 'ssh-exposed', 'cleartext-file-transfer-exposed'],
      ],
    ];
    for (const [name, query, expected] of cases) {
      it(`filters: ${name}`, async () => {
        assert.deepEqual(await policiesOf(query), expected);
      });
    }
  });

  describe('validation', () => {
    const bad: V3BadQuery[] = [
      ['limit 0', '?limit=0', 4150, 'limit must be an integer from 1 to 1000'],
      [
        'status not a breach status',
        '?status=NEW,open',
        4150,
        'status must be one or more of NEW, RESOLVED (comma-separated or repeated), got "open"',
      ],
      [
        'status_updated_after malformed',
        '?status_updated_after=yesterday',
        1085,
        'status_updated_after must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "yesterday"',
      ],
      [
        'status_updated_before malformed',
        '?status_updated_before=2026-13-01T00:00:00Z',
        1085,
        'status_updated_before must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "2026-13-01T00:00:00Z"',
      ],
    ];
    v3ListValidationTests(path, session, bad);
  });

  describe('security', () => {
    v3ListSecurityTests(path, session, { team: 'breachteam', emptyQueries: [`?status_updated_after=${iso(t(1))}`] });
  });
});
