import { randomBytes } from 'node:crypto';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { sendCheckRequest } from './check-request.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';
import { bodyEvidence } from './page-markup.ts';

/** Stable id of the HTTP methods check (TRACE and PUT). */
export const httpMethodsCheckId = 'http-methods';

/** The header whose echo proves TRACE. */
export const traceMarkerHeader = 'x-perimeter-trace';

/** The only paths this check sends TRACE and PUT to: paths of its own, never a page of the site. */
export const tracePathPattern = /^\/perimeter-trace-[0-9a-f]{16}$/;
export const putCanaryPathPattern = /^\/perimeter-put-[0-9a-f]{16}\.txt$/;

const METHODS_REFERENCE = {
  link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/06-Test_HTTP_Methods',
  name: 'OWASP WSTG: Test HTTP methods',
};

const TRACE: FindingKind = {
  checkId: httpMethodsCheckId,
  title: 'HTTP TRACE method enabled (cross-site tracing)',
  cwe: 693,
  cvssVector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
  severity: 'low',
  owasp: 'A05:2021-Security Misconfiguration',
  description: 'The server answers TRACE requests by echoing the request, headers included.',
  risk: 'Combined with a script injection or a browser or proxy flaw, TRACE reveals headers scripts may not read, such as HttpOnly cookies and Authorization (cross-site tracing); it also tells an attacker what proxies add.',
  remediation:
    'Disable TRACE (and TRACK) in the web server or proxy: `TraceEnable off` in Apache, `allowTrace="false"` in Tomcat; nginx refuses it by default.',
  references: [
    { link: 'https://owasp.org/www-community/attacks/Cross_Site_Tracing', name: 'OWASP: Cross Site Tracing' },
    METHODS_REFERENCE,
  ],
};

const PUT: FindingKind = {
  checkId: httpMethodsCheckId,
  title: 'HTTP PUT accepted: anyone can write files to the server',
  cwe: 650,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:N',
  severity: 'high',
  owasp: 'A01:2021-Broken Access Control',
  description:
    'An unauthenticated PUT created a file on the web server: the scanner wrote a canary file to a path of its own and read it back with GET.',
  risk: 'An attacker can upload pages with scripts (stored XSS, phishing), overwrite content, or upload server-side code where the server executes it.',
  remediation:
    "Disable PUT (and DELETE) for unauthenticated users in the web server (WebDAV modules, `Dav Off`, Tomcat DefaultServlet `readonly=true`) or require authentication and authorisation. Remove the scanner's canary file (`/perimeter-put-….txt`): the scanner never sends DELETE.",
  references: [
    METHODS_REFERENCE,
    {
      link: 'https://owasp.org/www-community/vulnerabilities/Unrestricted_File_Upload',
      name: 'OWASP: Unrestricted file upload',
    },
  ],
};

const token = (): string => randomBytes(8).toString('hex');

/** Reports `kind` at `origin/?method=METHOD` when the answer is a 200 holding `proof` (the echoed marker, the read-back canary). */
async function reportWhenAnswered(
  kind: FindingKind,
  method: string,
  page: CrawledPage,
  context: CheckContext,
  exchange: HttpExchange | undefined,
  proof: string,
  observation: string,
): Promise<void> {
  if (exchange === undefined || exchange.status !== 200) return;
  const evidence = bodyEvidence(exchange.body, proof);
  if (evidence === undefined) return;
  await context.report(
    buildFinding(kind, {
      location: `${page.originText}/?method=${method}`,
      host: page.origin.host,
      exchange,
      evidence,
      observation,
    }),
  );
}

/** TRACE with a marker header to a path of its own: reported when the answer echoes the marker. */
async function probeTrace(page: CrawledPage, context: CheckContext): Promise<void> {
  const marker = `perimeter-${token()}`;
  const url = new URL(`/perimeter-trace-${token()}`, page.url);
  const exchange = await sendCheckRequest(url, context, {
    method: 'TRACE',
    headers: [{ name: traceMarkerHeader, value: marker }],
  });
  const observation = `Confirmed by echo: TRACE ${url.pathname} with the header ${traceMarkerHeader}: ${marker} came back with status 200 and the header in the body.`;
  await reportWhenAnswered(TRACE, 'TRACE', page, context, exchange, marker, observation);
}

/**
 * PUT of a canary text to `/perimeter-put-<random>.txt` (nothing else is ever PUT), then GET of
 * the same path: reported only when the GET answers the canary, so a server that answers 200 or
 * 201 to everything is not.
 */
async function probePut(page: CrawledPage, context: CheckContext): Promise<void> {
  const url = new URL(`/perimeter-put-${token()}.txt`, page.url);
  const canary = `perimeter PUT canary ${token()}`;
  const put = await sendCheckRequest(url, context, {
    method: 'PUT',
    body: { contentType: 'text/plain', text: canary },
  });
  if (put === undefined || put.status >= 400) return;
  const observation = `Confirmed by read-back: PUT ${url.pathname} answered ${put.status}, and GET of the same path then answered the canary text "${canary}". The file stays on the server: the scanner sends no DELETE.`;
  await reportWhenAnswered(PUT, 'PUT', page, context, await sendCheckRequest(url, context), canary, observation);
}

/**
 * HTTP methods, once per origin: TRACE echoing a marker header (cross-site tracing) and PUT
 * accepted (a canary file read back). Both go to paths of their own (`/perimeter-trace-…`,
 * `/perimeter-put-….txt`), never to a page of the site; DELETE is never sent. One finding per
 * origin and method, at `origin/?method=TRACE` or `origin/?method=PUT`.
 */
export function createHttpMethodsCheck(): PageCheck {
  const probed = new Set<string>();
  return {
    id: httpMethodsCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (probed.has(page.originText)) return;
      probed.add(page.originText);
      await probeTrace(page, context);
      await probePut(page, context);
    },
  };
}
