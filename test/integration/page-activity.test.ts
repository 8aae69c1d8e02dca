import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { findBrowser, launchConfinedBrowser } from '../../src/engine/http-scan/browser/browser-launch.ts';
import { activityInitScript, isPageQuiet } from '../../src/engine/http-scan/browser/page-activity.ts';

/**
 * The renderer's in-page view of a page's activity (page-activity.ts) in Debian's Chromium: a
 * page is never quiet between a script's request and the rendering of its answer, whatever the
 * time the browser takes to hand the answer over; it is quiet once nothing is left.
 */

const origin = 'http://127.0.0.1:9'; // never dialled: every request is answered by the route below
const html = (body: string): string => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

/** Each test's page: answers from `pages`, and holds a request of `held` until the test releases it. */
interface Site {
  pages: Record<string, string>;
  held: Map<string, Route>;
}

describe('page activity (in a real browser)', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const site: Site = { pages: {}, held: new Map() };
  before(async () => {
    const found = findBrowser(undefined);
    assert.ok(found.path !== undefined, `a browser is installed (${found.tried})`);
    browser = await launchConfinedBrowser(found.path);
    context = await browser.newContext();
    await context.addInitScript(activityInitScript);
    await context.route('**/*', async (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path.startsWith('/held/')) return void site.held.set(path, route);
      const body = site.pages[path];
      if (body === undefined) return void (await route.fulfill({ status: 404, body: 'none' }));
      const type = path.endsWith('.html') || path === '/' ? 'text/html' : 'text/plain';
      await route.fulfill({ status: 200, headers: { 'content-type': type }, body });
    });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
  });

  /** Polls isPageQuiet until it says yes (or 5 s). */
  async function untilQuiet(): Promise<boolean> {
    const end = Date.now() + 5_000;
    while (Date.now() < end) {
      if (await isPageQuiet(page, 150, 1_000)) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  }

  it('counts a fetch and the reading of its body until the callbacks on them have run', async () => {
    site.pages['/fetch.html'] = html(`<nav id="menu"></nav><script>
      fetch('/menu.txt').then((r) => r.text()).then((text) => {
        document.title = 'pending while rendering: ' + window.__perimeterActivity()[0];
        document.getElementById('menu').innerHTML = '<a href="' + text + '">m</a>';
      });</script>`);
    site.pages['/menu.txt'] = '/ledger';
    await page.goto(`${origin}/fetch.html`, { waitUntil: 'load' });
    assert.ok(await untilQuiet());
    assert.match(await page.title(), /^pending while rendering: [1-9]/);
    assert.equal(await page.getAttribute('#menu a', 'href'), '/ledger');
  });

  it('is not quiet while a request of the page is held, and is once its answer is rendered', async () => {
    site.pages['/held.html'] = html(`<nav id="menu"></nav><script>
      fetch('/held/menu').then((r) => r.text()).then((text) => {
        document.getElementById('menu').innerHTML = '<a href="' + text + '">m</a>';
      });</script>`);
    await page.goto(`${origin}/held.html`, { waitUntil: 'load' });
    const deadline = Date.now() + 5_000;
    while (!site.held.has('/held/menu') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((resolve) => setTimeout(resolve, 400)); // well past the quiet time
    assert.equal(await isPageQuiet(page, 150, 1_000), false, 'a fetch is pending');
    await site.held
      .get('/held/menu')!
      .fulfill({ status: 200, headers: { 'content-type': 'text/plain' }, body: '/late' });
    assert.ok(await untilQuiet());
    assert.equal(await page.getAttribute('#menu a', 'href'), '/late');
  });

  it('counts an XMLHttpRequest until its handlers have run', async () => {
    site.pages['/xhr.html'] = html(`<nav id="menu"></nav><script>
      const x = new XMLHttpRequest();
      x.open('GET', '/menu.txt');
      x.onload = () => {
        document.title = 'pending in onload: ' + window.__perimeterActivity()[0];
        document.getElementById('menu').innerHTML = '<a href="' + x.responseText + '">m</a>';
      };
      x.send();</script>`);
    await page.goto(`${origin}/xhr.html`, { waitUntil: 'load' });
    assert.ok(await untilQuiet());
    assert.match(await page.title(), /^pending in onload: [1-9]/);
    assert.equal(await page.getAttribute('#menu a', 'href'), '/ledger');
  });

  it('takes a change to the DOM for activity', async () => {
    site.pages['/dom.html'] = html(`<div id="out"></div>`);
    await page.goto(`${origin}/dom.html`, { waitUntil: 'load' });
    assert.ok(await untilQuiet());
    const idleAfterChange = await page.evaluate(() => {
      const link = document.createElement('a');
      link.href = '/added';
      document.getElementById('out')!.append(link);
      const activity = (window as unknown as { __perimeterActivity: () => [number, number] }).__perimeterActivity;
      return new Promise<number>((resolve) => setTimeout(() => resolve(activity()[1]), 0));
    });
    assert.ok(idleAfterChange < 150, `idle ${idleAfterChange} ms right after the change`);
  });

  it('counts a page without the tracking as quiet, and a closed page too', async () => {
    const bare = await browser.newPage();
    try {
      await bare.setContent(html('<p>no init script here</p>'));
      assert.equal(await isPageQuiet(bare, 150, 1_000), true);
    } finally {
      await bare.close();
    }
    assert.equal(await isPageQuiet(bare, 150, 1_000), true);
  });
});
