import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type CDPSession,
  type Locator,
  type Page,
  type Response,
} from 'playwright-core';
import type { Config } from '../../src/config/config.ts';
import { totpCode } from '../../src/core/accounts/totp.ts';
import { testPassword } from './console-client.ts';
import { createHarness, type Harness } from './harness.ts';

/**
 * The browser tests' infrastructure: Debian's Chromium driven by playwright-core against a real
 * server (a harness listening on 127.0.0.1), one browser per test file, a fresh context (cookies,
 * storage) per member. `ConsolePage.check(name)` is what every visited page goes through: a
 * screenshot at 1280×800 and at a phone's 390×844 (test-artifacts/screenshots/<file>/), axe-core
 * at both widths (serious or critical violations fail), no horizontal overflow at the phone's
 * width, and a clean browser log (no console error, page error, CSP violation or request to
 * another origin). The page's CSP is never bypassed: axe is evaluated through the DevTools
 * protocol, which the CSP does not govern, so the tests also prove the console runs under it.
 */

/** Where Debian's chromium package puts the browser (.ci/run installs it). */
export const chromiumPath = '/usr/bin/chromium';

/** The widths every page is checked at: a laptop and a phone. */
export const viewports = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Launches headless Chromium (a fresh temporary profile, removed on close); fails when it is not installed. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath))
    throw new Error(
      `Chromium is missing: ${chromiumPath} does not exist. The browser tests (test/browser) drive Debian's ` +
        '`chromium` package: install it with `apt-get install chromium` (.ci/run installs it).',
    );
  // playwright-core starts every launch() with a new user-data-dir of its own (mkdtemp), and
  // refuses --user-data-dir in args: the profile is fresh and is removed when the browser closes.
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Reports every CSP violation to the console (a page error the log check catches); runs before any page script. */
const cspReporter = `document.addEventListener('securitypolicyviolation', (e) => {
  console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber);
});`;

/** An axe violation, as printed. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The roles a member can have. */
export type Role = 'Admin' | 'Editor' | 'Viewer';

/** One test file's browser, server and screenshot folder. */
export class BrowserSuite {
  /** The test file's name without `.test.ts`: its screenshots' folder. */
  readonly name: string;
  readonly shots: string;
  browser: Browser | undefined;
  harness: Harness | undefined;
  /** `http://127.0.0.1:PORT` of the running server. */
  base = '';
  private readonly pages: ConsolePage[] = [];

  /** `testFile` is the test file's import.meta.url. */
  constructor(testFile: string) {
    this.name = basename(fileURLToPath(testFile)).replace(/\.test\.ts$/, '');
    this.shots = join(repoRoot, 'test-artifacts', 'screenshots', this.name);
  }

  get h(): Harness {
    assert.ok(this.harness, 'the suite has not started');
    return this.harness;
  }

  /** Launches the browser (first: a missing Chromium fails at once) and a server on a fresh store. */
  async start(overrides: Partial<Config> = {}): Promise<this> {
    this.browser = await launchBrowser();
    this.harness = await createHarness(overrides);
    await this.harness.app.listen({ port: 0, host: '127.0.0.1' });
    this.base = `http://127.0.0.1:${(this.harness.app.server.address() as AddressInfo).port}`;
    rmSync(this.shots, { recursive: true, force: true });
    mkdirSync(this.shots, { recursive: true });
    return this;
  }

  /** A new browser context (no cookies) and its page, at the laptop's size. */
  async newPage(): Promise<ConsolePage> {
    assert.ok(this.browser, 'the suite has not started');
    const context = await this.browser.newContext({
      baseURL: this.base,
      viewport: viewports[0],
      locale: 'en-US',
      timezoneId: 'UTC',
      reducedMotion: 'reduce',
    });
    await context.addInitScript(cspReporter);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.setDefaultNavigationTimeout(20_000);
    const consolePage = new ConsolePage(this, context, page);
    this.pages.push(consolePage);
    return consolePage;
  }

  /** Invites a member through the admin CLI; the path of the invitation link it printed. */
  async invite(team: string, email: string, role: Role): Promise<string> {
    const out = JSON.parse(await this.h.admin('member', 'invite', email, '--team', team, '--role', role, '--json')) as {
      url: string;
    };
    return new URL(out.url).pathname;
  }

  /**
   * A member signed in through the UI in a context of its own: invited, its password set on the
   * invitation page, then the sign-in form (landing on `next`, /account unless said).
   */
  async member(team: string, email: string, role: Role, next = '/account'): Promise<ConsolePage> {
    const cp = await this.newPage();
    await cp.join(await this.invite(team, email, role));
    const res = await cp.signIn(email, { next });
    assert.equal(new URL(res.url()).pathname, next.split('?')[0], `${email} landed on ${res.url()}`);
    return cp;
  }

