import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { testPassword } from '../support/console-client.ts';
import { BrowserSuite, redirectStatus, type ConsolePage } from '../support/browser.ts';
import { finding, scan, scanTarget } from '../support/findings.ts';
import { testStore } from '../support/harness.ts';

/**
 * Tenancy and deep links: another team's finding answers the very page an unknown UUID does
 * (nothing tells that it exists), a mark forged on it changes nothing, and a finding's link
 * (`links.details_page`) opened signed out leads through the sign-in to the finding.
 */
describe(`console tenancy and deep links in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  let alphaKey: string;
  let betaKey: string;
  let mine: { uuid: string; title: string };
  let theirs: { uuid: string; title: string; status: string };
  let member: ConsolePage;

  const first = async (key: string) =>
    (await suite.h.send('GET', '/rest/v2/vulnerabilities/?pageSize=10', { key })).json().vulnerabilities[0] as {
      uuid: string;
      title: string;
      status: string;
      links?: { details_page?: string };
    };

  before(async () => {
    await suite.start();
    alphaKey = (await suite.h.team('alpha')).key;
    betaKey = (await suite.h.team('beta')).key;
    await scan(suite.h, await scanTarget(suite.h, 'alpha', 'alpha.example'), [
      finding('mine', { host: 'app.alpha.example', location: 'https://app.alpha.example/mine' }),
    ]);
    await scan(suite.h, await scanTarget(suite.h, 'beta', 'beta.example'), [
      finding('theirs', { host: 'app.beta.example', location: 'https://app.beta.example/theirs' }),
    ]);
    mine = await first(alphaKey);
    theirs = await first(betaKey);
    member = await suite.member('alpha', 'editor@alpha.test', 'Editor', '/vulnerabilities');
  });
  after(() => suite.close());

  it("lists only the team's own findings", async () => {
    await member.goto('/vulnerabilities');
    assert.equal(await member.page.locator('tr[data-uuid]').count(), 1);
    assert.equal(await member.page.locator(`tr[data-uuid="${mine.uuid}"]`).count(), 1);
    assert.equal(await member.page.locator(`tr[data-uuid="${theirs.uuid}"]`).count(), 0);
  });

  it("answers another team's finding with the same not-found page as an unknown or malformed UUID", async () => {
    const foreign = await member.goto(`/vulnerabilities/${theirs.uuid}`);
    assert.equal(foreign.status(), 404);
    const foreignMain = await member.page.locator('main').innerHTML();
    assert.doesNotMatch(foreignMain, /Title of theirs|beta/);
    await member.check('foreign-finding');
    const unknown = await member.goto(`/vulnerabilities/${randomUUID()}`);
    assert.equal(unknown.status(), 404);
    assert.equal(await member.page.locator('main').innerHTML(), foreignMain, 'the same page, byte for byte');
    assert.equal(await member.page.title(), 'Not found · perimeter');
    await member.check('unknown-finding');
    const malformed = await member.goto('/vulnerabilities/not-a-uuid');
    assert.equal(malformed.status(), 404);
    assert.equal(await member.page.locator('main').innerHTML(), foreignMain, 'a malformed id too');
  });

  it("answers a mark forged on another team's finding with not-found and changes nothing", async () => {
    await member.goto(`/vulnerabilities/${mine.uuid}`);
    const res = await member.forgePost(`/vulnerabilities/${theirs.uuid}/marks`, {
      _csrf: await member.csrf(),
      action: 'mark:false_positive',
    });
    assert.equal(res.status(), 404);
    assert.equal(await member.page.locator('h1').innerText(), 'Not found');
    assert.equal((await first(betaKey)).status, theirs.status);
  });

  it("opens a finding's link signed out: the sign-in page, then the finding", async () => {
    const link = (await first(alphaKey)).links?.details_page;
    const path = `/vulnerabilities/${mine.uuid}`;
    if (link !== undefined) assert.equal(new URL(link).pathname, path, 'links.details_page names the console page');
    const visitor = await suite.newPage();
    const res = await visitor.goto(path);
    assert.equal(await redirectStatus(res), 302);
    assert.equal(new URL(res.url()).pathname, '/signin');
    assert.equal(new URL(res.url()).searchParams.get('next'), path);
    await visitor.check('deep-link-signin');
    // The member's password, typed on the page the link led to.
    const signedIn = await visitor.fillSignIn('editor@alpha.test', testPassword);
    assert.equal(new URL(signedIn.url()).pathname, path);
    assert.equal(signedIn.status(), 200);
    assert.equal(await visitor.page.locator('h1').innerText(), mine.title);
    await visitor.check('deep-link-finding');
    await visitor.context.close();
  });

  it('shows the signed-out visitor nothing of the finding before sign-in', async () => {
    const visitor = await suite.newPage();
    await visitor.goto(`/vulnerabilities/${mine.uuid}`);
    assert.doesNotMatch(await visitor.page.content(), /Title of mine/);
    await visitor.context.close();
  });
});
