import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { syncJira } from '../../src/core/integrations/jira-sync.service.ts';
import { deliverPending } from '../../src/core/webhooks/webhook-delivery.service.ts';
import { createJiraClientFactory } from '../../src/engine/jira/jira-client.ts';
import { BrowserSuite, redirectStatus, type ConsolePage } from '../support/browser.ts';
import { finding, scan, scanTarget } from '../support/findings.ts';
import { testStore } from '../support/harness.ts';
import { startFakeJira, type FakeJira } from '../support/jira-server.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

const jiraToken = 'jira-BROWSER-token-0a1b2c3d';

/**
 * The Team tabs Webhooks, Jira and Events, and the Jira link of a finding, in Chromium: a
 * webhook refused in the API's words, created (its secret shown once), tested, its deliveries
 * (an answer unfolded) and a redelivery, a rotation and a disable; the event log filtered; a
 * Jira project connected and the issue the sync made linked from the finding's page; a Viewer
 * reads them without a button. Every page at 1280 and 390 px: axe, CSP, no sideways scroll.
 */
describe(`console webhooks, events and Jira in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  const receiver = new WebhookReceiver();
  let jira: FakeJira;
  let admin: ConsolePage;
  let viewer: ConsolePage;
  let v2key = '';
  let teamId = 0;
  let webhookPath = '';

  /** Delivers what is pending for the team's webhooks now, as their jobs would. */
  const deliver = async () => {
    for (const w of await suite.h.runtime.store.webhooks.list([teamId], undefined, 10))
      await deliverPending(suite.h.runtime.webhooks, w.id, new AbortController().signal);
  };
  const accept = (cp: ConsolePage) => cp.page.once('dialog', (dialog) => void dialog.accept());

  before(async () => {
    await receiver.start();
    jira = await startFakeJira({ email: 'secops@acme.test', token: jiraToken, projectKey: 'SEC' });
    await suite.start();
    v2key = (await suite.h.team('acme')).key;
    teamId = (await suite.h.runtime.store.teams.findByName('acme'))!.id;
    for (const name of ['example.com', 'shop.example.org'])
      await suite.h.send('POST', '/rest/v2/assets/', { key: v2key, body: { name } });
    admin = await suite.member('acme', 'admin@acme.test', 'Admin', '/team/webhooks');
    viewer = await suite.member('acme', 'viewer@acme.test', 'Viewer', '/team/webhooks');
  });
  after(async () => {
    await suite.close();
    await receiver.stop();
    await jira.stop();
  });

  it("refuses a webhook in the API's words, then creates one whose secret is shown once", async () => {
    await admin.goto('/team/webhooks');
    await admin.check('webhooks-empty');
    await admin.page.locator('#webhook-name').fill('SOC pager');
    await admin.page.locator('#webhook-url').fill('http://10.0.0.1/hook');
    await admin.page.locator('#webhook-kind-vulnerability\\.new').check();
    let res = await admin.submit(admin.page.locator('form[action="/team/webhooks"] button[type="submit"]'));
    assert.equal(res.status(), 400);
    assert.match(
      await admin.page.locator('#webhook-problem').innerText(),
      /url names a host whose address is not allowed .*PERIMETER_EGRESS_ALLOW.*\(error 1051\)/,
    );
    await admin.check('webhook-refused');
    await admin.page.locator('#webhook-url').fill(receiver.url);
    await admin.page.locator('#webhook-all-kinds').check();
    await admin.page.locator('#webhook-severity').selectOption('medium');
    await admin.page.locator('#webhook-assets').selectOption({ label: 'example.com' });
    res = await admin.submit(admin.page.locator('form[action="/team/webhooks"] button[type="submit"]'));
    assert.equal(res.status(), 200);
    const secret = await admin.page.locator('[data-secret="webhook"]').innerText();
    assert.match(secret, /^whsec_/);
    receiver.setSecret(secret);
    webhookPath = new URL(
      await admin.page.locator('form[action$="/test"]').evaluate((f) => (f as HTMLFormElement).action),
    ).pathname.replace(/\/test$/, '');
    await admin.check('webhook-created');
    await admin.goto(webhookPath);
    assert.equal(await admin.page.locator('[data-secret]').count(), 0, 'not shown again');
  });

  it('sends a test event and shows the outcome; lists deliveries and redelivers one', async () => {
    await admin.goto(webhookPath);
    await admin.submit(admin.page.getByRole('button', { name: 'Send test event' }));
    assert.match(await admin.page.locator('#webhook-tested').innerText(), /Test event delivered/);
    assert.equal(receiver.deliveries.at(-1)?.isSignatureValid, true);
    await admin.check('webhook-tested');
    // A finding of example.com, and its event delivered as the job would.
    const target = await scanTarget(suite.h, 'acme', 'example.com');
    await scan(suite.h, target, [finding('sqli', { severity: 'high', host: 'example.com', title: 'SQL injection' })]);
    await deliver();
    assert.equal(receiver.deliveries.at(-1)?.type, 'vulnerability.new');
    await admin.goto(`${webhookPath}/deliveries`);
    await admin.page.locator('tbody tr').first().locator('summary').click();
    assert.equal(await admin.page.locator('tbody tr').first().locator('pre.excerpt').innerText(), 'ok');
    await admin.check('webhook-deliveries');
    const res = await admin.submit(
      admin.page
        .locator('tbody tr')
        .first()
        .getByRole('button', { name: /Redeliver/ }),
    );
    assert.equal(await redirectStatus(res), 303);
    assert.match(await admin.page.locator('.notice').innerText(), /sent again/);
    assert.equal(await admin.page.locator('tbody tr').count(), 3);
    await admin.check('webhook-redelivered');
  });

  it('rotates the secret after a confirmation, disables the webhook, and lists it with its state', async () => {
    await admin.goto(webhookPath);
    accept(admin);
    await admin.submit(admin.page.getByRole('button', { name: 'Rotate secret' }));
    assert.match(await admin.page.locator('[data-secret="webhook"]').innerText(), /^whsec_/);
    await admin.check('webhook-rotated');
    await admin.submit(admin.page.getByRole('button', { name: 'Disable' }));
    assert.match(await admin.page.locator('.notice').innerText(), /Webhook disabled/);
    await admin.check('webhook-disabled');
    await admin.goto('/team/webhooks');
    assert.equal(await admin.page.locator('[data-state="disabled"]').count(), 1);
    await admin.check('webhooks-list');
  });

  it('shows the event log with its filters', async () => {
    await admin.goto('/team/events');
    assert.ok((await admin.page.locator('li.event').count()) >= 3);
    await admin.check('events');
    await admin.page.locator('.filter-box summary').click();
    await admin.page.locator('input[name="kind"][value="vulnerability.new"]').check();
    await admin.submit(admin.page.locator('.filter-box button[type="submit"]'));
    assert.equal(await admin.page.locator('li.event').count(), 1);
    assert.equal(await admin.page.locator('li.event a[href^="/vulnerabilities/"]').count(), 1);
    await admin.check('events-filtered');
  });

  it('connects Jira and links the issue from the finding page', async () => {
    await admin.goto('/team/jira');
    await admin.check('jira-none');
    await admin.page.locator('#jira-base_url').fill(jira.baseUrl);
    await admin.page.locator('#jira-account_email').fill(jira.email);
    await admin.page.locator('#jira-api_token').fill(jiraToken);
    await admin.page.locator('#jira-project_key').fill('SEC');
    let res = await admin.submit(admin.page.locator('form[action="/team/jira"] button[type="submit"]'));
    assert.equal(await redirectStatus(res), 303);
    assert.equal(await admin.page.locator('#jira-api_token').inputValue(), '', 'the token is never filled back');
    const target = await scanTarget(suite.h, 'acme', 'example.com');
    await scan(suite.h, target, [finding('xss', { severity: 'critical', host: 'example.com', title: 'Stored XSS' })]);
    const client = createJiraClientFactory({
      guard: suite.h.runtime.guard,
      resolver: suite.h.runtime.resolver,
      timeoutMs: 5000,
    });
    const store = suite.h.runtime.store;
    await syncJira(
      { store, box: suite.h.runtime.box, client, now: () => new Date() },
      teamId,
      AbortSignal.timeout(10_000),
    );
    res = await admin.goto('/team/jira');
    assert.ok(!(await admin.page.content()).includes(jiraToken));
    await admin.check('jira-connected');
    const list = (await suite.h.send('GET', '/rest/v2/vulnerabilities/', { key: v2key })).json() as {
      vulnerabilities: Array<{ uuid: string; severity: string }>;
    };
    const uuid = list.vulnerabilities.find((v) => v.severity === 'critical')!.uuid;
    await admin.goto(`/vulnerabilities/${uuid}`);
    const link = admin.page.locator('#jira-issue a');
    assert.equal(await link.innerText(), 'SEC-1');
    assert.equal(await link.getAttribute('href'), `${jira.baseUrl}/browse/SEC-1`);
    await admin.check('finding-jira');
  });

  it('shows a Viewer the webhook, its deliveries and Jira without a button', async () => {
    for (const [path, shot] of [
      [webhookPath, 'viewer-webhook'],
      [`${webhookPath}/deliveries`, 'viewer-deliveries'],
      ['/team/jira', 'viewer-jira'],
    ] as const) {
      await viewer.goto(path);
      assert.equal(await viewer.page.locator('main form').count(), 0, path);
      await viewer.check(shot);
    }
    const csrf = await viewer.csrf();
    const res = await viewer.forgePost(`${webhookPath}/test`, { _csrf: csrf });
    assert.equal(res.status(), 403);
  });

  it('deletes the webhook after a confirmation', async () => {
    await admin.goto(webhookPath);
    accept(admin);
    const res = await admin.submit(admin.page.getByRole('button', { name: 'Delete' }));
    assert.equal(await redirectStatus(res), 303);
    assert.match(await admin.page.locator('#webhooks-empty').innerText(), /no webhooks/);
  });
});
