import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrowserSuite, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';
import { seedSurface, type SurfaceFixture } from '../support/surface-console-fixture.ts';

/**
 * The Surface section in Chromium: from the index's counts to the lists, from an IP to its ports
 * and technologies, from a breach to its evidence and the address behind it, a filter the API
 * refuses, and the monitoring runs. Every page at two widths with axe.
 */
describe(`console surface in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  let cp: ConsolePage;
  let f: SurfaceFixture;

  before(async () => {
    await suite.start();
    f = await seedSurface(suite.h);
    cp = await suite.member('acme', 'viewer@acme.test', 'Viewer', '/surface');
  });
  after(() => suite.close());

  const path = () => {
    const url = new URL(cp.page.url());
    return `${url.pathname}${url.search}`;
  };

  it('leads from the open breaches count to a breach, its evidence and its address', async () => {
    await cp.check('surface-index');
    await cp.submit(cp.page.getByRole('link', { name: '3 open policy breaches' }));
    assert.equal(path(), '/surface/breaches?status=open');
    assert.equal(await cp.page.locator('#breaches tbody tr').count(), 3);
    assert.ok(await cp.page.getByRole('checkbox', { name: 'open' }).isChecked());
    await cp.check('surface-breaches-open');
    await cp.submit(cp.page.getByRole('link', { name: 'Database exposed' }));
    assert.equal(path(), `/surface/breaches/${f.breaches['database-exposed db.shop.example']}`);
    assert.equal(await cp.page.locator('[data-evidence]').innerText(), '192.0.2.20 port 3306 (mysql)');
    await cp.check('surface-breach');
    await cp.submit(cp.page.locator('#breach-ports').getByRole('link', { name: '192.0.2.20' }));
    assert.equal(path(), `/surface/ips/${f.ips['192.0.2.20']}`);
    assert.equal(await cp.page.locator('h1').innerText(), '192.0.2.20');
  });

  it("leads from an IP to its ports and to its technology's row in the list", async () => {
    await cp.goto('/surface/ips');
    await cp.check('surface-ips');
    await cp.submit(cp.page.getByRole('link', { name: '192.0.2.10' }));
    assert.equal(path(), `/surface/ips/${f.ips['192.0.2.10']}`);
    assert.equal(await cp.page.locator('#ip-ports tbody tr').count(), 2);
    await cp.check('surface-ip');
    await cp.submit(cp.page.locator('#ip-technologies').getByRole('link', { name: 'Nginx' }));
    assert.equal(new URL(cp.page.url()).pathname, '/surface/technologies');
    const row = cp.page.locator('#technologies tbody tr');
    assert.equal(await row.count(), 1);
    assert.match(await row.innerText(), /Nginx\s+1\.25\.3/);
    assert.match(new URL(cp.page.url()).hash, /^#technology-\d+$/);
    await cp.check('surface-technologies');
    await cp.page.goBack();
    await cp.submit(cp.page.locator('#ip-ports').getByRole('link', { name: '443' }));
    assert.equal(path(), '/surface/ports?port=443');
    assert.equal(await cp.page.locator('#ports tbody tr').count(), 1);
  });

  it("refuses a port the API refuses, with the API's message, and keeps the filters", async () => {
    await cp.goto('/surface/ports');
    await cp.page.getByText('Filters').click();
    await cp.page.getByLabel('Port numbers').fill('22, 99999');
    const res = await cp.submit(cp.page.getByRole('button', { name: 'Filter' }));
    assert.equal(res.status(), 400);
    assert.equal(
      await cp.page.getByRole('alert').innerText(),
      'port must be integers from 0 to 65535 (comma-separated or repeated), got "99999"',
    );
    assert.equal(await cp.page.getByLabel('Port numbers').inputValue(), '22, 99999');
    await cp.check('surface-ports-refused');
    await cp.page.getByLabel('Port numbers').fill('');
    await cp.page.getByRole('checkbox', { name: 'closed' }).check();
    await cp.submit(cp.page.getByRole('button', { name: 'Filter' }));
    assert.equal(new URL(cp.page.url()).searchParams.get('status'), 'CLOSED');
    assert.equal(await cp.page.locator('#ports tbody tr').count(), 1);
  });

  it('lists the monitoring runs of an asset and shows what one found', async () => {
    await cp.goto('/surface/runs');
    await cp.page.getByText('Filters').click();
    await cp.page.getByLabel('Asset').selectOption({ label: 'shop.example' });
    await cp.submit(cp.page.getByRole('button', { name: 'Filter' }));
    assert.equal(await cp.page.locator('#runs tbody tr').count(), 2);
    await cp.check('surface-runs');
    await cp.submit(cp.page.getByRole('link', { name: `Run ${f.runs[1]}` }));
    assert.match(await cp.page.locator('main').innerText(), /2 open: 0 newly open, 0 open again, 1 closed/);
    await cp.check('surface-run');
    await cp.submit(cp.page.getByRole('link', { name: 'ports', exact: true }).nth(1));
    assert.match(await cp.page.locator('#ports tbody tr').innerText(), /\b22\b[\s\S]*closed/);
  });

  it("answers another team's IP with the not-found page", async () => {
    const res = await cp.goto(`/surface/ips/${f.rival.ip}`);
    assert.equal(res.status(), 404);
    assert.equal(await cp.page.locator('h1').innerText(), 'Not found');
  });
});
