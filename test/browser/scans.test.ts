import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { BrowserSuite, redirectStatus, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';

/** What the progress panel shows at one moment (read in the page, without a navigation). */
interface Shown {
  value: number;
  text: string;
  eta: string;
  status: string;
  marker: string;
}

/**
 * The scans section in Chromium: an Admin creates a profile and sets its rate through the
 * settings form (a refused value shows the API's message), starts a REAL scan of a loopback site
 * and watches its progress bar rise without a reload (static/scans.js polling status.json) to
 * the report of what it found; an Editor stops a running scan from the page; a Viewer has no
 * start button, and a forged start is 403.
 */
describe(`console scans in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  let key: string;
  let site: TargetServer;
  let assetToken: string;
  let admin: ConsolePage;
  let profile = '';

  const apiStatus = async () => (await suite.h.send('GET', `/rest/v2/scans/${profile}/`, { key })).json();
  /** The panel as the page shows it now; `marker` is a value set in the window, gone after any reload. */
  const shown = (cp: ConsolePage): Promise<Shown> =>
    cp.evaluate<Shown>(`({
      value: document.querySelector('#scan-progress')?.value ?? -1,
      text: document.querySelector('[data-scan-percentage]')?.textContent ?? '',
      eta: document.querySelector('[data-scan-eta]')?.textContent ?? '',
      status: document.querySelector('[data-scan-status]')?.textContent ?? '',
      marker: String(window.__scanMarker ?? ''),
    })`);

  before(async () => {
    await suite.start({ endpointValidationTimeoutMs: 3000 });
    key = (await suite.h.team('alpha', { plan: 'enterprise' })).key;
    site = await startGeneratedSite(40);
    assetToken = (await suite.h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json().token;
    await suite.h.admin('asset', 'verify', '127.0.0.1', '--team', 'alpha');
    await suite.h.jobs.work(jobHandlers(suite.h.runtime), { pollIntervalMs: 50 });
    admin = await suite.member('alpha', 'admin@alpha.test', 'Admin', '/scans');
  });
  after(async () => {
    await suite.close();
    await site.stop();
  });

  it('creates a profile from the form and refuses a bad rate with the API message', async () => {
    await admin.check('scans-empty');
    await admin.page.locator('#asset_token').selectOption(assetToken);
    await admin.page.locator('#endpoint').fill('example.com');
    const outside = await admin.submit(admin.page.getByRole('button', { name: 'Create the profile' }));
    const apiOutside = await suite.h.send('POST', '/rest/v2/profiles/', {
      key,
      body: { asset_token: assetToken, endpoint: 'example.com' },
    });
    assert.equal(outside.status(), apiOutside.statusCode);
    assert.equal(
      await admin.page.locator('#create-problem').innerText(),
      `${apiOutside.json().message} (error ${apiOutside.json().code})`,
    );
    await admin.check('create-refused');
    await admin.page.locator('#endpoint').fill(`127.0.0.1:${site.port}`);
    await admin.page.locator('#profile-name').fill('shop');
    const created = await admin.submit(admin.page.getByRole('button', { name: 'Create the profile' }));
    assert.equal(await redirectStatus(created), 303);
    profile = /\/scans\/([0-9a-f]{32})/.exec(created.url())![1]!;
    assert.equal(await admin.page.locator('h1').innerText(), 'shop');

    await admin.goto(`/scans/${profile}/settings`);
    await admin.check('settings');
    await admin.page.locator('#requests_per_second').fill('3');
    const refused = await admin.submit(admin.page.getByRole('button', { name: 'Save the settings' }));
    assert.equal(refused.status(), 400);
    const api = await suite.h.send('PUT', `/rest/v2/profiles/${profile}/settings/`, {
      key,
      body: { requests_per_second: 3 },
    });
    assert.equal(
      await admin.page.locator('#settings-problem').innerText(),
      `${api.json().message} (error ${api.json().code})`,
    );
    assert.equal(await admin.page.locator('#requests_per_second').getAttribute('aria-invalid'), 'true');
    await admin.check('settings-refused');
    // A rate that makes the scan of the 40 pages last a few seconds.
    await admin.page.locator('#requests_per_second').fill('25');
    await admin.submit(admin.page.getByRole('button', { name: 'Save the settings' }));
    assert.equal(await admin.page.locator('p.notice').innerText(), 'Settings saved.');
    const settings = await suite.h.send('GET', `/rest/v2/profiles/${profile}/settings/`, { key });
    assert.equal(settings.json().requests_per_second, 25);
  });

  it('shows the progress of a real scan rising without a reload, then its report', async () => {
    await admin.goto(`/scans/${profile}`);
    const started = await admin.submit(admin.page.getByRole('button', { name: 'Start a scan' }));
    assert.equal(await redirectStatus(started), 303);
    assert.equal(await admin.page.locator('p.notice').innerText(), 'Scan started. A worker takes it within seconds.');
    // Every change the script makes to the panel is recorded in the page (none is missed while a
    // check runs); the marker would be gone after a reload.
    await admin.evaluate(`(() => {
      window.__scanMarker = 'same page';
      window.__scanSeen = [];
      const panel = document.querySelector('#scan-live');
      const record = () => window.__scanSeen.push({
        value: panel.querySelector('#scan-progress').value,
        eta: panel.querySelector('[data-scan-eta]').textContent,
        status: panel.querySelector('[data-scan-status]').textContent,
      });
      new MutationObserver(record).observe(panel, { subtree: true, childList: true, characterData: true, attributes: true });
    })()`);
    const reads: Shown[] = [];
    let checked = false;
    for (let i = 0; i < 300; i++) {
      const now = await shown(admin);
      reads.push(now);
      if (now.status === 'completed') break;
      if (!checked && now.status === 'running' && now.value > 0) {
        await admin.check('scan-running');
        checked = true;
      }
      await delay(100);
    }
    const seen = await admin.evaluate<Array<Omit<Shown, 'text' | 'marker'>>>('window.__scanSeen');
    const summary = seen
      .map((r) => `${r.status} ${r.value}`)
      .filter((text, i, all) => text !== all[i - 1])
      .join(', ');
    assert.equal(reads.at(-1)!.status, 'completed', summary);
    assert.ok(
      reads.every((r) => r.marker === 'same page'),
      'the page was never reloaded',
    );
    for (const list of [reads, seen])
      for (let i = 1; i < list.length; i++)
        assert.ok(list[i]!.value >= list[i - 1]!.value, `never backwards: ${summary}`);
    const rising = [...new Set(reads.filter((r) => r.status === 'running').map((r) => r.value))];
    assert.ok(rising.length >= 2, `the bar read rising at least twice while running: ${summary}`);
    assert.ok(seen.filter((r) => r.status === 'running').every((r) => r.value < 100));
    assert.ok(
      seen.some((r) => /^About .+ left\.$/.test(r.eta)),
      `a time left was shown: ${[...new Set(seen.map((r) => r.eta))].join(' | ')} (${summary})`,
    );
    assert.equal(reads.at(-1)!.value, 100);
    assert.equal(reads.at(-1)!.text, '100%');
    assert.equal((await apiStatus()).status, 'completed');
    assert.ok(await admin.page.getByRole('button', { name: 'Start a scan' }).isVisible(), 'start is offered again');
    assert.equal(await admin.page.locator('#latest').innerText(), 'Latest scan');
    await admin.check('scan-completed');

    await admin.submit(admin.page.getByRole('link', { name: 'What this scan found' }));
    assert.equal(await admin.page.locator('h1').innerText(), 'Scan of shop');
    const findings = admin.page.locator('main table a[href^="/vulnerabilities/"]');
    assert.ok((await findings.count()) > 0, 'the report lists the findings it reported');
    await admin.check('scan-report');
    await admin.submit(findings.first());
    assert.match(admin.page.url(), /\/vulnerabilities\/[0-9a-f-]{36}$/);

    await admin.goto(`/scans/${profile}`);
    assert.equal(await admin.page.locator('table[aria-label^="Reports of shop"] tbody tr').count(), 1);
    await admin.page.locator('#frequency').selectOption('weekly');
    await admin.page.locator('#start').fill('next tuesday');
    const refused = await admin.submit(admin.page.getByRole('button', { name: 'Save the schedule' }));
    assert.equal(refused.status(), 400);
    assert.match(await admin.page.locator('#schedule-problem').innerText(), /\(error 1085\)$/);
    await admin.page.locator('#start').fill('2031-03-01 08:00');
    await admin.submit(admin.page.getByRole('button', { name: 'Save the schedule' }));
    assert.equal(await admin.page.locator('p.notice').innerText(), 'Schedule saved.');
    const schedule = (await suite.h.send('GET', `/rest/v2/scanschedules/${profile}/`, { key })).json();
    assert.equal(schedule.first_scan, '2031-03-01T08:00:00Z');
    await admin.check('profile-history');
  });

  it('lets an Editor stop a running scan from the page', async () => {
    const editor = await suite.member('alpha', 'editor@alpha.test', 'Editor', `/scans/${profile}`);
    await suite.h.send('PUT', `/rest/v2/profiles/${profile}/settings/`, { key, body: { requests_per_second: 5 } });
    await editor.submit(editor.page.getByRole('button', { name: 'Start a scan' }));
    for (let i = 0; i < 100 && (await shown(editor)).status !== 'running'; i++) await delay(100);
    assert.equal((await shown(editor)).status, 'running');
    editor.page.once('dialog', (dialog) => void dialog.accept());
    const stopped = await editor.submit(editor.page.getByRole('button', { name: 'Stop the scan' }));
    assert.equal(await redirectStatus(stopped), 303);
    assert.match(await editor.page.locator('p.notice').innerText(), /^The scan is stop(ping|ped)\.$/);
    for (let i = 0; i < 100 && (await shown(editor)).status !== 'stopped'; i++) await delay(100);
    assert.equal((await shown(editor)).status, 'stopped');
    assert.equal((await apiStatus()).status, 'stopped');
    assert.ok(await editor.page.getByRole('button', { name: 'Start a scan' }).isVisible());
    await editor.check('scan-stopped');
    await editor.context.close();
  });

  it('shows a Viewer no start button, and refuses a forged start (403)', async () => {
    const viewer = await suite.member('alpha', 'viewer@alpha.test', 'Viewer', `/scans/${profile}`);
    assert.equal(await viewer.page.getByRole('button', { name: /start|stop|delete/i }).count(), 0);
    await viewer.check('profile-viewer');
    const forged = await viewer.forgePost(`/scans/${profile}/start`, { _csrf: await viewer.csrf() });
    assert.equal(forged.status(), 403);
    assert.equal(await viewer.page.locator('h1').innerText(), 'Not allowed');
    await viewer.check('forged-start-viewer');
    assert.equal((await apiStatus()).status, 'stopped', 'no scan was started');
    await viewer.goto('/scans');
    assert.equal(await viewer.page.getByRole('button', { name: 'Create the profile' }).count(), 0);
    await viewer.check('scans-viewer');
  });
});
