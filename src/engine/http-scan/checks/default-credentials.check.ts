import { randomBytes } from 'node:crypto';
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
import { isLoginForm, passwordForms, type MarkupForm, type MarkupInput } from './page-markup.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

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
  send(user: string, password: string): Promise<HttpExchange | undefined>;
  isAccepted(baseline: LoginAnswer, attempt: LoginAnswer): boolean;
}

/** The user-name input of a login form: the last text-like input before the password, else the first after it. */
export function userNameInput(form: MarkupForm): MarkupInput | undefined {
  const password = form.inputs.findIndex((i) => i.type === 'password');
  const isTextLike = (i: MarkupInput): boolean => i.name !== '' && ['text', 'email', 'tel', ''].includes(i.type);
  return form.inputs.slice(0, password).filter(isTextLike).at(-1) ?? form.inputs.slice(password + 1).find(isTextLike);
}

/** The urlencoded body of a login form with the given pair (hidden and preset values kept, ticked boxes sent). */
export function loginFormBody(form: MarkupForm, user: string, password: string): string {
  const userInput = userNameInput(form);
  const fields: Array<[string, string]> = [];
  for (const input of form.inputs) {
    if (input.name === '' || ['submit', 'button', 'image', 'reset', 'file'].includes(input.type)) continue;
    if (input.type === 'password') fields.push([input.name, password]);
    else if (input === userInput) fields.push([input.name, user]);
    else if (input.type === 'checkbox' || input.type === 'radio') {
      if (input.isChecked) fields.push([input.name, input.value ?? 'on']);
    } else fields.push([input.name, input.value ?? '']);
  }
  return new URLSearchParams(fields).toString();
}

/** The login forms of a panel page: POST, one password input, a user-name input, an action on the page's host inside the scope. */
function formTargets(page: CrawledPage, context: CheckContext): LoginTarget[] {
  const targets: LoginTarget[] = [];
  for (const { form, action, location } of passwordForms(page)) {
    if (form.method !== 'post' || !isLoginForm(form) || userNameInput(form) === undefined) continue;
    if (action.host !== page.url.host || !context.session.scope.isUrlAllowed(action)) continue;
    if (!isPanelPath(page.url.pathname) && !isPanelPath(action.pathname)) continue;
    const loginPaths = [page.url.pathname, action.pathname];
    targets.push({
      key: `form ${action.href} ${form.inputs.map((i) => i.name).join('&')}`,
      location,
      kind: 'form',
      send: (user, password) =>
        sendCheckRequest(action, context, {
          method: 'POST',
          body: { contentType: 'application/x-www-form-urlencoded', text: loginFormBody(form, user, password) },
          storeCookies: false,
        }),
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
 * Tries the list on one login, one request at a time: a baseline with a random user and
 * password first (random user so that no real account's lockout counter moves), then each pair
 * until one is accepted by a clear signal; a success is confirmed by a second random baseline
 * that still fails. Stops at once on throttling or lockout answers.
 */
async function tryLogin(target: LoginTarget, page: CrawledPage, context: CheckContext): Promise<void> {
  const first = await target.send(random(), random());
  if (first === undefined || first.status === 429 || first.status >= 500) return;
  const baseline = loginAnswerOf(first);
  for (const [user, password] of defaultCredentials) {
    const exchange = await target.send(user, password);
    if (exchange === undefined) return;
    const attempt = loginAnswerOf(exchange);
    if (isThrottled(baseline, attempt)) return;
    if (!target.isAccepted(baseline, attempt)) continue;
    const second = await target.send(random(), random());
    if (second === undefined || target.isAccepted(baseline, loginAnswerOf(second))) return;
    const location = headerValues(exchange, 'location')[0];
    await context.report(
      buildFinding(KIND, {
        location: target.location,
        host: page.origin.host,
        exchange,
        title: `${KIND.title}: ${user}/${password}`,
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
 * Default credentials on administration panels: an HTML login form (POST, one password input)
 * on a panel path (/admin, /login, /manager …) or an HTTP basic challenge (401) on one gets the
 * short list of defaultCredentials, at most once per login and maxLoginsPerOrigin logins per
 * origin, never a form whose action leaves the page's host or the scope. Logins are tried one at
 * a time across the whole scan. One finding per origin and login path.
 */
export function createDefaultCredentialsCheck(): PageCheck {
  const tried = new Set<string>();
  const perOrigin = new Map<string, number>();
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
      for (const target of [...formTargets(page, context), ...basicTarget(page, context)]) {
        const count = perOrigin.get(page.originText) ?? 0;
        if (tried.has(target.key) || count >= maxLoginsPerOrigin) continue;
        tried.add(target.key);
        perOrigin.set(page.originText, count + 1);
        await oneAtATime(() => tryLogin(target, page, context));
      }
    },
  };
}
