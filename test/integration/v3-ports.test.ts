import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ServiceGuess } from '../../src/core/surface/exposure-engines.ts';
import { PortInventoryService, type PortRunInput } from '../../src/core/surface/port-inventory.service.ts';
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

interface WirePort {
  id: string;
  team_id: string;
  asset_id: string;
  domain_name: string;
  ip_address: string;
  port: number;
  status: string;
  first_seen_at: string;
  disappeared_at: string | null;
}

const t = (day: number, hour = 12) => Date.UTC(2026, 0, day, hour);
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const http: ServiceGuess = {
  name: 'http',
  isTls: false,
  isHttp: true,
  banner: 'HTTP/1.1 200 OK',
  product: 'nginx',
  version: '1.25.3',
};
const ssh: ServiceGuess = {
  name: 'ssh',
  isTls: false,
  isHttp: false,
  banner: 'SSH-2.0-OpenSSH_9.2p1',
  product: 'OpenSSH',
  version: '9.2p1',
};
const path = '/rest/v3/ports';

describe('v3 GET /ports', () => {
  let h: Harness;
  let v3: string;
  let teamToken: string;
  let teamId: number;
  let inventory: PortInventoryService;
  let assets: Record<string, { id: number; token: string }>;
  const session = () => ({ h, v3 });

  before(async () => {
    ({ h, v3, teamId, teamToken, assets } = await openV3ListTeam('portteam', [
      'life.example',
      'pages.example',
      'late.example',
      'filters.example',
      'sparse.example',
      'cache.example',
    ]));
    inventory = new PortInventoryService(h.runtime.store);
  });
  after(async () => h.close());

  const record = (asset: string, at: number, open: PortRunInput['open']) =>
    inventory.recordRun({ teamId, assetId: assets[asset]!.id, at, open });
  const on = (address: string, port: number, domainName: string, service: ServiceGuess = http) => ({
    address,
    port,
    domainName,
    service,
  });

  const { page, all } = v3ListReader<WirePort>(path, session);

  const of = (items: WirePort[], asset: string) => items.filter((i) => i.asset_id === assets[asset]!.token);
  const endpoints = (items: WirePort[]) => items.map((i) => `${i.ip_address}:${i.port}`);

  describe('recordRun: ports open, close and reopen', () => {
    it('records new ports OPEN with the item shape of the spec', async () => {
      const summary = await record('life.example', t(1), [
        on('192.0.2.10', 443, 'WWW.life.example.'),
        on('192.0.2.10', 22, 'www.life.example', ssh),
        on('2001:db8:0:0:0:0:0:1', 80, 'v6.life.example'),
        on('not-an-address', 80, 'bad.life.example'),
        on('192.0.2.10', 70000, 'bad.life.example'),
      ]);
      assert.deepEqual(summary, { opened: 3, reopened: 0, closed: 0, open: 3 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(endpoints(items), ['192.0.2.10:443', '192.0.2.10:22', '2001:db8::1:80']);
      assert.match(items[0]!.id, /^\d+$/);
      assert.deepEqual(
        { ...items[0]!, id: 'x' },
        {
          id: 'x',
          team_id: teamToken,
          asset_id: assets['life.example']!.token,
          domain_name: 'www.life.example',
          ip_address: '192.0.2.10',
          port: 443,
          status: 'OPEN',
          first_seen_at: '2026-01-01T12:00:00Z',
          disappeared_at: null,
        },
      );
      const rows = await h.runtime.store.ports.listOfAsset(teamId, assets['life.example']!.id);
      assert.deepEqual(rows.find((r) => r.port === 22)!.service, {
        name: 'ssh',
        isTls: false,
        isHttp: false,
        banner: 'SSH-2.0-OpenSSH_9.2p1',
        product: 'OpenSSH',
        version: '9.2p1',
      });
    });

    it('closes the OPEN ports a run no longer finds, with disappeared_at', async () => {
      const summary = await record('life.example', t(2), [on('192.0.2.10', 443, 'www.life.example')]);
      assert.deepEqual(summary, { opened: 0, reopened: 0, closed: 2, open: 1 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(
        items.map((i) => [i.port, i.status, i.disappeared_at]),
        [
          [443, 'OPEN', null],
          [22, 'CLOSED', '2026-01-02T12:00:00Z'],
          [80, 'CLOSED', '2026-01-02T12:00:00Z'],
        ],
      );
      // A run that again finds it closed changes nothing.
      assert.deepEqual(await record('life.example', t(3), [on('192.0.2.10', 443, 'www.life.example')]), {
        opened: 0,
        reopened: 0,
        closed: 0,
        open: 1,
      });
      assert.equal(of((await page('?limit=1000')).items, 'life.example')[1]!.disappeared_at, '2026-01-02T12:00:00Z');
    });

    it('reopens a CLOSED port keeping first_seen_at, clearing disappeared_at and taking the latest service guess', async () => {
      const newer: ServiceGuess = {
        name: 'ssh',
        isTls: false,
        isHttp: false,
        banner: 'SSH-2.0-OpenSSH_9.6',
        product: 'OpenSSH',
        version: '9.6',
      };
      const summary = await record('life.example', t(4), [
        on('192.0.2.10', 443, 'www.life.example'),
        on('192.0.2.10', 22, 'www.life.example', newer),
      ]);
      assert.deepEqual(summary, { opened: 0, reopened: 1, closed: 0, open: 2 });
      const items = of((await page('?limit=1000')).items, 'life.example');
      assert.deepEqual(
        items.map((i) => [i.port, i.status, i.first_seen_at, i.disappeared_at]),
        [
          [443, 'OPEN', '2026-01-01T12:00:00Z', null],
          [22, 'OPEN', '2026-01-01T12:00:00Z', null],
          [80, 'CLOSED', '2026-01-01T12:00:00Z', '2026-01-02T12:00:00Z'],
        ],
      );
      const rows = await h.runtime.store.ports.listOfAsset(teamId, assets['life.example']!.id);
      assert.equal(rows.find((r) => r.port === 22)!.service.version, '9.6');
      // A later closing replaces the earlier disappeared_at.
      await record('life.example', t(5), [on('192.0.2.10', 443, 'www.life.example')]);
      assert.equal(of((await page('?limit=1000')).items, 'life.example')[1]!.disappeared_at, '2026-01-05T12:00:00Z');
    });

    it('bumps the list version only for a change the list shows', async () => {
      const version = () => h.runtime.store.ports.version(teamId);
      const start = await version();
      await record('life.example', t(6), [
        on('192.0.2.10', 443, 'www.life.example', { ...http, banner: 'HTTP/1.1 404' }),
      ]);
      assert.equal(await version(), start, 'a new banner and last_seen_at are not shown');
      await record('life.example', t(7), [on('192.0.2.10', 443, 'alt.life.example')]);
      assert.equal(await version(), start + 1, 'the name no longer resolves: the domain shown changes');
      assert.equal(of((await page('?limit=1000')).items, 'life.example')[0]!.domain_name, 'alt.life.example');
    });
  });

  describe('pagination', () => {
    before(async () => {
      await record(
        'pages.example',
        t(8),
        Array.from({ length: 25 }, (_, i) => on('198.51.100.1', 8000 + i, 'pages.example')),
      );
    });

    v3ListWalkTest(path, session, (round) =>
      record(
        'late.example',
        t(20) + round * 1000,
        Array.from({ length: round }, (_, i) => on('192.0.2.200', 1000 + i, 'late.example')),
      ),
    );

    it('puts an absolute next URL with cursor, limit and every filter, and none on the last page', async () => {
      const ports = Array.from({ length: 25 }, (_, i) => 8000 + i);
      const query = `?limit=10&first_seen_after=2026-01-08T11:00:00Z&first_seen_before=2026-01-08T13:00:00%2B0000&status=OPEN&status=OPEN&port=${ports.slice(0, 20).join(',')}&port=${ports.slice(20).join('&port=')}`;
      const { items, urls } = await all(query);
      assert.equal(items.length, 25);
      assert.equal(urls.length, 2);
      for (const url of urls) {
        const next = new URL(url);
        assert.match(url, /^http:\/\/localhost:80\/rest\/v3\/ports\?cursor=/);
        assert.deepEqual(
          [...next.searchParams.keys()],
          ['cursor', 'limit', 'first_seen_before', 'first_seen_after', 'status', 'port'],
        );
        assert.equal(next.searchParams.get('limit'), '10');
        assert.equal(next.searchParams.get('first_seen_after'), '2026-01-08T11:00:00Z');
        assert.equal(next.searchParams.get('first_seen_before'), '2026-01-08T13:00:00Z');
        assert.equal(next.searchParams.get('status'), 'OPEN');
        assert.equal(next.searchParams.get('port'), ports.join(','));
      }
      const last = await page(new URL(urls[1]!).search);
      assert.equal(last.items.length, 5);
      assert.deepEqual(last.pagination, {});
    });

    it('defaults to 100 items a page and answers the trailing-slash path alike', async () => {
      await record(
        'pages.example',
        t(9),
        Array.from({ length: 120 }, (_, i) => on('198.51.100.2', 9000 + i, 'pages.example')),
      );
      const first = await page('/');
      assert.equal(first.items.length, 100);
      assert.equal(new URL(first.pagination.next!).searchParams.get('limit'), '100');
    });
  });

  describe('filters', () => {
    // 10: :22 :80 (first seen day 10); :443 day 11; :8443 day 12. :80 closes day 11, :22 day 12.
    const ip = '203.0.113.50';
    before(async () => {
      await record('filters.example', t(10), [on(ip, 22, 'f.example'), on(ip, 80, 'f.example')]);
      await record('filters.example', t(11), [on(ip, 22, 'f.example'), on(ip, 443, 'f.example')]);
      await record('filters.example', t(12), [on(ip, 443, 'f.example'), on(ip, 8443, 'f.example')]);
    });

    const ports = async (query: string) =>
      of((await all(`?limit=2${query}`)).items, 'filters.example').map((i) => i.port);
    const cases: Array<[string, string, number[]]> = [
      ['none', '', [22, 80, 443, 8443]],
      ['first_seen_after (exclusive: the time first seen open)', `&first_seen_after=${iso(t(10))}`, [443, 8443]],
      ['first_seen_before', `&first_seen_before=${iso(t(11))}`, [22, 80]],
      ['first_seen window', `&first_seen_after=${iso(t(10))}&first_seen_before=${iso(t(12))}`, [443]],
      ['disappeared_after', `&disappeared_after=${iso(t(11))}`, [22]],
      ['disappeared_before (OPEN ports never match)', `&disappeared_before=${iso(t(12))}`, [80]],
      ['status OPEN', '&status=OPEN', [443, 8443]],
      ['status CLOSED', '&status=CLOSED', [22, 80]],
      ['status both, comma list', '&status=CLOSED,OPEN', [22, 80, 443, 8443]],
      ['status both, repeated', '&status=OPEN&status=CLOSED', [22, 80, 443, 8443]],
      ['status[] form', '&status[]=CLOSED', [22, 80]],
      ['status blank (no filter)', '&status=', [22, 80, 443, 8443]],
      ['port', '&port=443', [443]],
      ['port comma list', '&port=8443,22,9', [22, 8443]],
      ['port repeated', '&port=80&port=8443', [80, 8443]],
      ['port 0 and 65535 are valid', '&port=0,65535', []],
      ['port and status', '&port=22,80,443&status=OPEN', [443]],
      ['status OPEN with a disappeared bound (none can match)', `&status=OPEN&disappeared_after=${iso(t(1))}`, []],
      [
        'status CLOSED with first_seen and disappeared',
        `&status=CLOSED&first_seen_before=${iso(t(11))}&disappeared_before=${iso(t(12))}`,
        [80],
      ],
    ];
    for (const [name, query, expected] of cases) {
      it(`filters: ${name}`, async () => {
        assert.deepEqual(await ports(query), expected);
      });
    }
  });

  describe('filters few rows match, far along the order', () => {
    const count = 5300;
    before(async () => {
      // 5,300 open ports on one address; then every one but the last three stays open.
      const open = Array.from({ length: count }, (_, i) => on('10.9.0.1', i + 1, 'sparse.example'));
      await record('sparse.example', t(15), open);
      await record('sparse.example', t(16), open.slice(0, count - 3));
      // One port opens later on another address: it is the only match of its port number.
      await record('sparse.example', t(17), [...open.slice(0, count - 3), on('10.9.0.2', 60001, 'sparse.example')]);
    });

    it('finds CLOSED ports through the disappeared index and pages through them', async () => {
      const { items, urls } = await all(`?limit=2&status=CLOSED&first_seen_after=${iso(t(14))}`);
      assert.deepEqual(
        items.map((i) => i.port),
        [5298, 5299, 5300],
      );
      assert.equal(urls.length, 1);
    });

    it('finds a rare port number through the port index, several ranges merged in list order', async () => {
      const { items } = await all(`?limit=2&first_seen_after=${iso(t(14))}&port=60001,5300,5299,5298`);
      assert.deepEqual(endpoints(items), ['10.9.0.1:5298', '10.9.0.1:5299', '10.9.0.1:5300', '10.9.0.2:60001']);
      const open = await all(`?limit=2&first_seen_after=${iso(t(14))}&port=60001,5300,5299,5298&status=OPEN`);
      assert.deepEqual(endpoints(open.items), ['10.9.0.2:60001']);
    });
  });

  describe('the page cache', () => {
    it('answers a new run at once: the run bumps the version the cached page is keyed by', async () => {
      await record('cache.example', t(18), [on('192.0.2.77', 25, 'mail.cache.example')]);
      const query = `?port=25&first_seen_after=${iso(t(17))}`;
      assert.deepEqual(
        (await page(query)).items.map((i) => i.status),
        ['OPEN'],
      );
      assert.deepEqual(
        (await page(query)).items.map((i) => i.status),
        ['OPEN'],
      );
      await record('cache.example', t(19), []);
      assert.deepEqual(
        (await page(query)).items.map((i) => [i.status, i.disappeared_at]),
        [['CLOSED', '2026-01-19T12:00:00Z']],
      );
    });
  });

  describe('validation', () => {
    const statusDetail = (got: string) =>
      `status must be one or more of OPEN, CLOSED (comma-separated or repeated), got "${got}"`;
    const portDetail = (got: string) =>
      `port must be integers from 0 to 65535 (comma-separated or repeated), got "${got}"`;
    const bad: V3BadQuery[] = [
      ['status in lower case', '?status=open', 4150, statusDetail('open')],
      ['status unknown', '?status=OPEN,FILTERED', 4150, statusDetail('FILTERED')],
      ['status repeated with a bad value', '?status=OPEN&status=Closed', 4150, statusDetail('Closed')],
      ['port over 65535', '?port=65536', 4150, portDetail('65536')],
      ['port negative', '?port=-1', 4150, portDetail('-1')],
      ['port not a number', '?port=22,ssh', 4150, portDetail('ssh')],
      ['port fractional', '?port=80&port=1.5', 4150, portDetail('1.5')],
      ['limit 0', '?limit=0', 4150, 'limit must be an integer from 1 to 1000'],
      ['cursor garbage', '?cursor=abc', 4150, malformedCursor],
      [
        'first_seen_after malformed',
        '?first_seen_after=yesterday',
        1085,
        'first_seen_after must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "yesterday"',
      ],
    ];
    v3ListValidationTests(path, session, bad);

    it('refuses a cursor of another list', async () => {
      const next = new URL((await page('?limit=1')).pagination.next!);
      const res = await h.send('GET', `/rest/v3/technologies${next.search}`, { key: v3 });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().type, '/problems/4150');
    });
  });

  describe('security', () => {
    v3ListSecurityTests(path, session, { team: 'portteam', emptyQueries: ['?status=OPEN&port=22,443'] });
  });
});
