import { randomBytes } from 'node:crypto';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { formSubmission } from '../check-kit/html-links.ts';
import { describePoint, injectPayload, type InjectionPoint } from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint } from './active-check.ts';
import { sendCheckRequest } from './check-request.ts';
import type { FindingKind } from './finding-builder.ts';
import {
  headerValue,
  isHtmlResponse,
  type CheckContext,
  type CrawledPage,
  type PageCheck,
} from '../check-kit/page-check.ts';

/** Stable id of the stored cross-site scripting check. */
export const storedXssCheckId = 'stored-xss';

const KIND: FindingKind = {
  checkId: storedXssCheckId,
  title: 'Stored cross-site scripting',
  cwe: 79,
  // No crafted link is needed: every visitor of the page runs the stored script (UI:N).
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:C/C:L/I:L/A:N',
  severity: 'high',
  owasp: 'A03:2021-Injection',
  description:
    'A value submitted through a form is stored and later written into an HTML page without encoding: a canary holding quotes and angle brackets came back verbatim on a page fetched afterwards.',
  risk: "Whoever submits the form plants script that runs in the browser of every visitor of the page in the site's origin, administrators included: session theft, actions on the visitors' behalf, defacement, spreading worms.",
  remediation:
    "Encode stored values for the context they are written into (HTML body, attribute, script) when rendering, with the template engine's auto-escaping; sanitise rich text with an allow-list sanitiser (DOMPurify, OWASP Java HTML Sanitizer) before storing; add a Content-Security-Policy as a second line of defence.",
  references: [
    { link: 'https://owasp.org/www-community/attacks/xss/#stored-xss-attacks', name: 'OWASP: Stored XSS attacks' },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Cross_Site_Scripting_Prevention_Cheat_Sheet.html',
      name: 'OWASP XSS Prevention Cheat Sheet',
    },
  ],
};

/** Pages fetched right after a submission: the answer's redirect and the pages holding the form. */
const maxFollowUps = 4;
/** HTML pages fetched again at the end of the crawl while a canary has not shown up yet. */
export const maxRevisitedPages = 25;

/** A unique payload that breaks out of attributes and opens a tag; 12 hex digits keep it apart from the reflected check's. */
export function storedXssCanary(): string {
  return `"'><prmtr${randomBytes(6).toString('hex')}>`;
}

const CANARY = /"'><prmtr[0-9a-f]{12}>/g;

/** Every stored-XSS canary in a body, with its offset. */
export function findCanaries(body: string): Array<{ value: string; offset: number }> {
  return [...body.matchAll(CANARY)].map((m) => ({ value: m[0], offset: m.index }));
}

/** The identity of a form target: origin and path (the query is the form's business). */
const targetKey = (url: URL): string => `${url.origin}${url.pathname}`;

interface Submission {
  canary: string;
  point: InjectionPoint;
  page: CrawledPage;
}

/**
 * Stored XSS. Each field of each POSTed form gets a unique canary (`"'><prmtr…>`), one field at
 * a time; the direct answer to the submission is not judged (that would be reflection). The
 * canary is looked for, unencoded, in HTML pages fetched afterwards: the answer's redirect target
 * and the crawled pages holding the form (fetched again at once), every page crawled later, and
 * at the end of the crawl the first crawled HTML pages again while a canary is still unseen.
 * Reported at the submission's point with the page where it showed up. One finding per point.
 */
export function createStoredXssCheck(): PageCheck {
  const pending = new Map<string, Submission>();
  const formPages = new Map<string, URL[]>();
  const htmlPages: URL[] = [];

  /** Reports every pending canary `exchange` shows, unless the request itself carried it. */
  const inspectLater = async (exchange: HttpExchange, context: CheckContext, how: string): Promise<void> => {
    if (pending.size === 0 || !isHtmlResponse(exchange)) return;
    const sent = `${decodeSafe(exchange.request.url.href)} ${decodeSafe(exchange.request.body ?? '')}`;
    for (const { value, offset } of findCanaries(exchange.body)) {
      const submission = pending.get(value);
      if (submission === undefined || sent.includes(value.slice(4))) continue;
      pending.delete(value);
      const { point, page } = submission;
      const where = `${exchange.request.method} ${exchange.request.url.pathname}${exchange.request.url.search}`;
      await reportAtPoint(KIND, point, page, context, {
        exchange,
        evidence: { value, offset },
        confirmation: `by a later page: the canary ${JSON.stringify(value)} submitted in ${describePoint(point)} of ${point.method} ${point.url.pathname} shows unencoded at offset ${offset} of ${where} (${how}), a page other than the answer to the submission`,
      });
    }
  };

  const active = createActiveCheck({
    id: storedXssCheckId,
    applies: (point) => point.location === 'body' && point.method === 'POST',
    async test(point, page, context, send) {
      const canary = storedXssCanary();
      pending.set(canary, { canary, point, page });
      const answer = await send(injectPayload(point, canary));
      const followUps: Array<{ url: URL; how: string }> = [];
      const location = answer.status >= 300 && answer.status < 400 ? headerValue(answer, 'location') : undefined;
      const redirect = location === undefined ? undefined : parseUrl(location, point.url);
      if (redirect !== undefined) followUps.push({ url: redirect, how: 'the page the submission redirected to' });
      for (const url of formPages.get(targetKey(point.url)) ?? [])
        followUps.push({ url, how: 'a page holding the form, fetched again' });
      const fetched = new Set<string>();
      for (const { url, how } of followUps) {
        if (!pending.has(canary) || fetched.size >= maxFollowUps || fetched.has(url.href)) continue;
        fetched.add(url.href);
        const later = await sendCheckRequest(url, context);
        if (later !== undefined) await inspectLater(later, context, how);
      }
    },
  });

  return {
    id: storedXssCheckId,
    async inspect(page, context) {
      if (page.links !== undefined) {
        for (const form of page.links.forms) {
          const submission = formSubmission(form, page.url);
          if (submission?.method !== 'POST') continue;
          const pages = formPages.get(targetKey(submission.url)) ?? [];
          if (pages.length < maxFollowUps && !pages.some((u) => u.href === page.url.href))
            formPages.set(targetKey(submission.url), [...pages, page.url]);
        }
        if (
          page.exchange.request.method === 'GET' &&
          page.exchange.status === 200 &&
          htmlPages.length < maxRevisitedPages
        )
          htmlPages.push(page.url);
      }
      await inspectLater(page.exchange, context, 'crawled after the submission');
      await active.inspect(page, context);
    },
    async finish(context) {
      for (const url of htmlPages) {
        if (pending.size === 0 || context.signal.aborted) return;
        const later = await sendCheckRequest(url, context);
        if (later !== undefined) await inspectLater(later, context, 'fetched again at the end of the crawl');
      }
    },
  };
}

function parseUrl(href: string, base: URL): URL | undefined {
  try {
    return new URL(href, base);
  } catch {
    return undefined;
  }
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
