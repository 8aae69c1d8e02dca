import { HttpRequestError, type HttpExchange } from '../guarded-http-client.ts';
import type { Highlight } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { describePoint, injectionLocation, injectionPointKey, injectionPoints, type InjectedRequest, type InjectionPoint } from '../injection.ts';
import { buildFinding, type BodyEvidence, type FindingKind } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from './page-check.ts';

/** Injection points one active check tests in one scan at most (each costs a few requests). */
export const maxPointsPerCheck = 400;

/** Sends an injected request through the scan's session (scope, budget, cookies). */
export type InjectedSender = (request: InjectedRequest) => Promise<HttpExchange>;

/** What an active check does with one injection point. */
export interface ActiveCheckSpec {
  id: string;
  /** Whether the point is worth testing (default: every point). */
  applies?(point: InjectionPoint): boolean;
  /** Tests one point: sends payloads with `send`, reports through `context.report`. */
  test(point: InjectionPoint, page: CrawledPage, context: CheckContext, send: InjectedSender): Promise<void>;
}

/**
 * An active check over the injection points of every crawled request: each point (method,
 * path, parameter; values do not count) is tested once per scan, up to maxPointsPerCheck. A
 * request that gets no answer, or would leave the scope, ends that point's test quietly; an
 * abort ends the scan, and any other error reaches the crawler (a warning).
 */
export function createActiveCheck(spec: ActiveCheckSpec): PageCheck {
  const tested = new Set<string>();
  return {
    id: spec.id,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      const send: InjectedSender = async (request) => {
        // A payload in a path segment may land on a path the scope excludes: never sent.
        if (!context.session.scope.isUrlAllowed(request.url)) throw new HttpRequestError('denied', `${request.url.pathname} is outside the scan's scope`);
        return context.session.send(request.method, request.url, context.signal, request.body === undefined ? {} : { body: request.body });
      };
      for (const point of injectionPoints(page)) {
        if (tested.size >= maxPointsPerCheck) return;
        const key = injectionPointKey(point);
        if (tested.has(key) || (spec.applies !== undefined && !spec.applies(point))) continue;
        tested.add(key);
        try {
          await spec.test(point, page, context, send);
        } catch (err) {
          // No answer (or out of scope) ends this point's test; an abort or a failed report does not stay quiet.
          if (!(err instanceof HttpRequestError) || err.kind === 'aborted' || context.signal.aborted) throw err;
        }
      }
    },
  };
}

/** What proves a finding at an injection point: the exchange, where the proof sits, and how it was confirmed. */
export interface PointProof {
  exchange: HttpExchange;
  evidence?: BodyEvidence;
  extraHighlights?: Highlight[];
  /** The sentence after "Confirmed " in the evidence text. */
  confirmation: string;
}

/** Reports a finding of `kind` at an injection point: location, title and evidence text in the house shape. */
export async function reportAtPoint(kind: FindingKind, point: InjectionPoint, page: CrawledPage, context: CheckContext, proof: PointProof): Promise<void> {
  await context.report(
    buildFinding(kind, {
      location: injectionLocation(page.originText, point),
      host: page.origin.host,
      exchange: proof.exchange,
      ...(proof.evidence === undefined ? {} : { evidence: proof.evidence }),
      ...(proof.extraHighlights === undefined ? {} : { extraHighlights: proof.extraHighlights }),
      title: `${kind.title}: ${describePoint(point)}`,
      observation: `${kind.title} in ${describePoint(point)} of ${point.method} ${point.url.pathname}. Confirmed ${proof.confirmation}.`,
    }),
  );
}
