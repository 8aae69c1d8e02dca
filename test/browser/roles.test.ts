import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrowserSuite, redirectStatus, type ConsolePage } from '../support/browser.ts';
import { finding, scan, scanTarget, type ScanTarget } from '../support/findings.ts';
import { testStore } from '../support/harness.ts';

interface WireVuln {
  uuid: string;
  title: string;
  status: string;
  tags: Array<{ name: string }>;
}

/**
 * Each role's limits, enforced on the server and reflected in the pages: a Viewer reads and sees
 * no triage button (a forged mark is 403 and changes nothing); an Editor triages in bulk (marks
 * and tags) and on the detail page, and filters the list, but cannot delete an asset (no button;
 * a forged delete is 403); an Admin can.
 */
describe(`console roles in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  let key: string;
  let target: ScanTarget;
  let spare: ScanTarget;
  let vulns: Record<string, WireVuln>;
  let viewer: ConsolePage;
  let editor: ConsolePage;

  const list = async (): Promise<Record<string, WireVuln>> => {
    const body = (await suite.h.send('GET', '/rest/v2/vulnerabilities/?pageSize=100', { key })).json();
    return Object.fromEntries(body.vulnerabilities.map((v: WireVuln) => [v.title, v]));
  };
  const triageButtons = (cp: ConsolePage) => cp.page.locator('button[name="action"]').count();

  before(async () => {
    await suite.start();
    key = (await suite.h.team('alpha')).key;
    target = await scanTarget(suite.h, 'alpha', 'example.com');
    spare = await scanTarget(suite.h, 'alpha', 'spare.example.com');
    await scan(suite.h, target, [
      finding('a', { severity: 'critical' }),
      finding('b', { severity: 'high' }),
      finding('c', { severity: 'low' }),
    ]);
    vulns = await list();
    viewer = await suite.member('alpha', 'viewer@alpha.test', 'Viewer', '/vulnerabilities');
    editor = await suite.member('alpha', 'editor@alpha.test', 'Editor', '/vulnerabilities');
  });
  after(() => suite.close());

  it('shows a Viewer the findings without any triage button', async () => {
    await viewer.goto('/vulnerabilities');
    assert.equal(await viewer.page.locator('tr[data-uuid]').count(), 3);
    assert.equal(await triageButtons(viewer), 0, 'no mark or tag button');
    assert.equal(await viewer.page.locator('input[name="uuid"]').count(), 0, 'nothing to select');
    await viewer.check('findings-viewer');
    const a = vulns['Title of a']!;
    const res = await viewer.goto(`/vulnerabilities/${a.uuid}`);
    assert.equal(res.status(), 200);
    assert.equal(await viewer.page.locator('h1').innerText(), 'Title of a');
    assert.equal(await triageButtons(viewer), 0);
    assert.equal(await viewer.page.locator(`form[action="/vulnerabilities/${a.uuid}/marks"]`).count(), 0);
    await viewer.check('finding-viewer');
  });

  it("refuses a Viewer's forged mark and bulk mark (403) and changes nothing", async () => {
    const a = vulns['Title of a']!;
    const csrf = await viewer.csrf();
    const one = await viewer.forgePost(`/vulnerabilities/${a.uuid}/marks`, { _csrf: csrf, action: 'mark:fixed' });
    assert.equal(one.status(), 403);
    assert.equal(await viewer.page.locator('h1').innerText(), 'Not allowed');
    await viewer.check('forged-mark-viewer');
    const bulk = await viewer.forgePost('/vulnerabilities/bulk', {
      _csrf: csrf,
      uuid: a.uuid,
      action: 'mark:false_positive',
    });
    assert.equal(bulk.status(), 403);
    assert.equal((await list())['Title of a']!.status, 'new');
  });

  it('lets an Editor mark findings in bulk from the list', async () => {
    await editor.goto('/vulnerabilities');
    assert.ok((await triageButtons(editor)) > 0, 'the bulk buttons are shown');
    await editor.check('findings-editor');
    const [a, b] = [vulns['Title of a']!, vulns['Title of b']!];
    await editor.page.locator(`input[name="uuid"][value="${a.uuid}"]`).check();
    await editor.page.locator(`input[name="uuid"][value="${b.uuid}"]`).check();
    const res = await editor.submit(editor.page.locator('button[name="action"][value="mark:accepted_risk"]'));
    assert.equal(await redirectStatus(res), 303);
    assert.equal(await editor.page.locator('p.notice').innerText(), '2 findings updated.');
    for (const v of [a, b])
      assert.equal(
        await editor.page.locator(`tr[data-uuid="${v.uuid}"] .status`).innerText(),
        'accepted risk',
        `the row of ${v.title} shows its new status`,
      );
    await editor.check('findings-marked');
    const now = await list();
    assert.deepEqual(
      [now['Title of a']!.status, now['Title of b']!.status, now['Title of c']!.status],
      ['accepted_risk', 'accepted_risk', 'new'],
    );
  });

  it('lets an Editor tag findings in bulk', async () => {
    await editor.goto('/vulnerabilities');
    const c = vulns['Title of c']!;
    await editor.page.locator(`input[name="uuid"][value="${c.uuid}"]`).check();
    await editor.page.locator('input[name="tag"]').fill('sprint-12');
    await editor.submit(editor.page.locator('button[name="action"][value="tag"]'));
    assert.equal(await editor.page.locator('p.notice').innerText(), '1 finding tagged.');
    assert.deepEqual(
      (await list())['Title of c']!.tags.map((t) => t.name),
      ['sprint-12'],
    );
  });

  it('filters the list with the v2 parameters', async () => {
    await editor.goto('/vulnerabilities?status[]=accepted_risk');
    assert.equal(await editor.page.locator('tr[data-uuid]').count(), 2);
    await editor.check('findings-filter-status');
    await editor.goto('/vulnerabilities?severity[]=critical');
    const rows = editor.page.locator('tr[data-uuid]');
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.first().getAttribute('data-uuid'), vulns['Title of a']!.uuid);
  });

  it('lets an Editor lift a mark on the detail page', async () => {
    const b = vulns['Title of b']!;
    await editor.goto(`/vulnerabilities/${b.uuid}`);
    const form = editor.page.locator(`form[action="/vulnerabilities/${b.uuid}/marks"]`);
    await editor.submit(form.locator('button[name="action"][value="unmark:accepted_risk"]'));
    assert.equal(await editor.page.locator('main .status').first().innerText(), 'new');
    assert.equal((await list())['Title of b']!.status, 'new');
    assert.ok((await editor.page.locator('ol.history li').count()) >= 2, 'the mark and its removal are in the history');
    await editor.check('finding-editor');
  });

  it('does not let an Editor delete an asset: no button, and a forged delete is 403', async () => {
    const res = await editor.goto(`/assets/${spare.asset.token}`);
    assert.equal(res.status(), 200);
    assert.equal(await editor.page.getByRole('button', { name: /delete/i }).count(), 0);
    await editor.check('asset-editor');
    const forged = await editor.forgePost(`/assets/${spare.asset.token}/delete`, { _csrf: await editor.csrf() });
    assert.equal(forged.status(), 403);
    assert.equal(await editor.page.locator('h1').innerText(), 'Not allowed');
    await editor.check('forged-delete-editor');
    const still = await suite.h.send('GET', `/rest/v2/assets/${spare.asset.token}/settings/`, { key });
    assert.equal(still.statusCode, 200, 'the asset is still there');
  });

  it("shows an Editor the asset's settings read-only, and refuses a forged save (403)", async () => {
    assert.equal((await editor.goto(`/assets/${spare.asset.token}/settings`)).status(), 200);
    assert.equal(await editor.page.getByRole('button', { name: 'Save the settings' }).isDisabled(), true);
    await editor.check('asset-settings-editor');
    const forged = await editor.forgePost(`/assets/${spare.asset.token}/settings`, { _csrf: await editor.csrf() });
    assert.equal(forged.status(), 403);
    assert.equal(await editor.page.locator('h1').innerText(), 'Not allowed');
  });

  it('lets an Admin delete an asset (after confirming)', async () => {
    const admin = await suite.member('alpha', 'admin@alpha.test', 'Admin', `/assets/${spare.asset.token}`);
    await admin.check('asset-admin');
    assert.equal((await admin.goto(`/assets/${spare.asset.token}/settings`)).status(), 200);
    await admin.check('asset-settings-admin');
    await admin.goto(`/assets/${spare.asset.token}`);
    admin.page.once('dialog', (dialog) => void dialog.accept());
    const res = await admin.submit(admin.page.getByRole('button', { name: /delete/i }));
    assert.equal(await redirectStatus(res), 303);
    assert.equal(await admin.page.locator('p.notice').innerText(), 'Asset deleted.');
    await admin.check('assets-after-delete');
    const gone = await suite.h.send('GET', `/rest/v2/assets/${spare.asset.token}/settings/`, { key });
    assert.equal(gone.statusCode, 404);
    await admin.context.close();
  });
});
