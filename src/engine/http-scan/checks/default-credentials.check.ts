import { randomBytes } from 'node:crypto';
import { pause } from '../check-kit/pause.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { sendCheckRequest } from './check-request.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import { headerValues } from './header-policies.ts';
import {
  describeLoginAnswer,
  isBasicLoginAccepted,
  isFormLoginAccepted,
  isThrottled,
  loginAnswerOf,
  type LoginAnswer,
} from './login-outcome.ts';
import { isLoginForm, parsePageMarkup, passwordForms, type MarkupForm, type MarkupInput } from './page-markup.ts';
import { sendAsFreshVisitor, setCookiePairs } from './fresh-visitor.ts';
import { isHtmlResponse, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the default-credentials check. */
export const defaultCredentialsCheckId = 'default-credentials';

/** The short list tried on each recognised login, in order: at most this many attempts per login. */
export const defaultCredentials: ReadonlyArray<readonly [user: string, password: string]> = [
  ['admin', 'admin'],
  ['admin', 'password'],
  ['root', 'root'],
  ['tomcat', 'tomcat'],
  ['admin', 'changeme'],
];

/** Logins tried per origin at most. */
export const maxLoginsPerOrigin = 5;

/** The pause between two attempts on a login (rate limiting, kinder to lockout counters). */
export const attemptPauseMs = 200;

const KIND: FindingKind = {
  checkId: defaultCredentialsCheckId,
  title: 'Default credentials accepted on an administration login',
  cwe: 1392,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  severity: 'critical',
  owasp: 'A07:2021-Identification and Authentication Failures',
  description: 'A login of an administration panel accepts a well-known default user name and password.',
  risk: 'Anyone can log in as an administrator: read and change all data, create accounts, and on many panels (Tomcat manager, CMS admin) deploy code and take over the server.',
  remediation:
    'Change the password of the account now (and of every account still on a vendor default), remove or disable unused default accounts, restrict the panel to trusted networks, and add rate limiting and multi-factor authentication.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/04-Authentication_Testing/02-Testing_for_Default_Credentials',
      name: 'OWASP WSTG: Testing for default credentials',
    },
    {
      link: 'https://owasp.org/Top10/A07_2021-Identification_and_Authentication_Failures/',
      name: 'OWASP Top 10 2021 A07',
    },
  ],
};

/** The same finding on the application's own login form (a page that is no administration panel). */
const APPLICATION_KIND: FindingKind = {
  ...KIND,
  title: "Default credentials accepted on the application's login",
  description: "The application's own login form accepts a well-known default user name and password.",
  risk: 'Anyone can log in as that account, often the first administrator the installation created: read and change its data and use every function it may use.',
};

/** Paths of administration panels and logins (a segment, optionally with a script extension). */
const PANEL_PATH =
  /(?:^|\/)(?:admin|administrator|manager|login|log-in|signin|sign-in|logon|wp-login|wp-admin|phpmyadmin|console|cpanel|webadmin)(?:\.(?:php|aspx?|jsp|html?|cgi))?(?:\/|$)/i;

/** True for a path of a known kind of administration panel or login page. */
export function isPanelPath(pathname: string): boolean {
  return PANEL_PATH.test(pathname);
}

/** One login the check may try: how to send a pair and how to judge the answer. */
interface LoginTarget {
  key: string;
  location: string;
  /** `form` or `basic`, for the evidence sentence. */
  kind: string;
  findingKind: FindingKind;
  send(user: string, password: string): Promise<HttpExchange | undefined>;
  isAccepted(baseline: LoginAnswer, attempt: LoginAnswer): boolean;
}

/** The user-name input of a login form: the last text-like input before the password, else the first after it. */
export function userNameInput(form: MarkupForm): MarkupInput | undefined {
  const password = form.inputs.findIndex((i) => i.type === 'password');
  const isTextLike = (i: MarkupInput): boolean => i.name !== '' && ['text', 'email', 'tel', ''].includes(i.type);
  return form.inputs.slice(0, password).filter(isTextLike).at(-1) ?? form.inputs.slice(password + 1).find(isTextLike);
}

/**
 * The urlencoded body of a login form with the given pair as a browser sends it when the first
 * submit button is clicked: hidden and preset values kept, ticked boxes sent, and the first
 * named submit input's `name=value` (handlers often run only when it is present).
 */
export function loginFormBody(form: MarkupForm, user: string, password: string): string {
  const userInput = userNameInput(form);
  const fields: Array<[string, string]> = [];
  const button = form.inputs.find((i) => i.type === 'submit');
  for (const input of form.inputs) {
    if (input === button && input.name !== '') fields.push([input.name, input.value ?? 'Submit']);
    if (input.name === '' || ['submit', 'button', 'image', 'reset', 'file'].includes(input.type)) continue;
    if (input.type === 'password') fields.push([input.name, password]);
    else if (input === userInput) fields.push([input.name, user]);
    else if (input.type === 'checkbox' || input.type === 'radio') {
      if (input.isChecked) fields.push([input.name, input.value ?? 'on']);
    } else fields.push([input.name, input.value ?? '']);
  }
  return new URLSearchParams(fields).toString();
}

