import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient, signedInMember } from '../support/console-client.ts';
import { finding, scan, scanTarget } from '../support/findings.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { dayBefore, seedFindings, seedSurroundings } from '../support/overview-fixture.ts';

/** A count link of the page: where it leads and the number it shows. */
interface CountLink {
  href: string;
  n: number;
  said: string;
}

const unescape = (s: string) => s.replace(/&amp;/g, '&');

function countLinks(body: string): CountLink[] {
  return [
    ...body.matchAll(
      /<a class="count-link" href="([^"]+)">([\d,]+)<span class="visually-hidden"> ([^<]+)<\/span><\/a>/g,
    ),
  ].map((m) => ({ href: unescape(m[1]!), n: Number(m[2]!.replace(/,/g, '')), said: m[3]! }));
}

/** The number a count link shows, by the words it says to a screen reader. */
function countOf(links: CountLink[], said: string): number {
  const link = links.find((l) => l.said === said);
  assert.ok(link, `a count link "${said}"`);
  return link.n;
}

/** The number of a total tile, by its label. */
function tileOf(body: string, label: string): { n: number; href: string } {
  const m = new RegExp(
    `<a class="tile" href="([^"]+)"><span class="big">([\\d,]+)</span> <span class="what">${label}</span>`,
  ).exec(body);
  assert.ok(m, `a tile "${label}"`);
  return { href: unescape(m[1]!), n: Number(m[2]!.replace(/,/g, '')) };
}