  /** Closes the browser and the server; fails when a page's log holds a problem no check saw. */
  async close(): Promise<void> {
    const left = this.pages.flatMap((p) => p.problems());
    await this.browser?.close();
    await this.harness?.close();
    assert.deepEqual(left, [], 'the browser log is clean');
  }
}

interface LogEntry {
  text: string;
  url: string;
}

/** A page of one member's (or a visitor's) browser context, with its log and the checks. */
export class ConsolePage {
  private readonly log: LogEntry[] = [];
  /** Document URLs that answered an error status on purpose (401, 403, 404): Chromium logs those. */
  private readonly errorDocuments = new Set<string>();

  constructor(
    readonly suite: BrowserSuite,
    readonly context: BrowserContext,
    readonly page: Page,
  ) {
    page.on('console', (msg) => {
      const isCsp = /Content[- ]Security[- ]Policy|CSP violation/i.test(msg.text());
      if (msg.type() === 'error' || isCsp)
        this.log.push({
          text: `console ${msg.type()}: ${msg.text()} (${msg.location().url})`,
          url: msg.location().url,
        });
    });
    page.on('pageerror', (err) => this.log.push({ text: `page error: ${err.message}`, url: '' }));
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith(`${suite.base}/`) && !/^(data|about|blob):/.test(url))
        this.log.push({ text: `request to another origin: ${url}`, url });
    });
    page.on('response', (res) => {
      if (res.request().isNavigationRequest() && res.status() >= 400) this.errorDocuments.add(res.url());
    });
  }

  /**
   * The log's problems since the last check. Not problems: a document's own error status (a 401,
   * 403 or 404 page a test asked for: Chromium logs it), and the 404 of /favicon.ico, which
   * Chromium asks for on its own and the console does not serve.
   */
  problems(): string[] {
    const isLoadFailure = (e: LogEntry) =>
      /Failed to load resource: the server responded with a status of/.test(e.text);
    return this.log
      .filter(
        (e) => !(isLoadFailure(e) && (this.errorDocuments.has(e.url) || e.url === `${this.suite.base}/favicon.ico`)),
      )
      .map((e) => e.text);
  }

  /** Forgets the log so far (after a test provoked a violation on purpose); returns what it held. */
  takeLog(): string[] {
    const all = this.log.map((e) => e.text);
    this.log.length = 0;
    return all;
  }

  private cdp: CDPSession | undefined;

  /**
   * Evaluates a script in the page's main world over the DevTools protocol (Runtime.evaluate: the
   * page's CSP does not govern it, and nothing of it is bypassed for the page's own scripts); its value.
   */
  async evaluate<T>(expression: string): Promise<T> {
    this.cdp ??= await this.context.newCDPSession(this.page);
    const { result, exceptionDetails } = await this.cdp.send('Runtime.evaluate', {
      expression,
      awaitPromise: true,
      returnByValue: true,
    });
    if (exceptionDetails !== undefined)
      throw new Error(
        `a script failed in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`,
      );
    return result.value as T;
  }

  /** Opens a path of the console; the final response (after redirects). */
  async goto(path: string): Promise<Response> {
    const res = await this.page.goto(path);
    assert.ok(res, `no response for ${path}`);
    return res;
  }

  /** Clicks what submits a form (or runs `act`) and waits for the page it leads to; that page's response. */
  async submit(target: Locator | (() => Promise<unknown>)): Promise<Response> {
    const [res] = await Promise.all([
      this.page.waitForNavigation({ waitUntil: 'load' }),
      typeof target === 'function' ? target() : target.click(),
    ]);
    assert.ok(res, 'the form led to no document');
    return res;
  }

  /** Sets a hidden (or any) form field's value in the page, as a user editing the DOM would. */
  async setField(selector: string, value: string): Promise<void> {
    const count = await this.page.locator(selector).count();
    assert.ok(count > 0, `no field ${selector}`);
    await this.evaluate(
      `for (const el of document.querySelectorAll(${JSON.stringify(selector)})) el.value = ${JSON.stringify(value)};`,
    );
  }

  /** Builds a form in the page and submits it (a forged request with the session's cookie); the answer. */
  async forgePost(action: string, fields: Record<string, string>): Promise<Response> {
    const script = `(() => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = ${JSON.stringify(action)};
      for (const [name, value] of ${JSON.stringify(Object.entries(fields))}) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    })()`;
    return this.submit(() => this.evaluate(script));
  }

  /** The CSRF token the page's forms carry. */
  async csrf(): Promise<string> {
    return this.page.locator('input[name="_csrf"]').first().inputValue();
  }

  /** Sets the password on an invitation page (and asks for a second factor when told); the page it leads to. */
  async join(linkPath: string, options: { twoFactor?: boolean; shot?: string } = {}): Promise<Response> {
    const opened = await this.goto(linkPath);
    assert.equal(opened.status(), 200, `the invitation link answered ${opened.status()}`);
    await this.page.locator('#password').fill(testPassword);
    await this.page.locator('#confirm').fill(testPassword);
    if (options.twoFactor === true) await this.page.locator('input[name="two_factor"]').check();
    if (options.shot !== undefined) await this.check(options.shot);
    const res = await this.submit(this.page.locator('form button[type="submit"]'));
    assert.equal(new URL(res.url()).pathname, '/signin', `setting the password led to ${res.url()}`);
    return res;
  }

  /** Signs in through the sign-in form (opened at /signin?next=…); the page it leads to. */
  async signIn(email: string, options: { password?: string; next?: string; shot?: string } = {}): Promise<Response> {
    await this.goto(options.next === undefined ? '/signin' : `/signin?next=${encodeURIComponent(options.next)}`);
    return this.fillSignIn(email, options.password ?? testPassword, options.shot);
  }

  /** Fills the sign-in form the page shows and submits it. */
  async fillSignIn(email: string, password: string, shot?: string): Promise<Response> {
    await this.page.locator('#email').fill(email);
    await this.page.locator('#password').fill(password);
    if (shot !== undefined) await this.check(shot);
    return this.submit(this.page.locator('form[action="/signin"] button[type="submit"]'));
  }

  /** The TOTP secret the enrolment shows (`code.secret`). */
  async totpSecret(): Promise<string> {
    return (await this.page.locator('code.secret').innerText()).replace(/\s+/g, '');
  }

  /** Enters a code on the second-factor page and submits it. */
  async enterCode(code: string): Promise<Response> {
    await this.page.locator('#code').fill(code);
    return this.submit(this.page.locator('form[action="/signin/code"] button[type="submit"]'));
  }

  /**
   * The checks of a visited page, at both widths: a full-page screenshot, axe (no serious or
   * critical violation), no horizontal overflow, and a clean log. Ends at the laptop's width.
   */
  async check(name: string, options: { allowOverflow?: boolean } = {}): Promise<void> {
    const failures: string[] = [];
    for (const size of viewports) {
      await this.page.setViewportSize(size);
      await this.page.screenshot({ path: join(this.suite.shots, `${name}-${size.width}.png`), fullPage: true });
      const violations = await axe(this);
      for (const v of violations)
        failures.push(`axe ${v.impact} ${v.id} at ${size.width}px: ${v.help} (${v.targets.join(' | ')})`);
      const width = await this.evaluate<number>('document.documentElement.scrollWidth');
      if (options.allowOverflow !== true && width > size.width)
        failures.push(`the page is ${width}px wide at a ${size.width}px viewport (it scrolls sideways)`);
    }
    await this.page.setViewportSize(viewports[0]);
    failures.push(...this.problems());
    this.log.length = 0;
    if (failures.length > 0)
      console.error(`${this.suite.name}/${name} (${this.page.url()}):\n  ${failures.join('\n  ')}`);
    assert.deepEqual(failures, [], `${name}: ${this.page.url()}`);
  }
}

/** Runs axe-core in the page (evaluated over the DevTools protocol, outside the page's CSP); its serious and critical violations. */
export async function axe(cp: ConsolePage): Promise<AxeViolation[]> {
  if ((await cp.evaluate<string>('typeof window.axe')) !== 'object') await cp.evaluate(axeSource);
  const violations = await cp.evaluate<AxeViolation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 6).map((n) => n.target.join(' ')) })))`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The status the request before a redirect answered (a form's POST that answered 303), if there was one. */
export async function redirectStatus(res: Response): Promise<number | undefined> {
  const from = res.request().redirectedFrom();
  return from === null ? undefined : (await from.response())?.status();
}

/** A TOTP code of a secret, `offsetSteps` 30-second steps from now. */
export function codeOf(secret: string, offsetSteps = 0): string {
  return totpCode(secret, new Date(Date.now() + offsetSteps * 30_000));
}

/** A six-digit code that is none of the secret's codes around now (a wrong code, surely). */
export function wrongCodeOf(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((s) => codeOf(secret, s)));
  for (let n = 123456; ; n = (n + 111_111) % 1_000_000) {
    const code = String(n).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}