/** The same login form on a page fetched again: same action and same input names. */
function sameForm(fresh: MarkupForm, form: MarkupForm, page: URL, action: URL): boolean {
  let freshAction: URL;
  try {
    freshAction = new URL(fresh.action === '' ? page.href : fresh.action, page);
  } catch {
    return false;
  }
  freshAction.hash = '';
  const names = (f: MarkupForm): string =>
    f.inputs
      .map((i) => i.name)
      .sort()
      .join('&');
  return freshAction.href === action.href && names(fresh) === names(form);
}

/**
 * Sends one pair to a login form as a fresh visitor: the form's page is fetched again without
 * the scan's cookies, and the pair posted with the cookies that page set and the form's hidden
 * values as it served them (an anti-CSRF token bound to that session); the scan's own session
 * is never touched. Where the page does not serve the form to a fresh visitor, the crawled form
 * is posted with the scan's cookies (nothing kept).
 */
async function sendLoginForm(
  page: CrawledPage,
  form: MarkupForm,
  action: URL,
  context: CheckContext,
  user: string,
  password: string,
): Promise<HttpExchange | undefined> {
  const fresh = await sendAsFreshVisitor(page.url, context);
  const freshForm =
    fresh === undefined || fresh.status !== 200
      ? undefined
      : parsePageMarkup(fresh.body).forms.find((f) => sameForm(f, form, page.url, action));
  if (fresh !== undefined && freshForm !== undefined) {
    const cookie = setCookiePairs(fresh)
      .map(([n, v]) => `${n}=${v}`)
      .join('; ');
    return sendAsFreshVisitor(action, context, {
      method: 'POST',
      body: { contentType: 'application/x-www-form-urlencoded', text: loginFormBody(freshForm, user, password) },
      cookie,
    });
  }
  return sendCheckRequest(action, context, {
    method: 'POST',
    body: { contentType: 'application/x-www-form-urlencoded', text: loginFormBody(form, user, password) },
    storeCookies: false,
  });
}

/**
 * The login forms of a page: POST, one password input, a user-name input, an action on the
 * page's host inside the scope. Panel paths get the administration title, other pages the
 * application's.
 */
function formTargets(page: CrawledPage, context: CheckContext): LoginTarget[] {
  const targets: LoginTarget[] = [];
  for (const { form, action, location } of passwordForms(page)) {
    if (form.method !== 'post' || !isLoginForm(form) || userNameInput(form) === undefined) continue;
    if (action.host !== page.url.host || !context.session.scope.isUrlAllowed(action)) continue;
    const isPanel = isPanelPath(page.url.pathname) || isPanelPath(action.pathname);
    const loginPaths = [page.url.pathname, action.pathname];
    targets.push({
      key: `form ${action.href} ${form.inputs.map((i) => i.name).join('&')}`,
      location,
      kind: isPanel ? 'form' : "the application's login form",
      findingKind: isPanel ? KIND : APPLICATION_KIND,
      send: (user, password) => sendLoginForm(page, form, action, context, user, password),
      isAccepted: (baseline, attempt) => isFormLoginAccepted(baseline, attempt, loginPaths),
    });
  }
  return targets;
}

