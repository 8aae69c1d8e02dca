import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { startBind, type BindServer } from '../support/bind-server.ts';
import { BrowserSuite, redirectStatus, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';

const zoneText = `$TTL 300
@       IN SOA ns1 hostmaster 1 7200 3600 1209600 300
@       IN NS  ns1
ns1     IN A   192.0.2.1
www     IN A   192.0.2.10
`;

/**
 * The Zones and Team pages in Chromium: a zone file chosen in a file input and indexed, a zone
 * transfer's refusal in the API's words, a lookup upload whose progress the page follows until
 * done without a reload; the Team tabs with an invitation's one-time link, a group's pattern
 * refused then added, an API key shown once, a connector refused; and a Viewer, who reads the
 * team without a button and whose forged invitation is refused (403).
 */
describe(`console zones and team in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  let bind: BindServer;
  let admin: ConsolePage;
  let viewer: ConsolePage;

  before(async () => {
    bind = await startBind([{ name: 'example.test', text: zoneText }]);
    await suite.start({ dnsResolvers: [bind.address], egressAllow: ['127.0.0.0/8'] });
    const { key } = await suite.h.team('acme', { plan: 'enterprise' });
    await suite.h.send('POST', '/rest/v2/assets/', { key, body: { name: 'example.test' } });
    await suite.h.admin('asset', 'verify', 'example.test');
    admin = await suite.member('acme', 'admin@acme.test', 'Admin', '/zones');
    viewer = await suite.member('acme', 'viewer@acme.test', 'Viewer', '/team');
  });
  after(async () => {
    await suite.h.runtime.verification.settle();
    await suite.close();
    await bind.stop();
  });

  it('indexes a zone file chosen in the file input, and shows a refused transfer in the API words', async () => {
    await admin.goto('/zones');
    await admin.check('zones');
    await admin.page.setInputFiles('#zone-file-input', {
      name: 'example.test.zone',
      mimeType: 'text/plain',
      buffer: Buffer.from(zoneText),
    });
    await admin.page.locator('#origin').fill('example.test');
    let res = await admin.submit(admin.page.locator('form[action="/zones/file"] button[type="submit"]'));
    assert.equal(await redirectStatus(res), 303);
    assert.match(await admin.page.locator('.notice').innerText(), /3 names indexed/);
    await admin.check('zone-indexed');
    await admin.page.locator('#nameServer').fill('not a server');
    await admin.page.locator('#zone').fill('example.test');
    res = await admin.submit(admin.page.locator('form[action="/zones/transfer"] button[type="submit"]'));
    assert.equal(res.status(), 400);
    assert.match(
      await admin.page.locator('#transfer-problem').innerText(),
      /Zone server malformed: "not a server" is not a host name or IP address with an optional :port \(error 2412\)/,
    );
    await admin.check('zone-transfer-refused');
  });

  it("follows a lookup upload's progress until it is done, without a reload", async () => {
    await admin.goto('/zones');
    const names = ['www.example.test', 'ns1.example.test', 'gone.example.test', 'outside.org'].join('\n');
    await admin.page.setInputFiles('#lookup-file', {
      name: 'names.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(names),
    });
    await admin.submit(admin.page.locator('form[action="/zones/lookups"] button[type="submit"]'));
    assert.match(admin.page.url(), /\/zones\/lookups\/[0-9a-f-]{36}$/);
    const status = admin.page.locator('[data-field="status"]');
    assert.equal(await status.innerText(), 'Queued');
    // A mark on the window survives only if the page is never reloaded.
    await admin.evaluate('window.stayed = true');
    await suite.h.jobs.work(jobHandlers(suite.h.runtime), { pollIntervalMs: 100 });
    await admin.page.waitForFunction(
      () => document.querySelector('[data-field="status"]')?.textContent === 'Done',
      null,
      {
        timeout: 15_000,
      },
    );
    assert.equal(await admin.evaluate<boolean>('window.stayed === true'), true, 'the page was not reloaded');
    assert.equal(await admin.page.locator('[data-field="percent"]').innerText(), '100%');
    assert.equal(await admin.page.locator('[data-field="succeeded"]').innerText(), '2');
    assert.equal(await admin.page.locator('[data-field="failed"]').innerText(), '2');
    await admin.check('zone-lookup-done');
  });

  it('invites a member with the link shown once, and refuses an invitation the API refuses', async () => {
    await admin.goto('/team');
    await admin.check('team-members');
    await admin.page.locator('#invite-email').fill('viewer@acme.test');
    let res = await admin.submit(admin.page.locator('form[action="/team/members"] button[type="submit"]'));
    assert.equal(res.status(), 400);
    assert.match(await admin.page.locator('#invite-problem').innerText(), /already a member of the team/);
    await admin.check('team-invite-refused');
    await admin.page.locator('#invite-email').fill('new@acme.test');
    await admin.page.locator('#invite-role').selectOption('Editor');
    res = await admin.submit(admin.page.locator('form[action="/team/members"] button[type="submit"]'));
    assert.equal(res.status(), 200);
    assert.match(await admin.page.locator('[data-secret="link"]').innerText(), /\/account\/link\//);
    await admin.check('team-invite-link');
  });

  it('creates a group, refuses a bad asset pattern with the API message, then adds one', async () => {
    await admin.goto('/team/groups');
    await admin.page.locator('#group-name').fill('Ops');
    await admin.submit(admin.page.locator('form[action="/team/groups"] button[type="submit"]'));
    await admin.page.locator('#pattern').fill('*.*.bad..');
    let res = await admin.submit(admin.page.locator('#pattern ~ button[type="submit"]'));
    assert.equal(res.status(), 400);
    assert.match(await admin.page.locator('#pattern-problem').innerText(), /\(error 9012\)/);
    await admin.check('team-pattern-refused');
    await admin.page.locator('#pattern').fill('*.example.test');
    res = await admin.submit(admin.page.locator('#pattern ~ button[type="submit"]'));
    assert.equal(await redirectStatus(res), 303);
    await admin.page.locator('#group-user').selectOption({ label: 'viewer@acme.test' });
    await admin.submit(admin.page.locator('#group-user ~ button[type="submit"]'));
    assert.equal(await admin.page.locator('ul.plain li').count(), 2);
    await admin.check('team-group');
  });

  it('creates an API key whose key and signing secret are shown once', async () => {
    await admin.goto('/team/keys');
    await admin.page.locator('#signing').check();
    await admin.page.locator('#perm-assets').check();
    await admin.submit(admin.page.locator('form[action="/team/keys"] button[type="submit"]'));
    assert.match(await admin.page.locator('[data-secret="key"]').innerText(), /^[0-9a-f]{32}$/);
    assert.equal(await admin.page.locator('[data-secret="signing"]').count(), 1);
    await admin.check('team-key-created');
    await admin.goto('/team/keys');
    assert.equal(await admin.page.locator('[data-secret]').count(), 0, 'not shown again');
  });

  it("refuses a connector without a name in the API's words, then creates one", async () => {
    await admin.goto('/team/connectors');
    await admin.page.locator('#connector-name').fill('   ');
    await admin.page.locator('#connector-provider').selectOption('CLOUD_B');
    let res = await admin.submit(admin.page.locator('form[action="/team/connectors"] button[type="submit"]'));
    assert.equal(res.status(), 400);
    assert.match(await admin.page.locator('#connector-problem').innerText(), /name must not be empty \(error 1051\)/);
    await admin.check('team-connector-refused');
    await admin.page.locator('#connector-name').fill('Edge account');
    await admin.page.locator('#connector-provider').selectOption('DNS_H');
    await admin.page.locator('#connector-options').fill('api_key=secret-value');
    res = await admin.submit(admin.page.locator('form[action="/team/connectors"] button[type="submit"]'));
    assert.equal(await redirectStatus(res), 303);
    await admin.check('team-connectors');
  });

  it('shows a Viewer the team without a button, and refuses its forged invitation (403)', async () => {
    await viewer.goto('/team');
    assert.equal(await viewer.page.locator('main form').count(), 0);
    await viewer.check('team-viewer');
    await viewer.goto('/zones');
    assert.equal(await viewer.page.locator('main form').count(), 0);
    assert.equal(await viewer.page.locator('#recent-lookups').count(), 1, 'the lookup above is listed');
    await viewer.check('zones-viewer');
    const csrf = await viewer.csrf();
    const res = await viewer.forgePost('/team/members', { _csrf: csrf, email: 'x@acme.test', role: 'Admin' });
    assert.equal(res.status(), 403);
    assert.equal(await viewer.page.locator('h1').innerText(), 'Not allowed');
  });
});
