import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrowserSuite, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';
import { dayBefore, seedFindings, seedSurroundings } from '../support/overview-fixture.ts';

/**
 * The overview in Chromium, under the console's CSP: the chart drawn by uPlot on its canvas (no
 * CSP violation: uPlot styles through the CSSOM), redrawn to the phone's width, its numbers in a
 * table for screen readers, and a count that leads to the list it counts.
 */
describe(`console overview in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  let cp: ConsolePage;

  /** Pixels of the chart's canvas that are drawn (not transparent), and the canvas's CSS width. */
  const canvasOf = () =>
    cp.evaluate<{ drawn: number; width: number; red: number; green: number }>(`(() => {
      const canvas = document.querySelector('[data-chart="activity"] canvas');
      const ctx = canvas.getContext('2d');
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let drawn = 0, red = 0, green = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] === 0) continue;
        drawn++;
        if (data[i] > 150 && data[i + 1] < 80) red++;
        if (data[i + 1] > 90 && data[i] < 60) green++;
      }
      return { drawn, width: canvas.getBoundingClientRect().width, red, green };
    })()`);

  before(async () => {
    await suite.start();
    await suite.h.team('acme');
    const acme = await seedSurroundings(suite.h, 'acme', {
      monitored: ['example.com', 'second.example'],
      openBreaches: 2,
      resolvedBreaches: 1,
      profileName: 'Acme shop',
    });
    await seedFindings(suite.h, acme);
    cp = await suite.member('acme', 'viewer@acme.test', 'Viewer', '/overview');
  });
  after(() => suite.close());

  it('opens at / and draws the chart with uPlot, with no CSP violation', async () => {
    const res = await cp.goto('/');
    assert.equal(new URL(res.url()).pathname, '/overview');
    await cp.page.locator('[data-chart="activity"][data-drawn="true"] canvas').waitFor();
    const wide = await canvasOf();
    assert.ok(wide.drawn > 1000, `the canvas is drawn (${wide.drawn} pixels)`);
    assert.ok(wide.red > 50, `the new findings' bars are drawn (${wide.red} red pixels)`);
    assert.ok(wide.width > 900, `the chart fills the panel at 1280px (${wide.width}px)`);
    assert.deepEqual(
      cp.takeLog().filter((l) => /CSP|Content Security Policy/i.test(l)),
      [],
      'no CSP violation',
    );
    await cp.check('overview');
    await cp.page.setViewportSize({ width: 390, height: 844 });
    await cp.page.waitForFunction(
      () => document.querySelector('[data-chart="activity"] canvas')!.getBoundingClientRect().width < 390,
    );
    const narrow = await canvasOf();
    assert.ok(narrow.drawn > 500 && narrow.width < 390, `redrawn at the phone's width (${narrow.width}px)`);
    await cp.page.setViewportSize({ width: 1280, height: 800 });
  });

  it("offers the chart's numbers as a table, each a link to its list", async () => {
    await cp.goto('/overview');
    await cp.page.getByText("The chart's numbers as a table").click();
    const table = cp.page.locator('#activity-table');
    assert.equal(await table.locator('tbody tr').count(), 30);
    const row = table.locator('tbody tr', { hasText: dayBefore(3) });
    assert.match(await row.locator('td').first().innerText(), /^5\b/);
    await cp.check('overview-table');
    const res = await cp.submit(row.locator('td a').first());
    assert.equal(new URL(res.url()).pathname, '/vulnerabilities');
    assert.equal(await cp.page.locator('tr[data-uuid]').count(), 5);
  });

  it('leads from a count to the list it counts', async () => {
    await cp.goto('/overview');
    const critical = cp.page.getByRole('link', { name: '1 open critical findings' });
    await cp.submit(critical);
    assert.equal(await cp.page.locator('tr[data-uuid]').count(), 1);
    assert.match(await cp.page.locator('p.count').innerText(), /^1 finding matches/);
    await cp.goto('/overview');
    await cp.submit(cp.page.getByRole('link', { name: /open findings$/ }));
    assert.equal(await cp.page.locator('tr[data-uuid]').count(), 5);
  });
});
