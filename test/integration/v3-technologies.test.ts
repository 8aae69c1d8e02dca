import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  TechnologyInventoryService,
  type TechnologyRunInput,
} from '../../src/core/surface/technology-inventory.service.ts';
import type { Harness } from '../support/harness.ts';
import {
  malformedCursor,
  openV3ListTeam,
  v3ListReader,
  v3ListSecurityTests,
  v3ListValidationTests,
  v3ListWalkTest,
  type V3BadQuery,
} from '../support/v3-list-contract.ts';

interface WireTechnology {
  id: string;
  asset_id: string;
  team_id: string;
  domain_name: string;
  service_protocol: string;
  port: number;
  name: string;
  version: string | null;
  categories: string[];
  active: boolean;
  first_seen_at: string;
  disappeared_at: string | null;
}

type Seen = TechnologyRunInput['seen'][number];

const t = (day: number, hour = 12) => Date.UTC(2026, 0, day, hour);
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const tech = (domainName: string, name: string, version: string | null, extra: Partial<Seen> = {}): Seen => ({
  domainName,
  port: 443,
  serviceProtocol: 'https',
  name,
  version,
  categories: ['Web servers'],
  ...extra,
});
const path = '/rest/v3/technologies';

describe('v3 GET /technologies', () => {
  let h: Harness;
  let v3: string;
  let teamToken: string;
  let teamId: number;
  let inventory: TechnologyInventoryService;
  let assets: Record<string, { id: number; token: string }>;
  const session = () => ({ h, v3 });

  before(async () => {
    ({ h, v3, teamId, teamToken, assets } = await openV3ListTeam('techteam', [
      'life.example',
      'pages.example',
      'late.example',
      'filters.example',
      'sparse.example',
      'cache.example',
    ]));
    inventory = new TechnologyInventoryService(h.runtime.store);
  });
  after(async () => h.close());

  const record = (asset: string, at: number, seen: Seen[]) =>
    inventory.recordRun({ teamId, assetId: assets[asset]!.id, at, seen });

  const { page, all } = v3ListReader<WireTechnology>(path, session);

  const of = (items: WireTechnology[], asset: string) => items.filter((i) => i.asset_id === assets[asset]!.token);
  const labels = (items: WireTechnology[]) => items.map((i) => `${i.name}@${i.version ?? '-'}`);

  describe('recordRun: technologies appear, disappear and return', () => {
    it('records new technologies active with the item shape of the spec; a null version is a value of its own', async () => {
      const summary = await record('life.example', t(1), [
        tech('WWW.life.example.', 'Nginx', '1.25.3'),
        tech('www.life.example', 'Nginx', null),
        tech('www.life.example', 'Nginx', ''),
        tech('www.life.example', 'WordPress', '6.4', { categories: ['CMS', 'Blogs'] }),
        tech('www.life.example', 'WordPress', '6.4', { categories: ['Blogs', 'Web frameworks'] }),
        tech('www.life.example', 'PHP', null, {
          port: 8080,
          serviceProtocol: 'http',
          categories: ['Programming languages'],
        }),
        tech('www.life.example', 'Broken', null, { port: -1 }),
      ]);
      assert.deepEqual(summary, { added: 4, returned: 0, disappeared: 0, seen: 4 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(labels(items), ['Nginx@1.25.3', 'Nginx@-', 'WordPress@6.4', 'PHP@-']);
      assert.match(items[0]!.id, /^\d+$/);
      assert.deepEqual(
        { ...items[2]!, id: 'x' },
        {
          id: 'x',
          asset_id: assets['life.example']!.token,
          team_id: teamToken,
          domain_name: 'www.life.example',
          service_protocol: 'https',
          port: 443,
          name: 'WordPress',
          version: '6.4',
          categories: ['CMS', 'Blogs', 'Web frameworks'],
          active: true,
          first_seen_at: '2026-01-01T12:00:00Z',
          disappeared_at: null,
        },
      );
      assert.deepEqual([items[3]!.port, items[3]!.service_protocol], [8080, 'http']);
    });

    it('marks the technologies a run no longer sees inactive with disappeared_at; a new version is a new item', async () => {
      const summary = await record('life.example', t(2), [
        tech('www.life.example', 'Nginx', '1.25.4'),
        tech('www.life.example', 'Nginx', null),
      ]);
      assert.deepEqual(summary, { added: 1, returned: 0, disappeared: 3, seen: 2 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(
        items.map((i) => [`${i.name}@${i.version ?? '-'}`, i.active, i.disappeared_at]),
        [
          ['Nginx@1.25.3', false, '2026-01-02T12:00:00Z'],
          ['Nginx@-', true, null],
          ['WordPress@6.4', false, '2026-01-02T12:00:00Z'],
          ['PHP@-', false, '2026-01-02T12:00:00Z'],
          ['Nginx@1.25.4', true, null],
        ],
      );
    });

    it('makes a returning technology active again, keeping first_seen_at and taking the latest categories', async () => {
      const version = () => h.runtime.store.technologies.version(teamId);
      const summary = await record('life.example', t(3), [
        tech('www.life.example', 'Nginx', '1.25.4'),
        tech('www.life.example', 'Nginx', null),
        tech('www.life.example', 'WordPress', '6.4', { categories: ['CMS'] }),
      ]);
      assert.deepEqual(summary, { added: 0, returned: 1, disappeared: 0, seen: 3 });
      const wordpress = of((await page('?limit=1000')).items, 'life.example').find((i) => i.name === 'WordPress')!;
      assert.deepEqual(
        [wordpress.active, wordpress.first_seen_at, wordpress.disappeared_at, wordpress.categories],
        [true, '2026-01-01T12:00:00Z', null, ['CMS']],
      );
      // The same run again changes nothing a list shows: the version stays.
      const before = await version();
      await record('life.example', t(4), [
        tech('www.life.example', 'Nginx', '1.25.4'),
        tech('www.life.example', 'Nginx', null),
        tech('www.life.example', 'WordPress', '6.4', { categories: ['CMS'] }),
      ]);
      assert.equal(await version(), before);
      await record('life.example', t(5), [
        tech('www.life.example', 'Nginx', '1.25.4'),
        tech('www.life.example', 'Nginx', null),
        tech('www.life.example', 'WordPress', '6.4', { categories: ['CMS', 'Blogs'] }),
      ]);
      assert.equal(await version(), before + 1, 'new categories are shown');
    });
  });

  describe('pagination', () => {
    before(async () => {
      await record(
        'pages.example',
        t(8),
        Array.from({ length: 25 }, (_, i) => tech(`h${i}.pages.example`, 'Apache HTTP Server', '2.4.58')),
      );
    });

    v3ListWalkTest(path, session, (round) =>
      record(
        'late.example',
        t(20) + round * 1000,
        Array.from({ length: round }, (_, i) => tech(`n${i}.late.example`, 'Caddy', null)),
      ),
    );

    it('puts an absolute next URL with cursor, limit and every filter, and none on the last page', async () => {
      const { items, urls } = await all(
        '?limit=10&first_seen_after=2026-01-08T11:00:00Z&first_seen_before=2026-01-08T13:00:00%2B0000',
      );
      assert.equal(items.length, 25);
      assert.equal(urls.length, 2);
      for (const url of urls) {
        const next = new URL(url);
        assert.match(url, /^http:\/\/localhost:80\/rest\/v3\/technologies\?cursor=/);
        assert.deepEqual([...next.searchParams.keys()], ['cursor', 'limit', 'first_seen_before', 'first_seen_after']);
        assert.equal(next.searchParams.get('limit'), '10');
        assert.equal(next.searchParams.get('first_seen_after'), '2026-01-08T11:00:00Z');
        assert.equal(next.searchParams.get('first_seen_before'), '2026-01-08T13:00:00Z');
      }
      assert.deepEqual((await page(new URL(urls[1]!).search)).pagination, {});
    });
  });

  describe('filters', () => {
    // a, b first seen on day 10; c on day 11; d on day 12. b disappears on day 11, a on day 12.
    before(async () => {
      await record('filters.example', t(10), [tech('f.example', 'a', null), tech('f.example', 'b', null)]);
      await record('filters.example', t(11), [tech('f.example', 'a', null), tech('f.example', 'c', null)]);
      await record('filters.example', t(12), [tech('f.example', 'c', null), tech('f.example', 'd', null)]);
    });

    const names = async (query: string) =>
      of((await all(`?limit=2${query}`)).items, 'filters.example').map((i) => i.name);
    const cases: Array<[string, string, string[]]> = [
      ['none', '', ['a', 'b', 'c', 'd']],
      ['first_seen_after (exclusive)', `&first_seen_after=${iso(t(10))}`, ['c', 'd']],
      ['first_seen_before (exclusive)', `&first_seen_before=${iso(t(11))}`, ['a', 'b']],
      ['first_seen window', `&first_seen_after=${iso(t(10))}&first_seen_before=${iso(t(12))}`, ['c']],
      ['disappeared_after', `&disappeared_after=${iso(t(11))}`, ['a']],
      ['disappeared_before (active rows never match)', `&disappeared_before=${iso(t(12))}`, ['b']],
      ['disappeared window', `&disappeared_after=${iso(t(10))}&disappeared_before=${iso(t(13))}`, ['a', 'b']],
      ['first_seen and disappeared', `&first_seen_before=${iso(t(11))}&disappeared_after=${iso(t(11))}`, ['a']],
    ];
    for (const [name, query, expected] of cases) {
      it(`filters: ${name}`, async () => {
        assert.deepEqual(await names(query), expected);
      });
    }
  });

  describe('a disappeared filter few rows match, far along the order', () => {
    const count = 5200;
    before(async () => {
      const seen = Array.from({ length: count }, (_, i) => tech(`s${i}.sparse.example`, 'Nginx', null));
      await record('sparse.example', t(15), seen);
      await record('sparse.example', t(16), seen.slice(0, count - 3));
    });

    it('finds them through the disappeared index and pages through them', async () => {
      const { items, urls } = await all(`?limit=2&disappeared_after=${iso(t(15))}`);
      assert.deepEqual(
        items.map((i) => i.domain_name),
        ['s5197.sparse.example', 's5198.sparse.example', 's5199.sparse.example'],
      );
      assert.equal(urls.length, 1);
    });
  });

  describe('the page cache', () => {
    it('answers a new run at once: the run bumps the version the cached page is keyed by', async () => {
      await record('cache.example', t(18), [tech('cache.example', 'Varnish', null)]);
      const query = `?first_seen_after=${iso(t(17))}&first_seen_before=${iso(t(19))}`;
      assert.deepEqual(
        (await page(query)).items.map((i) => i.active),
        [true],
      );
      assert.deepEqual(
        (await page(query)).items.map((i) => i.active),
        [true],
      );
      await record('cache.example', t(19), []);
      assert.deepEqual(
        (await page(query)).items.map((i) => [i.active, i.disappeared_at]),
        [[false, '2026-01-19T12:00:00Z']],
      );
    });
  });

  describe('validation', () => {
    const bad: V3BadQuery[] = [
      ['limit over 1000', '?limit=1001', 4150, 'limit must be an integer from 1 to 1000'],
      ['cursor garbage', '?cursor=abc', 4150, malformedCursor],
      [
        'disappeared_before malformed',
        '?disappeared_before=2026-01-01T25:00:00Z',
        1085,
        'disappeared_before must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "2026-01-01T25:00:00Z"',
      ],
    ];
    v3ListValidationTests(path, session, bad);
  });

  describe('security', () => {
    v3ListSecurityTests(path, session, { team: 'techteam', otherMethod: false });
  });
});
