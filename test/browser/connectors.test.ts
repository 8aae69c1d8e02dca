import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Connector } from '../../src/core/connectors/connector.types.ts';
import { BrowserSuite, redirectStatus, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';

/**
 * The connector pages in Chromium, at a laptop's and a phone's width with axe: the list with each
 * run state (queued on create, failed with its error, succeeded), the create form's option fields
 * per provider, Run now, and a connector's page with its assets (one gone from the provider); a
 * Viewer reads both without a button.
 */
describe(`console connectors in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  let admin: ConsolePage;
  let viewer: ConsolePage;
  let teamId: number;

  before(async () => {
    await suite.start();
    await suite.h.team('acme', { plan: 'enterprise' });
    teamId = (await suite.h.runtime.store.teams.findByName('acme'))!.id;
    admin = await suite.member('acme', 'admin@acme.test', 'Admin', '/team/connectors');
    viewer = await suite.member('acme', 'viewer@acme.test', 'Viewer', '/team/connectors');
  });
  after(() => suite.close());

  /** The stored connector of the list's row named `name`. */
  async function connectorNamed(name: string): Promise<Connector> {
    const href = await admin.page.locator('#connector-list a', { hasText: name }).getAttribute('href');
    assert.ok(href, `a link to ${name}`);
    const publicId = href.split('/').pop()!;
    return (await suite.h.runtime.store.connectors.findByPublicId([teamId], publicId))!;
  }

  it('creates a connector from the form with the option fields in view; its first run is queued', async () => {
    await admin.goto('/team/connectors');
    assert.equal(await admin.page.locator('#option-fields details').count(), 9);
    await admin.page.locator('details[data-provider="CLOUD_F"] summary').click();
    assert.match(await admin.page.locator('details[data-provider="CLOUD_F"]').innerText(), /passphrase optional/);
    await admin.check('connectors-empty-form');
    await admin.page.locator('#connector-name').fill('Production DNS');
    await admin.page.locator('#connector-provider').selectOption('DNS_H');
    await admin.page.locator('#connector-options').fill('api_key=browser-secret-value');
    const res = await admin.submit(admin.page.locator('form[action="/team/connectors"] button[type="submit"]'));
    assert.equal(await redirectStatus(res), 303);
    assert.match(await admin.page.locator('.notice').innerText(), /Its first run is queued/);
    const row = admin.page.locator('#connector-list tbody tr', { hasText: 'Production DNS' });
    assert.equal(await row.locator('[data-run-status]').innerText(), 'queued');
    assert.equal(await admin.page.getByText('browser-secret-value').count(), 0);
  });

  it('lists failed, succeeded and never-run connectors, and queues a run now', async () => {
    const store = suite.h.runtime.store.connectors;
    const failed = await connectorNamed('Production DNS');
    await store.setRun(teamId, failed.id, {
      status: 'FAILED',
      error:
        'The provider refused the credentials (401 Unauthorized): check that the API key is active and may view zones',
      completedAt: new Date('2026-06-01T08:30:00Z'),
    });
    const good = await store.insert({
      publicId: '5f0c7b52-9d0e-4a8b-8a43-51b0b7f4e7a1',
      teamId,
      name: 'Cloud account with a rather long name for the edge network',
      provider: 'CLOUD_A_ROLE_BASED',
      optionsSealed: suite.h.runtime.box.encrypt('{"role_arn":"arn:aws:iam::123456789012:role/perimeter"}'),
      created: new Date('2026-05-30T12:00:00Z'),
      updated: new Date('2026-05-30T12:00:00Z'),
    });
    await store.setRun(teamId, good.id, {
      status: 'SUCCEEDED',
      error: '',
      completedAt: new Date('2026-06-01T09:00:00Z'),
    });
    await store.insert({
      publicId: '9a3e2d1c-0b4f-4e6a-8c7d-2f1e0a9b8c7d',
      teamId,
      name: 'Registrar',
      provider: 'REGISTRAR_G',
      optionsSealed: suite.h.runtime.box.encrypt('{"api_key":"k","api_secret":"s"}'),
      created: new Date(),
      updated: new Date(),
    });
    await admin.goto('/team/connectors');
    const row = admin.page.locator('#connector-list tbody tr', { hasText: 'Production DNS' });
    assert.equal(await row.locator('[data-run-status]').innerText(), 'failed');
    assert.match(await row.locator('.run-error').innerText(), /refused the credentials \(401 Unauthorized\)/);
    await admin.check('connectors-list');
    const res = await admin.submit(row.getByRole('button', { name: 'Run now Production DNS' }));
    assert.equal(await redirectStatus(res), 303);
    assert.equal(await admin.page.locator('.notice').innerText(), 'Run queued.');
    assert.equal(await row.locator('[data-run-status]').innerText(), 'queued');
    assert.equal(await row.locator('.run-error').count(), 0);
    await admin.check('connectors-run-queued');
  });

  it("shows a connector's page with its assets, one gone from the provider", async () => {
    const connector = await connectorNamed('Production DNS');
    const store = suite.h.runtime.store.connectors;
    await store.setRun(teamId, connector.id, {
      status: 'SUCCEEDED',
      error: '',
      completedAt: new Date('2026-06-02T08:30:00Z'),
    });
    const seen = [
      { name: 'example.test', kind: 'zone' as const, source: 'NS1 zone example.test' },
      { name: 'www.example.test', kind: 'name' as const, source: 'NS1 zone example.test, record A' },
      { name: 'api.example.test', kind: 'name' as const, source: 'NS1 zone example.test, record CNAME' },
      { name: 'cdn.example.test', kind: 'hostname' as const, source: 'NS1 zone example.test, record CNAME target' },
      { name: '203.0.113.7', kind: 'address' as const, source: 'NS1 zone example.test, record A of www' },
      { name: '2001:db8::7', kind: 'address' as const, source: 'NS1 zone example.test, record AAAA of www' },
    ];
    await store.recordAssets(teamId, connector.id, seen, new Date('2026-06-01T08:30:00Z'));
    await store.recordAssets(teamId, connector.id, seen.slice(0, 4), new Date('2026-06-02T08:30:00Z'));
    await admin.goto('/team/connectors');
    await admin.submit(admin.page.locator('#connector-list a', { hasText: 'Production DNS' }));
    assert.equal(await admin.page.locator('h1').innerText(), 'Production DNS');
    assert.match(
      await admin.page.locator('#asset-totals').innerText(),
      /6 names and addresses: 4 at the provider, 2 gone/,
    );
    assert.equal(await admin.page.locator('#connector-assets tr[data-gone]').count(), 2);
    assert.match(
      await admin.page.locator('#connector-assets tr[data-asset="203.0.113.7"]').innerText(),
      /gone from provider\s+since 2026-06-02 08:30 UTC/,
    );
    await admin.check('connector-detail');
    const res = await admin.submit(admin.page.getByRole('button', { name: 'Run now Production DNS' }));
    assert.equal(new URL(res.url()).pathname, `/team/connectors/${connector.publicId}`);
    assert.equal(await admin.page.locator('.notice').innerText(), 'Run queued.');
    assert.equal(await admin.page.locator('#last-run [data-run-status]').innerText(), 'queued');
  });

  it('lets a Viewer read the list and a connector without a button', async () => {
    await viewer.goto('/team/connectors');
    assert.equal(await viewer.page.locator('main form').count(), 0);
    assert.equal(await viewer.page.locator('#connector-list tbody tr').count(), 3);
    await viewer.check('connectors-viewer');
    await viewer.submit(viewer.page.locator('#connector-list a', { hasText: 'Production DNS' }));
    assert.equal(await viewer.page.locator('main form').count(), 0);
    assert.equal(await viewer.page.locator('#connector-assets tbody tr').count(), 6);
    await viewer.check('connector-detail-viewer');
  });
});
