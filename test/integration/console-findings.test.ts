import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signedInMember, type ConsoleClient } from '../support/console-client.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';

interface WireFinding {
  uuid: string;
  severity: string;
  status: string;
  title: string;
  links: { details_page: string };
}

// The findings pages: the v2 list's filters and paging, bulk marks and tags, one finding's page,
// and tenancy (another team's finding is the same not-found page as an unknown one).
describe(`console findings (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  let editor: ConsoleClient;
  let findings: WireFinding[];

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('acme')).key;
    otherKey = (await h.team('other')).key;
    await h.admin('seed', '--team', 'acme', '--vulnerabilities', '130');
    await h.admin('seed', '--team', 'other', '--vulnerabilities', '3');
    findings = [];
    let marker = '';
    for (;;) {
      const page = (await h.send('GET', `/rest/v2/vulnerabilities/?pageSize=100${marker}`, { key })).json() as {
        vulnerabilities: WireFinding[];
        next_marker?: string;
      };
      findings.push(...page.vulnerabilities);
      if (page.next_marker === undefined) break;
      marker = `&marker=${page.next_marker}`;
    }
    editor = await signedInMember(h, 'acme', 'ed@acme.example', 'Editor');
  });
  after(async () => h.close());

  const uuidsOn = (body: string) => [...body.matchAll(/<tr data-uuid="([0-9a-f-]{36})"/g)].map((m) => m[1]!);

  it('lists the team’s findings in the API’s order, 100 a page, with the total and a next page', async () => {
    const res = await editor.get('/vulnerabilities');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /130 findings match/);
    const first = uuidsOn(res.body);
    assert.deepEqual(
      first,
      findings.slice(0, 100).map((f) => f.uuid),
    );
    const next = /href="(\/vulnerabilities\?[^"]*marker=[^"]+)" rel="next"/.exec(res.body)![1]!.replace(/&amp;/g, '&');
    const second = await editor.get(next);
    assert.deepEqual(
      uuidsOn(second.body),
      findings.slice(100).map((f) => f.uuid),
    );
    assert.doesNotMatch(second.body, /rel="next"/);
  });

  it('filters as the v2 list does, and shows the v2 message for a bad filter', async () => {
    const high = findings.filter((f) => f.severity === 'high').map((f) => f.uuid);
    const res = await editor.get('/vulnerabilities?severity[]=high');
    assert.deepEqual(uuidsOn(res.body), high.slice(0, 100));
    const api = (await h.send('GET', '/rest/v2/vulnerabilities/?status[]=bogus', { key })).json() as {
      message: string;
    };
    const bad = await editor.get('/vulnerabilities?status[]=bogus');
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.body.includes(api.message.replace(/"/g, '&quot;')), api.message);
    const day = await editor.get(`/vulnerabilities?created_after=2000-01-01&created_before=2000-01-02`);
    assert.equal(day.statusCode, 200);
    assert.match(day.body, /0 findings match/);
  });

  it('marks and tags the selected findings in bulk through the API’s rules, as the member', async () => {
    const [a, b] = [findings[0]!.uuid, findings[1]!.uuid];
    const list = await editor.get('/vulnerabilities');
    assert.match(list.body, /<form id="bulk" method="post" action="\/vulnerabilities\/bulk"/);
    const res = await editor.post('/vulnerabilities/bulk', {
      uuid: [a, b],
      action: 'mark:fixed',
      return: '/vulnerabilities',
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/vulnerabilities?notice=marked&n=2');
    // The list page shows the change at once (its cached rows belong to the version before).
    const after = await editor.get('/vulnerabilities?notice=marked&n=2');
    assert.match(after.body, /2 findings updated\./);
    for (const uuid of [a, b]) {
      const row = new RegExp(`<tr data-uuid="${uuid}">([\\s\\S]*?)</tr>`).exec(after.body)![1]!;
      assert.match(row, /<span class="status status-patched">patched<\/span>/);
    }
    for (const uuid of [a, b]) {
      const v = (await h.send('GET', `/rest/v2/vulnerabilities/uuid/${uuid}/`, { key })).json() as {
        vulnerability: WireFinding;
      };
      assert.equal(v.vulnerability.status, 'patched');
      const events = (await h.send('GET', `/rest/v2/vulnerabilities/uuid/${uuid}/events/`, { key })).json() as {
        events: Array<{ actor: string; action: string }>;
      };
      assert.deepEqual(
        events.events.map((e) => [e.actor, e.action]),
        [['member ed@acme.example', 'set_fixed']],
      );
    }
    await editor.get('/vulnerabilities');
    const tagged = await editor.post('/vulnerabilities/bulk', { uuid: [a], action: 'tag', tag: '  release-7 ' });
    assert.equal(tagged.statusCode, 303);
    const v = (await h.send('GET', `/rest/v2/vulnerabilities/uuid/${a}/`, { key })).json() as {
      vulnerability: { tags: Array<{ name: string }> };
    };
    assert.deepEqual(
      v.vulnerability.tags.map((t) => t.name),
      ['release-7'],
    );
    await editor.get('/vulnerabilities');
    const badTag = await editor.post('/vulnerabilities/bulk', { uuid: [a], action: 'tag', tag: '<script>' });
    assert.equal(badTag.statusCode, 400);
    assert.match(badTag.body, /name must be 1 to 64 letters, digits, spaces or _ \. : \/ -/);
    assert.doesNotMatch(badTag.body, /<script>/);
    await editor.get('/vulnerabilities');
    const none = await editor.post('/vulnerabilities/bulk', { action: 'mark:fixed' });
    assert.equal(none.statusCode, 400);
  });

  it('shows one finding with its facts, description, evidence and history; its details_page link opens it', async () => {
    const f = findings[0]!;
    const path = new URL(f.links.details_page).pathname;
    assert.equal(path, `/vulnerabilities/${f.uuid}`);
    const res = await editor.get(path);
    assert.equal(res.statusCode, 200);
    assert.ok(res.body.includes(`<h1>${f.title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</h1>`));
    assert.match(res.body, /<dt>CVSS<\/dt>/);
    assert.match(
      res.body,
      new RegExp(`<ol class="history"><li>.*member ed@acme\\.example — set fixed \\(${f.status} → patched\\)`, 's'),
    );
    const unmark = await editor.post(`/vulnerabilities/${f.uuid}/marks`, { action: 'unmark:fixed' });
    assert.equal(unmark.statusCode, 303);
    const after = (await h.send('GET', `/rest/v2/vulnerabilities/uuid/${f.uuid}/`, { key })).json() as {
      vulnerability: WireFinding;
    };
    assert.equal(after.vulnerability.status, f.status, 'back to the detection state');
  });

  it('answers another team’s finding, an unknown one and a malformed id with the same not-found page', async () => {
    const theirs = (
      (await h.send('GET', '/rest/v2/vulnerabilities/', { key: otherKey })).json() as {
        vulnerabilities: WireFinding[];
      }
    ).vulnerabilities[0]!.uuid;
    const bodies = [];
    for (const id of [theirs, crypto.randomUUID(), 'not-a-uuid']) {
      const res = await editor.get(`/vulnerabilities/${id}`);
      assert.equal(res.statusCode, 404, id);
      bodies.push(res.body);
    }
    assert.equal(new Set(bodies).size, 1);
    await editor.get('/vulnerabilities');
    const forged = await editor.post('/vulnerabilities/bulk', { uuid: [theirs], action: 'mark:fixed' });
    assert.equal(forged.statusCode, 404);
    const v = (await h.send('GET', `/rest/v2/vulnerabilities/uuid/${theirs}/`, { key: otherKey })).json() as {
      vulnerability: WireFinding;
    };
    assert.notEqual(v.vulnerability.status, 'patched');
  });
});
