import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { escapeHtml } from '../../src/http/console/html.ts';
import { ConsoleClient, signedInMember } from '../support/console-client.ts';
import { openSurfaceFixture, type SurfaceFixture } from '../support/surface-console-fixture.ts';

/** The hrefs of the page's links whose path starts with `prefix` (entities decoded). */
const linksTo = (body: string, prefix: string): string[] =>
  [...body.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&')).filter((h) => h.startsWith(prefix));

/** The text of the page's alert (a refused filter). */
const problemOf = (body: string): string | undefined =>
  /<p class="problem" role="alert">([^<]*)<\/p>/.exec(body)?.[1]?.replaceAll('&quot;', '"').replaceAll('&#39;', "'");

/** The page's "Next page" link. */
const nextOf = (body: string): string | undefined =>
  /<a class="button primary" href="([^"]+)" rel="next">/.exec(body)?.[1]?.replaceAll('&amp;', '&');

/** Rows of the table with the given id. */
const rowsOf = (body: string, id: string): string[] => {
  const table = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(body)?.[1] ?? '';
  return [...table.matchAll(/<tr[ >][\s\S]*?<\/tr>/g)].map((m) => m[0]).slice(1);
};

describe('console: surface', () => {
  let f: SurfaceFixture;
  let viewer: ConsoleClient;

  before(async () => {
    f = await openSurfaceFixture();
    viewer = await signedInMember(f.h, 'acme', 'viewer@acme.test', 'Viewer');
  });
  after(async () => f.h.close());

  /** The v3 API's problem detail for a query of a list (what the console must show). */
  async function apiDetail(path: string): Promise<string> {
    const res = await f.h.send('GET', `/rest/v3${path}`, { key: f.v3 });
    assert.equal(res.statusCode, 400, res.body);
    return res.json().detail as string;
  }

  it('asks for sign-in first', async () => {
    const res = await new ConsoleClient(f.h).get('/surface/ips');
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, `/signin?next=${encodeURIComponent('/surface/ips')}`);
  });

  it('shows the counts of each inventory, each a link to its list', async () => {
    const res = await viewer.get('/surface');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<a href="\/surface" aria-current="page">Surface<\/a>/);
    // ssh-exposed resolved in the second run; the others are open.
    assert.match(
      res.body,
      /href="\/surface\/breaches\?status=open"><span class="big">3<\/span> <span class="what">open policy breaches<\/span><span class="muted"> \(4 in all\)/,
    );
    assert.match(res.body, />3<\/span> <span class="what">active IP addresses</);
    assert.match(res.body, />3<\/span> <span class="what">open ports</);
    assert.match(res.body, />3<\/span> <span class="what">monitoring runs</);
  });

  it('lists the IP addresses with their first-seen times, each linking to its page', async () => {
    const res = await viewer.get('/surface/ips');
    assert.equal(res.statusCode, 200);
    const rows = rowsOf(res.body, 'ips');
    assert.equal(rows.length, 3);
    assert.match(rows[0]!, /192\.0\.2\.10/);
    assert.match(rows[0]!, /<time datetime="2026-02-01T12:00:00Z">2026-02-01 12:00<\/time>/);
    assert.deepEqual(
      linksTo(res.body, '/surface/ips/').sort(),
      Object.values(f.ips)
        .map((id) => `/surface/ips/${id}`)
        .sort(),
    );
    assert.doesNotMatch(res.body, /203\.0\.113\.5/, 'another team’s address is not listed');
  });

  it("shows an IP's ports and the technologies seen on them", async () => {
    const res = await viewer.get(`/surface/ips/${f.ips['192.0.2.10']}`);
    assert.equal(res.statusCode, 200);
    const ports = rowsOf(res.body, 'ip-ports');
    assert.deepEqual(
      ports.map((r) => /port=(\d+)/.exec(r)![1]),
      ['22', '443'],
    );
    assert.match(ports[0]!, /closed/);
    assert.match(ports[1]!, /open/);
    const technologies = rowsOf(res.body, 'ip-technologies');
    assert.equal(technologies.length, 1);
    assert.match(technologies[0]!, /Nginx[\s\S]*1\.25\.3/);
    assert.ok(linksTo(res.body, '/surface/ports?port=443').length > 0);
    assert.ok(linksTo(res.body, `/assets/${f.assets['shop.example']!.token}`).length > 0);
  });

  it("answers the same not-found page for another team's IP, an unknown one and a malformed id", async () => {
    const pages = await Promise.all(
      [`/surface/ips/${f.rival.ip}`, '/surface/ips/999999', '/surface/ips/abc', '/surface/ips/0'].map((p) =>
        viewer.get(p),
      ),
    );
    for (const res of pages) {
      assert.equal(res.statusCode, 404);
      assert.match(res.body, /<h1>Not found<\/h1>/);
      assert.doesNotMatch(res.body, /203\.0\.113\.5/);
    }
    for (const path of [
      `/surface/breaches/${f.rival.breach}`,
      `/surface/runs/${f.rival.run}`,
      '/surface/breaches/x1',
    ]) {
      const res = await viewer.get(path);
      assert.equal(res.statusCode, 404, path);
      assert.match(res.body, /<h1>Not found<\/h1>/);
    }
  });

  it('filters ports by status and port number with the v3 parameter names', async () => {
    const closed = rowsOf((await viewer.get('/surface/ports?status=CLOSED')).body, 'ports');
    assert.equal(closed.length, 1);
    assert.match(closed[0]!, />22</);
    assert.match(closed[0]!, new RegExp(`<a href="/surface/ips/${f.ips['192.0.2.10']}">192\\.0\\.2\\.10</a>`));
    const some = rowsOf((await viewer.get('/surface/ports?port=443,80&status=OPEN')).body, 'ports');
    assert.deepEqual(
      some.map((r) => /port=(\d+)/.exec(r)![1]),
      ['443', '80'],
    );
  });

  it('refuses a bad filter with the API’s own message', async () => {
    for (const [page, api] of [
      ['/surface/ports?port=99999', '/ports?port=99999'],
      ['/surface/ports?status=HALF', '/ports?status=HALF'],
      ['/surface/ips?first_seen_after=yesterday', '/ips?first_seen_after=yesterday'],
      ['/surface/technologies?cursor=forged', '/technologies?cursor=forged'],
      ['/surface/breaches?status=bogus', '/breaches?status=bogus'],
    ] as const) {
      const res = await viewer.get(page);
      assert.equal(res.statusCode, 400, page);
      assert.equal(problemOf(res.body), await apiDetail(api), page);
      assert.match(res.body, /<form method="get" action="\/surface\//, 'the filters stay on the page');
    }
  });

  it('takes a day from the date fields as the API’s time bounds', async () => {
    const res = await viewer.get('/surface/ips?first_seen_after=2026-02-02');
    assert.equal(res.statusCode, 200);
    const rows = rowsOf(res.body, 'ips');
    assert.equal(rows.length, 1);
    assert.match(rows[0]!, /198\.51\.100\.7/);
    assert.match(res.body, /value="2026-02-02"/);
  });

  it('lists open breaches at /surface/breaches?status=open (the Overview’s link), as v3 status=NEW', async () => {
    const open = await viewer.get('/surface/breaches?status=open');
    assert.equal(open.statusCode, 200);
    const rows = rowsOf(open.body, 'breaches');
    assert.equal(rows.length, 3);
    for (const row of rows) assert.match(row, /open \(NEW\)/);
    assert.match(open.body, /<input type="checkbox" name="status" value="NEW" checked>/);
    const api = await f.h.send('GET', '/rest/v3/breaches?status=NEW', { key: f.v3 });
    assert.equal(api.statusCode, 200);
    assert.deepEqual(
      (api.json().items as Array<{ id: string }>).map((b) => `/surface/breaches/${b.id}`).sort(),
      linksTo(open.body, '/surface/breaches/').sort(),
    );
    const resolved = rowsOf((await viewer.get('/surface/breaches?status=RESOLVED')).body, 'breaches');
    assert.equal(resolved.length, 1);
    assert.match(resolved[0]!, /SSH exposed|ssh/i);
    const all = rowsOf((await viewer.get('/surface/breaches')).body, 'breaches');
    assert.equal(all.length, 4);
  });

  it("shows a breach's evidence and its host's ports, linking to their addresses", async () => {
    const id = f.breaches['database-exposed db.shop.example']!;
    const res = await viewer.get(`/surface/breaches/${id}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<pre class="evidence" data-evidence>192\.0\.2\.20 port 3306 \(mysql\)<\/pre>/);
    assert.match(res.body, /Database exposed on db\.shop\.example/);
    assert.deepEqual(linksTo(res.body, '/surface/ips/'), [`/surface/ips/${f.ips['192.0.2.20']}`]);
  });

  it('pages with the API’s cursors, next and previous', async () => {
    const first = await viewer.get('/surface/ips?limit=1');
    assert.equal(rowsOf(first.body, 'ips').length, 1);
    const next = nextOf(first.body)!;
    assert.match(next, /limit=1/);
    const second = await viewer.get(next);
    assert.equal(second.statusCode, 200);
    assert.match(rowsOf(second.body, 'ips')[0]!, /192\.0\.2\.20/);
    const third = await viewer.get(nextOf(second.body)!);
    assert.equal(third.statusCode, 200);
    const previous = /<a class="button" href="([^"]+)" rel="prev">/.exec(third.body)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(previous !== undefined, 'the third page links to the second');
    assert.match(rowsOf((await viewer.get(previous)).body, 'ips')[0]!, /192\.0\.2\.20/);
    assert.doesNotMatch(/<nav class="pager"[\s\S]*?<\/nav>/.exec(third.body)![0], /rel="next"/);
  });

  it('lists monitoring runs newest first, filtered by asset, each with what it found', async () => {
    const res = await viewer.get('/surface/runs');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      linksTo(res.body, '/surface/runs/'),
      [...f.runs].reverse().map((id) => `/surface/runs/${id}`),
    );
    const shop = await viewer.get(`/surface/runs?asset_token=${f.assets['shop.example']!.token}`);
    assert.deepEqual(
      linksTo(shop.body, '/surface/runs/'),
      [f.runs[1], f.runs[0]].map((id) => `/surface/runs/${id}`),
    );
    assert.match(shop.body, /2 open ports \(0 new\)/);
    const bad = await viewer.get('/surface/runs?asset_token=0123456789abcdef0123456789abcdef');
    assert.equal(bad.statusCode, 400);
    assert.equal(problemOf(bad.body), 'Asset does not exist');
  });

  it('shows one run: its times, its summary and links to the records it saw appear', async () => {
    const res = await viewer.get(`/surface/runs/${f.runs[1]}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /2 open: 0 newly open, 0 open again, 1 closed/);
    const gonePorts = linksTo(res.body, '/surface/ports?disappeared_after=')[0]!;
    const closed = rowsOf((await viewer.get(gonePorts)).body, 'ports');
    assert.equal(closed.length, 1, 'the port the run closed');
    assert.match(closed[0]!, />22</);
    assert.match(escapeHtml(res.body), /completed/);
  });
});
