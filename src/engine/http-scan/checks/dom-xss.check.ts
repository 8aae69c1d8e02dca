import type { PageRenderer, RenderedPage } from '../browser/page-renderer.ts';
import { canaryFunctionName, hasScript } from '../browser/page-renderer.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import { xssToken } from './reflected-xss.check.ts';

/** Stable id of the DOM-based cross-site scripting check. */
export const domXssCheckId = 'dom-xss';

const KIND: FindingKind = {
  checkId: domXssCheckId,
  title: 'DOM-based cross-site scripting',
  cwe: 79,
  // Like reflected XSS: the victim must open a crafted link (UI:R); the script runs in the site's origin (S:C).
  cvssVector: 'AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
  cvss2Vector: 'AV:N/AC:M/Au:N/C:N/I:P/A:N',
  severity: 'medium',
  owasp: 'A03:2021-Injection',
  description:
    "A script of the page takes a value from the page's URL (its fragment or a query parameter) and writes it into an HTML sink (innerHTML, document.write, a jQuery html() call) or evaluates it as code: a payload put into the URL ran in a real browser and called the scanner's canary function.",
  risk: "A link crafted by an attacker runs script in the victim's browser in the site's origin: session theft, actions on the user's behalf, page defacement. A payload in the fragment never reaches the server, so server-side filters and logs do not see it.",
  remediation:
    "Do not write values taken from `location` (hash, search, href) or from `document.referrer` into HTML: use `textContent`, `setAttribute` on safe attributes, or DOM construction instead of `innerHTML`/`document.write`, and never pass them to `eval`, `setTimeout(string)` or `new Function`. Where HTML is needed, sanitise it with an allow-list sanitiser (DOMPurify), enable Trusted Types (`require-trusted-types-for 'script'`), and add a Content-Security-Policy without 'unsafe-inline' as a second line of defence.",
  references: [
    { link: 'https://owasp.org/www-community/attacks/DOM_Based_XSS', name: 'OWASP: DOM Based XSS' },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/DOM_based_XSS_Prevention_Cheat_Sheet.html',
      name: 'OWASP DOM based XSS Prevention Cheat Sheet',
    },
  ],
};

/** Pages (by path and parameter names) tested per scan at most: each costs a few browser loads. */
export const maxDomXssPages = 25;
/** Parameter names a page's scripts read that are tried besides the URL's own, per page at most. */
const maxScriptParameters = 5;

/** Payloads of one browser load each, every point with its own token: an HTML sink, then script code in single and double quotes (or bare). */
const payloads: ReadonlyArray<{ name: string; make: (token: string) => string }> = [
  { name: 'an element with an event handler', make: (t) => `<img src=x onerror=${canaryFunctionName}('${t}')>` },
  { name: 'a single-quoted script string breakout', make: (t) => `'-${canaryFunctionName}('${t}')-'` },
  { name: 'a double-quoted script string breakout', make: (t) => `"-${canaryFunctionName}('${t}')-"` },
];