// The overview: the team's findings by severity, status and day, its monitored assets, open
// breaches, last scans and runs; each number links to the list it counts; another team's data
// is never counted or shown.
describe(`console overview (${testStore})`, () => {
  let h: Harness;
  let viewer: ConsoleClient;
  let body: string;
  const today = dayBefore(0);
  const threeDaysAgo = dayBefore(3);

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    const key = (await h.team('acme')).key;
    await h.team('other');
    const acme = await seedSurroundings(h, 'acme', {
      monitored: ['example.com', 'second.example'],
      openBreaches: 2,
      resolvedBreaches: 1,
      profileName: 'Acme shop',
    });
    await seedFindings(h, acme);
    // Another team's findings, monitoring, breaches, run and scan: none of it may be counted.
    const other = await seedSurroundings(h, 'other', {
      monitored: ['other.example', 'more.other.example', 'third.other.example'],
      openBreaches: 4,
      resolvedBreaches: 0,
      profileName: 'Other profile',
    });
    await scan(
      h,
      other,
      ['p', 'q', 'r', 's'].map((c) => finding(c, { severity: 'critical' })),
    );
    await scan(h, await scanTarget(h, 'other', 'other.example'), [finding('t', { severity: 'high' })], {
      profile: 'cccccccccccccccccccccccccccccccc',
    });
    // An Editor marks b accepted risk and c fixed, through the findings page's bulk form.
    const list = (await h.send('GET', '/rest/v2/vulnerabilities/?pageSize=100', { key })).json() as {
      vulnerabilities: Array<{ uuid: string; title: string }>;
    };
    const uuid = (c: string) => list.vulnerabilities.find((v) => v.title === `Title of ${c}`)!.uuid;
    const editor = await signedInMember(h, 'acme', 'ed@acme.example', 'Editor');
    for (const [c, action] of [
      ['b', 'mark:accepted_risk'],
      ['c', 'mark:fixed'],
    ] as const) {
      await editor.get('/vulnerabilities');
      const res = await editor.post('/vulnerabilities/bulk', { uuid: [uuid(c)], action, return: '/vulnerabilities' });
      assert.equal(res.statusCode, 303);
    }
    viewer = await signedInMember(h, 'acme', 'viewer@acme.example', 'Viewer');
    const res = await viewer.get('/overview');
    assert.equal(res.statusCode, 200);
    body = res.body;
  });
  after(async () => h.close());

  it('sends a member to the overview from / (and a visitor to sign-in first)', async () => {
    const res = await viewer.get('/');
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/overview');
    const visitor = await new ConsoleClient(h).get('/overview');
    assert.equal(visitor.statusCode, 302);
    assert.equal(visitor.headers.location, '/signin?next=%2Foverview');
    assert.match(body, /<a href="\/overview" aria-current="page">Overview<\/a>/);
  });

  it("counts the team's open findings by severity and every status", () => {
    const links = countLinks(body);
    assert.deepEqual(
      ['critical', 'high', 'medium', 'low', 'information'].map((s) => countOf(links, `open ${s} findings`)),
      [1, 0, 1, 0, 1],
    );
    assert.deepEqual(
      ['new', 'active', 'regression', 'patched', 'accepted risk', 'false positive'].map((s) =>
        countOf(links, `findings ${s}`),
      ),
      [1, 2, 0, 2, 1, 0],
    );
    assert.equal(countOf(links, 'findings in all'), 6);
    assert.deepEqual(tileOf(body, 'open findings'), {
      n: 3,
      href: '/vulnerabilities?status%5B%5D=new&status%5B%5D=active&status%5B%5D=regression',
    });
  });

  it('counts new and fixed findings per UTC day, in the table and in the chart data', () => {
    const links = countLinks(body);
    assert.equal(countOf(links, `new findings on ${threeDaysAgo}`), 5);
    assert.equal(countOf(links, `new findings on ${today}`), 1);
    assert.equal(countOf(links, `new findings on ${dayBefore(1)}`), 0);
    assert.equal(countOf(links, `findings fixed on ${today}`), 2, 'e patched by the rescan, c marked fixed');
    assert.equal(countOf(links, `findings fixed on ${threeDaysAgo}`), 0);
    const json = /<script type="application\/json" id="activity-data">([^<]+)<\/script>/.exec(body);
    assert.ok(json, 'the chart data block');
    const data = JSON.parse(json[1]!) as { days: string[]; created: number[]; fixed: number[] };
    assert.equal(data.days.length, 30);
    assert.equal(data.days.at(-1), today);
    assert.equal(data.created[data.days.indexOf(threeDaysAgo)], 5);
    assert.equal(
      data.created.reduce((a, b) => a + b, 0),
      6,
    );
    assert.deepEqual([data.fixed.at(-1), data.fixed.reduce((a, b) => a + b, 0)], [2, 2]);
    assert.match(body, /<div class="chart" data-chart="activity" role="img" aria-label="[^"]+">/);
    assert.match(body, /<script defer src="\/console\/static\/uplot\.iife\.[0-9a-f]{12}\.js"><\/script>/);
    assert.match(body, /<script type="module" src="\/console\/static\/overview\.[0-9a-f]{12}\.js"><\/script>/);
  });

  it('links every findings number to the list that shows exactly that many', async () => {
    const links = countLinks(body).filter((l) => l.href.startsWith('/vulnerabilities'));
    assert.ok(links.length >= 5 + 6 + 1 + 60, `${links.length} findings links`);
    // Every distinct non-zero link, and a sample of zeros (the list answers them the same way).
    const checked = new Map<string, number>();
    for (const l of links) if (l.n > 0 || checked.size < 20) checked.set(l.href, l.n);
    for (const [href, n] of checked) {
      const res = await viewer.get(href);
      assert.equal(res.statusCode, 200, href);
      const total = /<p class="count" role="status">([\d,]+) finding/.exec(res.body);
      assert.ok(total, `${href} shows a total`);
      assert.equal(Number(total[1]!.replace(/,/g, '')), n, href);
    }
    const open = tileOf(body, 'open findings');
    assert.match((await viewer.get(open.href)).body, /<p class="count" role="status">3 findings match/);
  });

  it("shows the team's monitored assets, open breaches, last scan and last run, none of another team's", async () => {
    assert.deepEqual(tileOf(body, 'assets under monitoring'), { n: 2, href: '#monitored' });
    assert.deepEqual(tileOf(body, 'open policy breaches'), { n: 2, href: '/surface/breaches?status=open' });
    const monitored = /<section class="panel" id="monitored"[\s\S]*?<\/section>/.exec(body)![0];
    const team = (await h.runtime.store.teams.findByName('acme'))!;
    for (const name of ['example.com', 'second.example']) {
      const asset = (await h.runtime.store.assets.findByName(team.id, name))!;
      assert.match(monitored, new RegExp(`<li><a href="/assets/${asset.token}">${name.replace('.', '\\.')}</a></li>`));
    }
    assert.match(body, /<a href="\/scans\/[0-9a-f]{32}">Acme shop<\/a>/);
    assert.match(body, /<span class="status status-scan-starting">starting<\/span>/);
    assert.match(body, /<a href="\/surface\/runs\/\d+">example\.com<\/a>/);
    assert.match(body, /<div class="muted">7 names \(7 new\), 3 new findings, 2 open ports, 2 new breaches<\/div>/);
    assert.match(body, /<a href="\/scans">All scan profiles \(1\)<\/a>/);
    assert.match(body, /<a href="\/surface\/runs">All monitoring runs<\/a>/);
    for (const theirs of ['other.example', 'Other profile']) assert.doesNotMatch(body, new RegExp(theirs));
  });

  it('links the breaches, the run and the scan profile to their pages', async () => {
    const breaches = await viewer.get(tileOf(body, 'open policy breaches').href);
    assert.equal(breaches.statusCode, 200);
    assert.match(breaches.body, /2 breaches on this page\./);
    for (const path of [/href="(\/surface\/runs\/\d+)"/, /href="(\/scans\/[0-9a-f]{32})"/]) {
      const res = await viewer.get(path.exec(body)![1]!);
      assert.equal(res.statusCode, 200, String(path));
    }
  });

  it("shows an empty team's overview with zeros and no rows", async () => {
    await h.team('empty');
    const member = await signedInMember(h, 'empty', 'admin@empty.example', 'Admin');
    const res = await member.get('/overview');
    assert.equal(res.statusCode, 200);
    assert.equal(tileOf(res.body, 'open findings').n, 0);
    assert.equal(tileOf(res.body, 'assets under monitoring').n, 0);
    assert.equal(tileOf(res.body, 'open policy breaches').n, 0);
    assert.ok(countLinks(res.body).every((l) => l.n === 0));
    assert.match(res.body, /No scan yet\./);
    assert.match(res.body, /No monitoring run yet\./);
    assert.match(res.body, /No asset is monitored\./);
  });
});
