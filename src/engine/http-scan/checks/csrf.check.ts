import { Cookie } from 'tough-cookie';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';
import { buildFinding, type BodyEvidence, type FindingKind } from './finding-builder.ts';
import { markupOf, passwordInputs, type MarkupForm } from './page-markup.ts';
import { sessionCookieName } from './session-id.check.ts';

/** Stable id of the cross-site request forgery check. */
export const csrfCheckId = 'csrf';

const KIND: FindingKind = {
  checkId: csrfCheckId,
  title: 'State-changing form without anti-CSRF protection',
  cwe: 352,
  cvssVector: 'AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N',
  cvss2Vector: 'AV:N/AC:M/Au:N/C:N/I:P/A:N',
  severity: 'low',
  owasp: 'A01:2021-Broken Access Control',
  description:
    'A form that changes state is sent with the session cookie and carries no anti-CSRF token, and the session cookie is not SameSite=Strict (nor SameSite=Lax for a POST form): another site can make a logged-in visitor submit it.',
  risk: "A page on any site the victim visits while logged in can submit the form in the victim's name: change their password or e-mail address, transfer money, delete data.",
  remediation:
    "Add a per-session (or per-request) secret token to every state-changing form and check it on the server (the framework's CSRF protection: Django's `{% csrf_token %}`, Laravel's `@csrf`, Spring Security, `csurf`-like middleware); make state changes POST-only; mark the session cookie `SameSite=Lax` or `Strict`; ask for the current password before a password or e-mail change.",
  references: [
    { link: 'https://owasp.org/www-community/attacks/csrf', name: 'OWASP: Cross-site request forgery' },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html',
      name: 'OWASP CSRF Prevention Cheat Sheet',
    },
  ],
};

/** Names of hidden fields that carry an anti-CSRF token. */
const TOKEN_NAME =
  /csrf|xsrf|token|nonce|authenticity|antiforgery|anti-forgery|verification|__requestdigest|__viewstate|_wpnonce|user_token|state/i;
/** Words of a GET form that changes state (a password change, an update, a transfer …). */
const STATE_CHANGING =
  /pass(?:word|wd)?[_-]?(?:new|conf|change)|new[_-]?pass|change|update|delete|remove|transfer|amount|withdraw|payment|email|role|grant|revoke|create|save/i;
/** A search form: its action or a field says so. */
const SEARCH = /(?:^|[^a-z])(?:search|query|q|s|keywords?|term|find|filter)(?:[^a-z]|$)/i;

/** True for a hidden field value that looks like a secret token: 16+ characters of token alphabets and at least 64 bits estimated. */
export function looksLikeTokenValue(value: string): boolean {
  if (!/^[A-Za-z0-9+/=_.:-]{16,}$/.test(value)) return false;
  const distinct = new Set(value).size;
  return distinct >= 8 && value.length * Math.log2(distinct) >= 64;
}

/** The hidden field of a form that carries an anti-CSRF token (by name, or by a secret-looking value), or undefined. */
export function csrfTokenField(form: MarkupForm): string | undefined {
  for (const input of form.inputs) {
    if (input.type !== 'hidden' || input.name === '') continue;
    if (TOKEN_NAME.test(input.name) || looksLikeTokenValue(input.value ?? '')) return input.name;
  }
  return undefined;
}

/** The names a form sends (inputs with a name, buttons included), for keys and sentences. */
function fieldNames(form: MarkupForm): string[] {
  return form.inputs.map((i) => i.name).filter((n) => n !== '');
}