/** Script code that runs strings as code: eval, new Function, setTimeout/setInterval given a string. */
const EVALUATES_CODE = /\beval\s*\(|\bFunction\s*\(|\bset(?:Timeout|Interval)\s*\(\s*(?:['"`]|[\w$.]+\s*\+)/;

/** Where a payload goes: the fragment or a query parameter. */
interface DomPoint {
  kind: 'fragment' | 'query';
  name: string;
}

/** `get('name')` calls of scripts that read the URL's query (URLSearchParams, location.search). */
const SEARCH_PARAMETER_READ = /\.get\(\s*['"]([A-Za-z0-9_.[\]-]{1,40})['"]\s*\)/g;

/** Names of query parameters a page's inline scripts read from its URL. */
export function scriptParameterNames(scripts: string[]): string[] {
  const names = new Set<string>();
  for (const code of scripts) {
    if (!/\blocation\b|URLSearchParams/.test(code)) continue;
    for (const m of code.matchAll(SEARCH_PARAMETER_READ)) if (m[1] !== undefined) names.add(m[1]);
  }
  return [...names].slice(0, maxScriptParameters);
}

/** The points of a page: its fragment, its query parameters, and the parameters its scripts read. */
function pointsOf(page: CrawledPage): DomPoint[] {
  const names = new Set([...page.url.searchParams.keys(), ...scriptParameterNames(page.links?.scripts ?? [])]);
  return [{ kind: 'fragment', name: '#' }, ...[...names].map((name) => ({ kind: 'query' as const, name }))];
}

/** A human name of a point. */
const describe = (point: DomPoint): string =>
  point.kind === 'fragment' ? 'the URL fragment' : `query parameter ${point.name}`;

/** The finding's location: `origin/path#` for the fragment, `origin/path?name=` for a query parameter. */
const locationOf = (page: CrawledPage, point: DomPoint): string =>
  `${page.originText}${page.url.pathname}${point.kind === 'fragment' ? '#' : `?${encodeURIComponent(point.name)}=`}`;

/** The URL of one load: each point holds the payload made with its own token. */
function payloadUrl(page: CrawledPage, points: Array<{ point: DomPoint; value: string }>): URL {
  const url = new URL(page.url.href);
  url.hash = '';
  for (const { point, value } of points) {
    if (point.kind === 'query') url.searchParams.set(point.name, value);
    else url.hash = value;
  }
  return url;
}

/**
 * DOM-based XSS, with the scan's page renderer (render_javascript). Each crawled HTML page with
 * a script (a GET answered 200; one per path and parameter names, up to maxDomXssPages) is loaded in the
 * browser with a payload in its fragment and in each query parameter (its own and those its
 * inline scripts read), every point with its own random token: first an element whose event
 * handler calls the canary function, then script-string breakouts (only where the page's scripts
 * evaluate strings, or the first form reached an HTML sink without running). A finding only
 * when the canary is called with a token of that load and the server's answer did not hold it
 * (that is reflected XSS): the payload ran in the page. Evidence: the URL that ran it,
 * the point, and the HTML sink whose value held the token (else script code). One finding per
 * point.
 */
export function createDomXssCheck(renderer: PageRenderer): PageCheck {
  const testedPages = new Set<string>();
  const reported = new Set<string>();

  const report = async (
    page: CrawledPage,
    point: DomPoint,
    url: URL,
    payload: string,
    form: string,
    rendered: RenderedPage,
    sink: string,
    context: CheckContext,
  ): Promise<void> => {
    const how = sink === '' ? 'as script code' : `through ${sink}`;
    await context.report(
      buildFinding(KIND, {
        location: locationOf(page, point),
        host: page.origin.host,
        exchange: rendered.document ?? page.exchange,
        title: `${KIND.title}: ${describe(point)}`,
        observation: `${KIND.title} in ${describe(point)} of GET ${page.url.pathname}. Confirmed in headless Chromium: ${url.href} was loaded with ${JSON.stringify(payload)} (${form}) in ${describe(point)}, the page's script wrote it ${how}, and the payload ran, calling ${canaryFunctionName} with that load's token.`,
      }),
    );
  };

  return {
    id: domXssCheckId,
    async inspect(page, context) {
      if (!page.isHtml || page.exchange.request.method !== 'GET' || page.exchange.status !== 200) return;
      // A page without scripts writes nothing into its DOM.
      if (!hasScript(page.exchange.body)) return;
      const points = pointsOf(page);
      const pageKey = `${page.originText}${page.url.pathname}?${points.map((p) => p.name).join('&')}`;
      if (testedPages.has(pageKey) || testedPages.size >= maxDomXssPages) return;
      testedPages.add(pageKey);
      let evaluatesCode = false;
      const reachedSink = new Set<DomPoint>();
      for (const [index, payload] of payloads.entries()) {
        // Script-string forms only where a script evaluates strings, or the markup form reached a sink without running.
        const open = points.filter(
          (point) => !reported.has(locationOf(page, point)) && (index === 0 || evaluatesCode || reachedSink.has(point)),
        );
        if (open.length === 0 || context.signal.aborted) return;
        const sent = open.map((point) => {
          const token = xssToken();
          return { point, token, value: payload.make(token) };
        });
        const url = payloadUrl(page, sent);
        const rendered = await renderer.render(url);
        if (rendered === undefined) return;
        if (index === 0) evaluatesCode = rendered.scripts.some((code) => EVALUATES_CODE.test(code));
        for (const s of sent) if (rendered.sinkWrites.some((w) => w.value.includes(s.token))) reachedSink.add(s.point);
        for (const call of rendered.canaryCalls) {
          const hit = sent.find((s) => s.token === call.token);
          if (hit === undefined || reported.has(locationOf(page, hit.point))) continue;
          // The server wrote the payload into its answer: reflected XSS (the reflected-xss check's), not DOM-based.
          if (rendered.document?.body.includes(hit.token) === true) continue;
          reported.add(locationOf(page, hit.point));
          await report(page, hit.point, url, hit.value, payload.name, rendered, call.sink, context);
        }
      }
    },
  };
}
