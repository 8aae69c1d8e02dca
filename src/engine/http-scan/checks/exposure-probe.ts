import { isJavaScriptType } from '../check-kit/discovery.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { sendCheckRequest } from './check-request.ts';
import { buildFinding, type BodyEvidence, type FindingKind } from './finding-builder.ts';
import { headerValue, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';

/** True for a crawled script: a JavaScript content type, or a .js/.mjs path that is not HTML. */
export function isScriptPage(page: CrawledPage): boolean {
  return (
    isJavaScriptType(headerValue(page.exchange, 'content-type')) || (!page.isHtml && /\.m?js$/i.test(page.url.pathname))
  );
}

/** A span of a body: `length` characters from `offset`, and what to write there instead (default `*`s). */
export interface Span {
  offset: number;
  length: number;
  replacement?: string;
}

/**
 * The exchange with the given spans of its body masked (by `*`, or a replacement of the same
 * length, so evidence offsets still hold): the scanner keeps proof of a leaked credential
 * without storing the credential.
 */
export function withMaskedBody(exchange: HttpExchange, spans: Span[]): HttpExchange {
  if (spans.length === 0) return exchange;
  let body = exchange.body;
  for (const span of spans) {
    const text = span.replacement?.length === span.length ? span.replacement : '*'.repeat(span.length);
    body = body.slice(0, span.offset) + text + body.slice(span.offset + span.length);
  }
  return { ...exchange, body };
}

/** A body's evidence as a fixed-path probe recognises it, with an optional finding title. */
export interface Recognised extends BodyEvidence {
  title?: string;
  /** Spans of the body to mask in the recorded response (secrets). */
  masked?: Span[];
}

/** What a fixed-path probe check looks for. */
export interface PathProbeSpec {
  kind: FindingKind;
  /** Root-relative paths requested once per origin, in order. */
  paths: readonly string[];
  /** The evidence in a 200 answer, or undefined when the body is not what the check looks for. */
  recognise(exchange: HttpExchange): Recognised | undefined;
  /** A human sentence for the finding. */
  observe(url: URL, recognised: Recognised): string;
  /** The finding's location path for a probed path (default: the path itself). */
  locationPath?(path: string): string;
  /** Stop probing an origin after its first hit (one root cause per origin). */
  isOnePerOrigin?: boolean;
  /** Also judge every crawled page with `recognise` (the page may be linked anywhere). */
  isPassive?: boolean;
}

/**
 * A check that requests a few fixed paths once per origin (at most `paths.length` requests per
 * origin) and reports a 200 answer only when `recognise` finds the real thing in the body, so a
 * soft-404 page is never reported. One finding per origin and location path.
 */
export function createPathProbeCheck(spec: PathProbeSpec): PageCheck {
  const judged = new Set<string>();
  const probedOrigins = new Set<string>();

  const judge = async (
    url: URL,
    exchange: HttpExchange,
    page: CrawledPage,
    context: CheckContext,
  ): Promise<boolean> => {
    if (exchange.status !== 200) return false;
    const recognised = spec.recognise(exchange);
    if (recognised === undefined) return false;
    const location = `${page.originText}${spec.locationPath?.(url.pathname) ?? url.pathname}`;
    await context.report(
      buildFinding(spec.kind, {
        location,
        host: page.origin.host,
        exchange: withMaskedBody(exchange, recognised.masked ?? []),
        evidence: { value: recognised.value, offset: recognised.offset },
        observation: spec.observe(url, recognised),
        ...(recognised.title === undefined ? {} : { title: recognised.title }),
      }),
    );
    return true;
  };

  return {
    id: spec.kind.checkId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (spec.isPassive === true) {
        const key = `${page.originText}${page.url.pathname}`;
        if (!judged.has(key)) {
          judged.add(key);
          await judge(page.url, page.exchange, page, context);
        }
      }
      if (probedOrigins.has(page.originText)) return;
      probedOrigins.add(page.originText);
      for (const path of spec.paths) {
        const key = `${page.originText}${path}`;
        if (judged.has(key)) continue;
        judged.add(key);
        const url = new URL(path, page.url);
        const exchange = await sendCheckRequest(url, context);
        if (exchange !== undefined && (await judge(url, exchange, page, context)) && spec.isOnePerOrigin === true)
          return;
      }
    },
  };
}