/** An action that names a login (`/login`, `/signin.php`, `/auth`): a first step of a login asks for the user name alone. */
const LOGIN_ACTION = /(?:^|\/)(?:log-?in|sign-?in|log-?on|auth|authenticate)(?:\.\w+)?(?:[/?#]|$)/i;

/** True for a login form: one password input, or an action naming a login (login CSRF is out of scope here). */
function isLogin(form: MarkupForm): boolean {
  return passwordInputs(form).length === 1 || LOGIN_ACTION.test(form.action);
}

/** True for a search form: its action or one of its text fields is named like a search. */
function isSearch(form: MarkupForm): boolean {
  const texts = form.inputs.filter((i) => ['text', 'search', ''].includes(i.type) && i.name !== '');
  return (
    form.inputs.some((i) => i.type === 'search') ||
    /search/i.test(form.action) ||
    (texts.length === 1 && SEARCH.test(texts[0]!.name))
  );
}

/**
 * Whether a form changes state: a POST form (not a login or search form), or a GET form with a
 * password input, or whose action, field names or button labels name a change (update, delete,
 * transfer, e-mail …); undefined for neither, else the method the attack would use.
 */
export function stateChangingMethod(form: MarkupForm): 'GET' | 'POST' | undefined {
  if (isLogin(form) || isSearch(form)) return undefined;
  if (form.method === 'post') return 'POST';
  if (form.method !== 'get') return undefined;
  if (passwordInputs(form).length >= 2) return 'GET';
  const words = [
    form.action,
    ...fieldNames(form),
    ...form.inputs.filter((i) => i.type === 'submit').map((i) => i.value ?? ''),
  ];
  return words.some((w) => STATE_CHANGING.test(w)) ? 'GET' : undefined;
}

/** A session cookie the origin uses: its path and SameSite attribute (lower-case, '' when absent). */
export interface SessionCookie {
  name: string;
  path: string;
  sameSite: string;
}

/**
 * True when the session cookies that would go with a request to `path` leave a `method`
 * cross-site request open: some cookie applies whose SameSite is not Strict, and for POST not
 * an explicit Lax either (Lax keeps the cookie off cross-site POSTs; a GET navigation still
 * carries it). False when no session cookie applies.
 */
export function isCrossSiteOpen(cookies: SessionCookie[], path: string, method: 'GET' | 'POST'): boolean {
  const applying = cookies.filter(
    (c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
  );
  return applying.some((c) => c.sameSite !== 'strict' && !(method === 'POST' && c.sameSite === 'lax'));
}

/** A form waiting for a session cookie to be seen. */
interface Candidate {
  page: CrawledPage;
  action: URL;
  method: 'GET' | 'POST';
  form: MarkupForm;
  formIndex: number;
}

/** The `<form …>` tag of the n-th form of a body, as evidence. */
function formTag(body: string, index: number): BodyEvidence | undefined {
  const match = [...body.matchAll(/<form\b[^>]*>/gi)][index];
  return match === undefined ? undefined : { value: match[0], offset: match.index };
}

/**
 * Missing anti-CSRF protection, passive: each state-changing form of the crawled pages
 * (stateChangingMethod) whose action stays on the page's origin and that carries no token
 * (csrfTokenField) is reported when a session cookie goes with its action: a cookie of the
 * profile, or one a crawled page set with a session-like name and a path covering the action,
 * not SameSite=Strict, and for a POST form not an explicit SameSite=Lax either. A profile login
 * counts as a session cookie of unknown attributes. Forms seen before their origin's session
 * cookie wait until the end of the crawl. Once per form (method, action and field names), at
 * the action's path.
 */
export function createCsrfCheck(): PageCheck {
  const cookies = new Map<string, SessionCookie[]>();
  const seen = new Set<string>();
  const waiting: Candidate[] = [];

  const cookiesOf = (page: CrawledPage, context: CheckContext): SessionCookie[] => {
    const settings = context.session.settings;
    const fromProfile =
      settings.session_cookie !== null ||
      settings.custom_cookies.length > 0 ||
      settings.custom_headers.some((h) => h.name.toLowerCase() === 'cookie') ||
      settings.login !== null;
    return [
      ...(cookies.get(page.originText) ?? []),
      ...(fromProfile ? [{ name: '(profile)', path: '/', sameSite: '' }] : []),
    ];
  };

  const report = async (candidate: Candidate, context: CheckContext): Promise<void> => {
    const { page, action, method, form, formIndex } = candidate;
    const evidence = formTag(page.exchange.body, formIndex);
    const applying = cookiesOf(page, context)
      .filter((c) => isCrossSiteOpen([c], action.pathname, method))
      .map((c) =>
        c.name === '(profile)'
          ? "the profile's session"
          : `session cookie ${c.name} (SameSite ${c.sameSite === '' ? 'absent' : c.sameSite})`,
      );
    await context.report(
      buildFinding(KIND, {
        location: `${page.originText}${action.pathname}`,
        host: page.origin.host,
        exchange: page.exchange,
        ...(evidence === undefined ? {} : { evidence }),
        title: `${KIND.title}: ${method} ${action.pathname}`,
        observation: `The ${method} form of ${page.url.pathname}${page.url.search} sending ${fieldNames(form).join(', ') || 'no field'} to ${action.pathname} carries no anti-CSRF token (no hidden field named like one, none with a secret-looking value), and ${applying.join(' and ')} ${applying.length === 1 ? 'goes' : 'go'} with a cross-site ${method} to it.`,
      }),
    );
  };

  return {
    id: csrfCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      for (const header of page.exchange.headers) {
        if (header.name !== 'set-cookie') continue;
        const cookie = Cookie.parse(header.value, { loose: true });
        if (cookie === undefined || !sessionCookieName.test(cookie.key) || cookie.value === '') continue;
        const known = cookies.get(page.originText) ?? [];
        const sameSite = (typeof cookie.sameSite === 'string' ? cookie.sameSite : '').toLowerCase();
        const entry = { name: cookie.key, path: cookie.path ?? '/', sameSite: sameSite === 'none' ? 'none' : sameSite };
        if (!known.some((c) => c.name === entry.name && c.path === entry.path))
          cookies.set(page.originText, [...known, entry]);
      }
      if (!page.isHtml || !/<form\b/i.test(page.exchange.body)) return;
      const forms = markupOf(page).forms;
      for (const [formIndex, form] of forms.entries()) {
        const method = stateChangingMethod(form);
        if (method === undefined || csrfTokenField(form) !== undefined) continue;
        let action: URL;
        try {
          action = new URL(form.action === '' ? page.url.href : form.action, page.url);
        } catch {
          continue;
        }
        if (action.origin !== page.url.origin) continue;
        const key = `${page.originText} ${method} ${action.pathname} ${fieldNames(form).sort().join('&')}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const candidate = { page, action, method, form, formIndex };
        if (isCrossSiteOpen(cookiesOf(page, context), action.pathname, method)) await report(candidate, context);
        else waiting.push(candidate);
      }
    },
    async finish(context: CheckContext): Promise<void> {
      for (const candidate of waiting.splice(0)) {
        if (isCrossSiteOpen(cookiesOf(candidate.page, context), candidate.action.pathname, candidate.method))
          await report(candidate, context);
      }
    },
  };
}