/** A panel path that challenges for HTTP basic authentication (unless the profile brings its own basic auth). */
function basicTarget(page: CrawledPage, context: CheckContext): LoginTarget[] {
  const challenge = headerValues(page.exchange, 'www-authenticate').some((v) => /^\s*basic\b/i.test(v));
  if (
    page.exchange.status !== 401 ||
    !challenge ||
    !isPanelPath(page.url.pathname) ||
    context.session.settings.basic_auth !== null
  )
    return [];
  const url = new URL(page.url.href);
  return [
    {
      key: `basic ${page.originText}${url.pathname}`,
      location: `${page.originText}${url.pathname}`,
      kind: 'HTTP basic authentication',
      findingKind: KIND,
      send: (user, password) =>
        sendCheckRequest(url, context, {
          headers: [
            { name: 'authorization', value: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` },
          ],
          storeCookies: false,
        }),
      isAccepted: isBasicLoginAccepted,
    },
  ];
}

const random = (): string => `perimeter-${randomBytes(6).toString('hex')}`;

/**
 * The pairs of the list to try, given the profile's login fields: no pair of the profile's own
 * user with another password than its own (failures must not move the lockout counter of the
 * account the scan logs in with). The profile's own pair stays when it is on the list: it is
 * then a default password in use, and reported. The password is the value of a field named
 * like a password (any value when none is), the user any other field's value.
 */
export function pairsToTry(
  profileFields: ReadonlyArray<{ name: string; value: string }>,
): ReadonlyArray<readonly [user: string, password: string]> {
  const isPassword = (name: string): boolean => /pass|pwd/i.test(name);
  const hasPasswordField = profileFields.some((f) => isPassword(f.name));
  const passwords = new Set(profileFields.filter((f) => !hasPasswordField || isPassword(f.name)).map((f) => f.value));
  const users = new Set(profileFields.filter((f) => !hasPasswordField || !isPassword(f.name)).map((f) => f.value));
  return defaultCredentials.filter(([user, password]) => !users.has(user) || passwords.has(password));
}

/**
 * Tries the list on one login, one request at a time: a baseline with a random user and
 * password first (random user so that no real account's lockout counter moves), then each pair
 * until one is accepted by a clear signal; a success is confirmed by a second random baseline
 * that still fails. Stops at once on throttling or lockout answers.
 */
async function tryLogin(target: LoginTarget, page: CrawledPage, context: CheckContext): Promise<void> {
  const first = await target.send(random(), random());
  if (first === undefined || first.status === 429 || first.status >= 500) return;
  const baseline = loginAnswerOf(first);
  for (const [user, password] of pairsToTry(context.session.settings.login?.fields ?? [])) {
    await pause(attemptPauseMs, context.signal);
    if (context.signal.aborted) return;
    const exchange = await target.send(user, password);
    if (exchange === undefined) return;
    const attempt = loginAnswerOf(exchange);
    if (isThrottled(baseline, attempt)) return;
    if (!target.isAccepted(baseline, attempt)) continue;
    await pause(attemptPauseMs, context.signal);
    const second = await target.send(random(), random());
    if (second === undefined || target.isAccepted(baseline, loginAnswerOf(second))) return;
    const location = headerValues(exchange, 'location')[0];
    await context.report(
      buildFinding(target.findingKind, {
        location: target.location,
        host: page.origin.host,
        exchange,
        title: `${target.findingKind.title}: ${user}/${password}`,
        observation: `Confirmed against a failed baseline, twice: ${target.kind} at ${page.url.href} answered ${user}/${password} with ${describeLoginAnswer(attempt)}, while random credentials got ${describeLoginAnswer(baseline)} before and ${describeLoginAnswer(loginAnswerOf(second))} after.`,
        ...(location === undefined
          ? {}
          : {
              extraHighlights: [
                { field: 'response.headers.location', value: location, offset: 0, length: location.length },
              ],
            }),
      }),
    );
    return;
  }
}

/**
 * The page of the profile's login form (settings.login.url) on the page's origin, fetched as a
 * fresh visitor: a logged-in crawl never lands on it (the session machinery uses it apart), yet
 * it is the application's own login. Undefined without a profile login, on another origin, or
 * when the page does not answer HTML.
 */
async function profileLoginPage(page: CrawledPage, context: CheckContext): Promise<CrawledPage | undefined> {
  const login = context.session.settings.login;
  if (login === null) return undefined;
  let url: URL;
  try {
    url = new URL(login.url, `${page.originText}/`);
  } catch {
    return undefined;
  }
  url.hash = '';
  if (url.origin !== page.url.origin) return undefined;
  const exchange = await sendAsFreshVisitor(url, context);
  if (exchange === undefined || exchange.status !== 200 || !isHtmlResponse(exchange)) return undefined;
  return { ...page, url, exchange, isHtml: true, links: undefined };
}

/**
 * Default credentials on administration panels and on the application's own login: any HTML
 * login form (POST, one password input, a user-name input) and an HTTP basic challenge (401)
 * on a panel path (/admin, /login, /manager …) get the short list of defaultCredentials
 * (pairsToTry: the profile's user only with its own password), at most once per login and maxLoginsPerOrigin logins
 * per origin, never a form whose action leaves the page's host or the scope. Form attempts are
 * sent as a fresh visitor (sendLoginForm); the profile's login page is visited for its form
 * once per origin (profileLoginPage); logins are tried one at a time across the whole scan,
 * attemptPauseMs apart. One finding per origin and login path.
 */
export function createDefaultCredentialsCheck(): PageCheck {
  const tried = new Set<string>();
  const perOrigin = new Map<string, number>();
  const visitedLogins = new Set<string>();
  // Every login of the scan waits for the previous one: one attempt in flight at any time.
  let lane: Promise<void> = Promise.resolve();
  const oneAtATime = (task: () => Promise<void>): Promise<void> => {
    const run = lane.then(task);
    lane = run.catch(() => undefined);
    return run;
  };
  return {
    id: defaultCredentialsCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      const pages = [page];
      if (!visitedLogins.has(page.originText)) {
        visitedLogins.add(page.originText);
        const loginPage = await profileLoginPage(page, context);
        if (loginPage !== undefined) pages.unshift(loginPage);
      }
      for (const current of pages)
        for (const target of [...formTargets(current, context), ...basicTarget(current, context)]) {
          const count = perOrigin.get(current.originText) ?? 0;
          if (tried.has(target.key) || count >= maxLoginsPerOrigin) continue;
          tried.add(target.key);
          perOrigin.set(current.originText, count + 1);
          await oneAtATime(() => tryLogin(target, current, context));
        }
    },
  };
}
