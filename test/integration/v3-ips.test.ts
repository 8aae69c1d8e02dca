import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IpRunInput } from '../../src/core/surface/ip-inventory.service.ts';
import type { Harness } from '../support/harness.ts';
import {
  malformedCursor,
  openV3ListTeam,
  v3ListReader,
  v3ListSecurityTests,
  v3ListValidationTests,
  v3ListWalkTest,
  v3Problem,
  type V3BadQuery,
} from '../support/v3-list-contract.ts';

interface WireIp {
  id: string;
  ip_address: string;
  ip_version: string;
  domain_name: string;
  asset_id: string;
  team_id: string;
  active: boolean;
  enriched: boolean;
  first_seen_at: string;
  disappeared_at: string | null;
  autonomous_system: { name: string | null; domain: string | null; number: number | null };
  geolocation: {
    continent: string | null;
    continent_name: string | null;
    country: string | null;
    country_name: string | null;
  };
}

const t = (day: number, hour = 12) => Date.UTC(2026, 0, day, hour);
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const path = '/rest/v3/ips';

describe('v3 GET /ips', () => {
  let h: Harness;
  let v3: string;
  let teamToken: string;
  let teamId: number;
  let assets: Record<string, { id: number; token: string }>;
  const session = () => ({ h, v3 });

  before(async () => {
    ({ h, v3, teamId, teamToken, assets } = await openV3ListTeam('ipteam', [
      'life.example',
      'names.example',
      'pages.example',
      'late.example',
      'filters.example',
      'sparse.example',
      'bulk.example',
    ]));
  });
  after(async () => h.close());

  const record = (asset: string, at: number, seen: IpRunInput['seen']) =>
    h.runtime.ipInventory.recordRun({ teamId, assetId: assets[asset]!.id, seen, at });

  const { page, all } = v3ListReader<WireIp>(path, session);

  const of = (items: WireIp[], asset: string) => items.filter((i) => i.asset_id === assets[asset]!.token);
  const addresses = (items: WireIp[]) => items.map((i) => i.ip_address);

  describe('recordRun: addresses appear, disappear and return', () => {
    it('records new addresses active, enriched from the offline data, with the item shape of the spec', async () => {
      const summary = await record('life.example', t(1), [
        { name: 'www.life.example', address: '8.8.8.8' },
        { name: 'local.life.example.', address: '127.0.0.1' },
        { name: 'v6.life.example', address: '2001:4860:4860:0000:0000:0000:0000:8888' },
        { name: 'bad.life.example', address: 'not-an-address' },
      ]);
      assert.deepEqual(summary, { added: 3, returned: 0, disappeared: 0, seen: 3, ignored: 1 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(addresses(items), ['8.8.8.8', '127.0.0.1', '2001:4860:4860::8888']);
      const google = items[0]!;
      assert.match(google.id, /^\d+$/);
      assert.match(google.autonomous_system.name ?? '', /google/i);
      assert.deepEqual(
        { ...google, id: 'x', autonomous_system: { ...google.autonomous_system, name: 'x' } },
        {
          id: 'x',
          ip_address: '8.8.8.8',
          ip_version: 'IPv4',
          domain_name: 'www.life.example',
          asset_id: assets['life.example']!.token,
          team_id: teamToken,
          active: true,
          enriched: true,
          first_seen_at: '2026-01-01T12:00:00Z',
          disappeared_at: null,
          autonomous_system: { name: 'x', domain: null, number: 15169 },
          geolocation: {
            continent: 'NA',
            continent_name: 'North America',
            country: 'US',
            country_name: 'United States',
          },
        },
      );
      const local = items[1]!;
      assert.equal(local.domain_name, 'local.life.example');
      assert.equal(local.enriched, false);
      assert.deepEqual(local.autonomous_system, { name: null, domain: null, number: null });
      assert.deepEqual(local.geolocation, { continent: null, continent_name: null, country: null, country_name: null });
      assert.equal(items[2]!.ip_version, 'IPv6');
      assert.equal(items[2]!.enriched, true);
    });

    it('marks the addresses a run no longer sees inactive with disappeared_at', async () => {
      const summary = await record('life.example', t(2), [{ name: 'www.life.example', address: '8.8.8.8' }]);
      assert.deepEqual(summary, { added: 0, returned: 0, disappeared: 2, seen: 1, ignored: 0 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(
        items.map((i) => [i.ip_address, i.active, i.disappeared_at]),
        [
          ['8.8.8.8', true, null],
          ['127.0.0.1', false, '2026-01-02T12:00:00Z'],
          ['2001:4860:4860::8888', false, '2026-01-02T12:00:00Z'],
        ],
      );
    });

    it('makes a returning address active again, keeping its first_seen_at and clearing disappeared_at', async () => {
      const summary = await record('life.example', t(3), [
        { name: 'www.life.example', address: '8.8.8.8' },
        { name: 'local.life.example', address: '127.0.0.1' },
      ]);
      assert.deepEqual(summary, { added: 0, returned: 1, disappeared: 0, seen: 2, ignored: 0 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(
        items.map((i) => [i.ip_address, i.active, i.first_seen_at, i.disappeared_at]),
        [
          ['8.8.8.8', true, '2026-01-01T12:00:00Z', null],
          ['127.0.0.1', true, '2026-01-01T12:00:00Z', null],
          ['2001:4860:4860::8888', false, '2026-01-01T12:00:00Z', '2026-01-02T12:00:00Z'],
        ],
      );
      // A later disappearance replaces the earlier one.
      await record('life.example', t(4), [{ name: 'www.life.example', address: '8.8.8.8' }]);
      const again = of((await page('?limit=1000')).items, 'life.example');
      assert.equal(again.find((i) => i.ip_address === '127.0.0.1')!.disappeared_at, '2026-01-04T12:00:00Z');
      assert.equal(again.find((i) => i.ip_address === '2001:4860:4860::8888')!.disappeared_at, '2026-01-02T12:00:00Z');
    });

    it('keeps one row per address when several names resolve to it, naming one the last run saw', async () => {
      await record('names.example', t(1), [
        { name: 'b.names.example', address: '203.0.113.7' },
        { name: 'a.names.example', address: '203.0.113.7' },
      ]);
      const name = async () => of((await page('?limit=1000')).items, 'names.example').map((i) => i.domain_name);
      assert.deepEqual(await name(), ['a.names.example']);
      // Still seen through a.names.example: the name is kept.
      await record('names.example', t(2), [
        { name: 'z.names.example', address: '203.0.113.7' },
        { name: 'a.names.example', address: '203.0.113.7' },
      ]);
      assert.deepEqual(await name(), ['a.names.example']);
      // a no longer resolves to it: the first of the names that do.
      await record('names.example', t(3), [
        { name: 'z.names.example', address: '203.0.113.7' },
        { name: 'm.names.example', address: '203.0.113.7' },
      ]);
      assert.deepEqual(await name(), ['m.names.example']);
    });
  });

  describe('pagination', () => {
    before(async () => {
      const seen = Array.from({ length: 25 }, (_, i) => ({
        name: `h${i}.pages.example`,
        address: `198.51.100.${i + 1}`,
      }));
      await record('pages.example', t(5), seen);
    });

    // Between page fetches, a run adds addresses (which land at the end of the order).
    v3ListWalkTest(path, session, (round) =>
      record(
        'late.example',
        t(20) + round * 1000,
        Array.from({ length: round }, (_, i) => ({ name: `n${i}.late.example`, address: `192.0.2.${i + 1}` })),
      ),
    );

    it('puts an absolute next URL with cursor, limit and every filter, and none on the last page', async () => {
      const query =
        '?limit=10&first_seen_after=2026-01-05T11:00:00Z&first_seen_before=2026-01-05T13:00:00%2B0000&disappeared_after=&';
      const { items, urls } = await all(query);
      assert.equal(items.length, 25);
      assert.equal(urls.length, 2);
      for (const url of urls) {
        const next = new URL(url);
        assert.match(url, /^http:\/\/localhost:80\/rest\/v3\/ips\?cursor=/);
        assert.deepEqual([...next.searchParams.keys()], ['cursor', 'limit', 'first_seen_before', 'first_seen_after']);
        assert.equal(next.searchParams.get('limit'), '10');
        assert.equal(next.searchParams.get('first_seen_after'), '2026-01-05T11:00:00Z');
        assert.equal(next.searchParams.get('first_seen_before'), '2026-01-05T13:00:00Z');
        assert.ok((next.searchParams.get('cursor') ?? '').length > 0);
      }
      const last = await page(new URL(urls[1]!).search);
      assert.equal(last.items.length, 5);
      assert.equal(Object.hasOwn(last.pagination, 'next'), false);
      assert.deepEqual(last.pagination, {});
    });

    it('builds next from the request host, or from the configured public URL', async () => {
      const res = await h.send('GET', '/rest/v3/ips?limit=1', {
        key: v3,
        headers: { host: 'perimeter.internal:8443' },
      });
      assert.match(
        res.json().pagination.next,
        /^http:\/\/perimeter\.internal:8443\/rest\/v3\/ips\?cursor=[^&]+&limit=1$/,
      );
      h.config.publicUrl = 'https://perimeter.example.com/';
      try {
        const configured = await h.send('GET', '/rest/v3/ips/?limit=2', {
          key: v3,
          headers: { host: 'ignored.example' },
        });
        assert.match(
          configured.json().pagination.next,
          /^https:\/\/perimeter\.example\.com\/rest\/v3\/ips\?cursor=[^&]+&limit=2$/,
        );
      } finally {
        h.config.publicUrl = undefined;
      }
    });

    it('defaults to 100 items a page and answers the trailing-slash path alike', async () => {
      await record(
        'bulk.example',
        t(25),
        Array.from({ length: 120 }, (_, i) => ({ name: `b${i}.bulk.example`, address: `172.16.0.${i + 1}` })),
      );
      const { items } = await all('?limit=1000');
      assert.ok(items.length > 100);
      const first = await page('/');
      assert.equal(first.items.length, 100);
      assert.equal(new URL(first.pagination.next!).searchParams.get('limit'), '100');
    });
  });

  describe('filters', () => {
    // a, b first seen on day 10; c on day 11; d on day 12. b disappears on day 11, a on day 12.
    before(async () => {
      await record('filters.example', t(10), [
        { name: 'a.filters.example', address: '100.64.0.1' },
        { name: 'b.filters.example', address: '100.64.0.2' },
      ]);
      await record('filters.example', t(11), [
        { name: 'a.filters.example', address: '100.64.0.1' },
        { name: 'c.filters.example', address: '100.64.0.3' },
      ]);
      await record('filters.example', t(12), [
        { name: 'c.filters.example', address: '100.64.0.3' },
        { name: 'd.filters.example', address: '100.64.0.4' },
      ]);
    });

    const names = async (query: string) =>
      of((await all(`?limit=2${query}`)).items, 'filters.example').map((i) => i.domain_name[0]);
    const cases: Array<[string, string, string[]]> = [
      ['none', '', ['a', 'b', 'c', 'd']],
      ['first_seen_after (exclusive)', `&first_seen_after=${iso(t(10))}`, ['c', 'd']],
      ['first_seen_before (exclusive)', `&first_seen_before=${iso(t(11))}`, ['a', 'b']],
      ['first_seen window', `&first_seen_after=${iso(t(10))}&first_seen_before=${iso(t(12))}`, ['c']],
      ['first_seen_after, offset form', '&first_seen_after=2026-01-11T13:00:00%2B0200', ['c', 'd']],
      ['first_seen_after, offset with a colon', '&first_seen_after=2026-01-11T13:00:00%2B02:00', ['c', 'd']],
      ['disappeared_after', `&disappeared_after=${iso(t(11))}`, ['a']],
      ['disappeared_after, earlier', `&disappeared_after=${iso(t(10))}`, ['a', 'b']],
      ['disappeared_before (active rows never match)', `&disappeared_before=${iso(t(12))}`, ['b']],
      ['disappeared window', `&disappeared_after=${iso(t(10))}&disappeared_before=${iso(t(13))}`, ['a', 'b']],
      ['first_seen and disappeared', `&first_seen_before=${iso(t(11))}&disappeared_after=${iso(t(11))}`, ['a']],
      ['a bound of sub-second precision', `&first_seen_after=${new Date(t(11) - 1).toISOString()}`, ['c', 'd']],
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
      const seen = Array.from({ length: count }, (_, i) => ({
        name: `s${i}.sparse.example`,
        address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      }));
      await record('sparse.example', t(15), seen);
      // The last three addresses disappear: beyond the first few thousand rows of the order.
      await record('sparse.example', t(16), seen.slice(0, count - 3));
    });

    it('finds them through the disappeared index and pages through them', async () => {
      const { items, urls } = await all(`?limit=2&disappeared_after=${iso(t(15))}`);
      assert.deepEqual(addresses(items), ['10.0.20.77', '10.0.20.78', '10.0.20.79']);
      assert.equal(urls.length, 1);
      assert.ok(items.every((i) => !i.active && i.disappeared_at === '2026-01-16T12:00:00Z'));
    });

    it('reads a first_seen window shorter than the probe to its end, with no further page', async () => {
      const { items } = await all(
        `?limit=1000&first_seen_after=${iso(t(14))}&first_seen_before=${iso(t(16))}&disappeared_before=${iso(t(17))}`,
      );
      assert.deepEqual(addresses(items), ['10.0.20.77', '10.0.20.78', '10.0.20.79']);
    });

    it('pages the sparse filter again alike, and reads every row that matches once it matches densely', async () => {
      const query = `?limit=2&disappeared_after=${iso(t(15))}`;
      const again = await all(query);
      assert.deepEqual(addresses(again.items), ['10.0.20.77', '10.0.20.78', '10.0.20.79']);
      // 2,000 more disappear: the filter now matches densely along the order.
      const seen = Array.from({ length: count }, (_, i) => ({
        name: `s${i}.sparse.example`,
        address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      }));
      await record('sparse.example', t(18), seen.slice(2000, count - 3));
      const dense = await all(`?limit=1000&disappeared_after=${iso(t(15))}`);
      assert.equal(dense.items.length, 2000 + 3);
      assert.deepEqual(addresses(dense.items).slice(0, 2), ['10.0.0.0', '10.0.0.1']);
      assert.equal(new Set(addresses(dense.items)).size, dense.items.length);
    });
  });

  describe('validation', () => {
    const bad: V3BadQuery[] = [
      ['limit 0', '?limit=0', 4150, 'limit must be an integer from 1 to 1000'],
      ['limit over 1000', '?limit=1001', 4150, 'limit must be an integer from 1 to 1000'],
      ['limit not a number', '?limit=ten', 4150, 'limit must be an integer from 1 to 1000'],
      ['limit fractional', '?limit=1.5', 4150, 'limit must be an integer from 1 to 1000'],
      ['limit negative', '?limit=-1', 4150, 'limit must be an integer from 1 to 1000'],
      ['limit given twice', '?limit=1&limit=2', 4150, 'limit given more than once'],
      ['cursor garbage', '?cursor=abc', 4150, malformedCursor],
      ['cursor given twice', '?cursor=a&cursor=b', 4150, 'cursor given more than once'],
      [
        'first_seen_after malformed',
        '?first_seen_after=yesterday',
        1085,
        'first_seen_after must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "yesterday"',
      ],
      [
        'first_seen_before impossible date',
        '?first_seen_before=2026-02-30T00:00:00Z',
        1085,
        'first_seen_before must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "2026-02-30T00:00:00Z"',
      ],
      [
        'disappeared_after malformed',
        '?disappeared_after=2026-01-01',
        1085,
        'disappeared_after must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "2026-01-01"',
      ],
      [
        'disappeared_before malformed',
        '?disappeared_before=2026-01-01T25:00:00Z',
        1085,
        'disappeared_before must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "2026-01-01T25:00:00Z"',
      ],
      [
        'filter given twice',
        '?first_seen_after=2026-01-01T00:00:00Z&first_seen_after=2026-01-02T00:00:00Z',
        4150,
        'first_seen_after given more than once',
      ],
    ];
    v3ListValidationTests(path, session, bad);

    it('refuses a cursor that was altered', async () => {
      const next = new URL((await page('?limit=1')).pagination.next!);
      const cursor = next.searchParams.get('cursor')!;
      const [payload, mac] = cursor.split('.');
      const forged = Buffer.from(JSON.stringify([teamId, 'v3:ips', [0, 0]])).toString('base64url');
      for (const altered of [`${forged}.${mac}`, `${payload}.${mac}x`, `${payload}`]) {
        const res = await h.send('GET', `/rest/v3/ips?cursor=${encodeURIComponent(altered)}`, { key: v3 });
        assert.deepEqual(res.json(), v3Problem(path, 400, 4150, malformedCursor));
      }
    });
  });

  describe('security', () => {
    v3ListSecurityTests(path, session, { team: 'ipteam' });
  });
});
