import { randomBytes } from 'node:crypto';
import type { HttpHeader } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { describePoint, injectPayload } from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import type { PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the CRLF (HTTP response header) injection check. */
export const crlfInjectionCheckId = 'crlf-injection';

const KIND: FindingKind = {
  checkId: crlfInjectionCheckId,
  title: 'CRLF injection (HTTP response splitting)',
  cwe: 113,
  cvssVector: 'AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
  severity: 'medium',
  owasp: 'A03:2021-Injection',
  description:
    "A request parameter is written into a response header without removing carriage returns and line feeds: a CR LF in it ends the header and starts a new one of the attacker's choosing.",
  risk: "A crafted link makes the site answer with headers (and even a body) the attacker chose: cookies set in the victim's browser (session fixation), a disabled Content-Security-Policy, cross-site scripting, and poisoned shared caches serving the split response to others.",
  remediation:
    "Never copy input into response headers unencoded: percent-encode values placed in Location or Content-Disposition (RFC 5987 `filename*` for file names), reject CR, LF and other control characters (and the Unicode characters a writer may narrow to them), and use the framework's header API, which refuses line breaks.",
  references: [
    { link: 'https://owasp.org/www-community/attacks/HTTP_Response_Splitting', name: 'OWASP: HTTP Response Splitting' },
    { link: 'https://owasp.org/www-community/vulnerabilities/CRLF_Injection', name: 'OWASP: CRLF Injection' },
  ],
};

/** One way to write a line break into a parameter, as a label for the evidence and the bytes. */
export interface LineBreak {
  label: string;
  text: string;
}

/**
 * Line breaks to try, in order: CR LF (percent-encoded once when the request is built), CR LF
 * already percent-encoded (so a value decoded twice breaks), and U+560D U+560A, which a writer
 * that narrows characters to their low byte turns into CR LF.
 */
export const lineBreaks: LineBreak[] = [
  { label: 'CR LF (%0D%0A)', text: '\r\n' },
  { label: 'CR LF percent-encoded twice (%250d%250a)', text: '%0d%0a' },
  { label: 'U+560D U+560A (%E5%98%8D%E5%98%8A, narrowed to CR LF)', text: '\u560d\u560a' },
];

/** A header name of the scanner's own, unique per payload: `X-Prmtr-<hex>`. */
export function injectedHeaderName(): string {
  return `X-Prmtr-${randomBytes(5).toString('hex')}`;
}

/** The payload appended to a value: a line break, then the header line. */
export function crlfPayload(lineBreak: LineBreak, headerName: string): string {
  return `${lineBreak.text}${headerName}: 1`;
}

/**
 * The injected header when the response carries it as a real header (undici lists names in
 * lower case); a header whose text only shows in the body, or inside another header's value,
 * is not one. Its value starts with the payload's `1`: whatever the application wrote after the
 * parameter (a closing quote) follows on the same line.
 */
export function findInjectedHeader(headers: HttpHeader[], headerName: string): HttpHeader | undefined {
  const name = headerName.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === name && h.value.trimStart().startsWith('1'));
}

/**
 * CRLF injection in every injection point: a line break and a header line of the scanner's own
 * (`X-Prmtr-<random>: 1`) are appended to the value, with each line break of lineBreaks in turn;
 * reported when the answer carries that header as a header of its own. One finding per point.
 */
export function createCrlfInjectionCheck(): PageCheck {
  return createActiveCheck({
    id: crlfInjectionCheckId,
    async test(point, page, context, send) {
      for (const lineBreak of lineBreaks) {
        const headerName = injectedHeaderName();
        const payload = crlfPayload(lineBreak, headerName);
        const exchange = await send(injectPayload(point, payload, 'append'));
        const header = findInjectedHeader(exchange.headers, headerName);
        if (header === undefined) continue;
        await reportAtPoint(KIND, point, page, context, {
          exchange,
          extraHighlights: [
            { field: `response.headers.${header.name}`, value: header.value, offset: 0, length: header.value.length },
          ],
          confirmation: `by the answer's headers: with ${lineBreak.label} and "${headerName}: 1" appended to ${describePoint(point)}, the answer (status ${exchange.status}) carries ${headerName} as a header of its own`,
        });
        return;
      }
    },
  });
}
