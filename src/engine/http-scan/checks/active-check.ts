import type { ScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import { HttpRequestError, type HttpExchange } from '../check-kit/guarded-http-client.ts';
import type { Highlight } from '../../../core/vulnerabilities/vulnerability.types.ts';
import {
  describePoint,
  injectionLocation,
  injectionPointKey,
  injectionPoints,
  isMetadataPoint,
  parameterLocations,
  parseCookiePairs,
  type InjectedRequest,
  type InjectionPoint,
  type ParameterLocation,
} from '../check-kit/injection.ts';
import { buildFinding, type BodyEvidence, type FindingKind } from './finding-builder.ts';
import type { ScanSession } from '../check-kit/scan-session.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** Injection points one active check tests in one scan at most (each costs a few requests). */
export const maxPointsPerCheck = 400;
/**
 * Header and cookie points (one set per route) one active check tests in one scan at most,
 * counted apart: on a large site they would otherwise use up the parameters' share.
 */
export const maxMetadataPointsPerCheck = 1000;

/** Sends an injected request through the scan's session (scope, budget, cookies). */
export type InjectedSender = (request: InjectedRequest) => Promise<HttpExchange>;

/** What an active check does with one injection point. */
export interface ActiveCheckSpec {
  id: string;
  /**
   * The locations the check tests (default parameterLocations: query, form and JSON fields,
   * path segments). Request headers and cookies are opt-in: only checks whose flaw plausibly
   * sits behind them (SQL, shell, reflection) pay one set of requests per route for them.
   */
  locations?: readonly ParameterLocation[];
  /** Whether the point is worth testing (default: every point of its locations). */
  applies?(point: InjectionPoint): boolean;
  /** Tests one point: sends payloads with `send`, reports through `context.report`. */
  test(point: InjectionPoint, page: CrawledPage, context: CheckContext, send: InjectedSender): Promise<void>;
}

/**
 * An active check over the injection points of every crawled request: each point (method,
 * path, parameter; values do not count) of the check's locations is tested once per scan, up
 * to maxPointsPerCheck parameters and maxMetadataPointsPerCheck headers and cookies. A
 * request that gets no answer, or would leave the scope, ends that point's test quietly; an
 * abort ends the scan, and any other error reaches the crawler (a warning).
 */
export function createActiveCheck(spec: ActiveCheckSpec): PageCheck {
  const tested = new Set<string>();
  const locations = new Set(spec.locations ?? parameterLocations);
  let parameters = 0;
  let metadata = 0;
  return {
    id: spec.id,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      // The login's own requests are not tampered with: a payload there would log the scan out.
      if (page.isSessionUpkeep === true) return;
      let send: InjectedSender | undefined;
      for (const { point, key, isMetadata } of keyedPointsOf(page, context.session)) {
        if (!locations.has(point.location)) continue;
        if (isMetadata ? metadata >= maxMetadataPointsPerCheck : parameters >= maxPointsPerCheck) continue;
        if (tested.has(key) || (spec.applies !== undefined && !spec.applies(point))) continue;
        tested.add(key);
        if (isMetadata) metadata += 1;
        else parameters += 1;
        send ??= senderOf(context);
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

/** Sends an active check's requests through the scan's session, refusing what leaves the scope or cannot be sent. */
function senderOf(context: CheckContext): InjectedSender {
  return async (request) => {
    // A payload in a path segment may land on a path the scope excludes: never sent.
    if (!context.session.scope.isUrlAllowed(request.url))
      throw new HttpRequestError('denied', `${request.url.pathname} is outside the scan's scope`);
    // A header value with a line break cannot be sent (the client would refuse it): not a finding either way.
    if (request.headers?.some((h) => /[\r\n\0]/.test(h.value)) === true)
      throw new HttpRequestError('denied', 'a header value may not hold a line break');
    return context.session.send(request.method, request.url, context.signal, {
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(request.headers === undefined ? {} : { extraHeaders: request.headers }),
    });
  };
}

/** An injection point with its "test once" identity. */
interface KeyedPoint {
  point: InjectionPoint;
  key: string;
  isMetadata: boolean;
}

const pagePoints = new WeakMap<CrawledPage, { cookieNames: ReadonlySet<string>; points: readonly KeyedPoint[] }>();
const sessionCookieNames = new WeakMap<Pick<ScanSession, 'settings'>, ReadonlySet<string>>();

/**
 * The injection points of a page with their keys, computed once per page however many active
 * checks ask (a dozen do, on every page; the points are never changed by a check).
 */
function keyedPointsOf(page: CrawledPage, session: Pick<ScanSession, 'settings'>): readonly KeyedPoint[] {
  // The profile's cookie names, once per scan (a session lives for one scan).
  let cookieNames = sessionCookieNames.get(session);
  if (cookieNames === undefined) {
    cookieNames = profileCookieNames(session.settings);
    sessionCookieNames.set(session, cookieNames);
  }
  const cached = pagePoints.get(page);
  if (cached !== undefined && cached.cookieNames === cookieNames) return cached.points;
  const points = injectionPoints(page, { profileCookieNames: cookieNames }).map((point) => ({
    point,
    key: injectionPointKey(point),
    isMetadata: isMetadataPoint(point),
  }));
  pagePoints.set(page, { cookieNames, points });
  return points;
}

/** Names of the cookies the scan profile brings (custom cookies, the session cookie, a Cookie custom header): the user's, never tampered with. */
export function profileCookieNames(
  settings: Pick<ScanProfileSettings, 'custom_cookies' | 'session_cookie' | 'custom_headers'>,
): Set<string> {
  const names = new Set(settings.custom_cookies.map((c) => c.name));
  if (settings.session_cookie !== null) names.add(settings.session_cookie.name);
  for (const header of settings.custom_headers)
    if (header.name.toLowerCase() === 'cookie') for (const [name] of parseCookiePairs(header.value)) names.add(name);
  return names;
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
export async function reportAtPoint(
  kind: FindingKind,
  point: InjectionPoint,
  page: CrawledPage,
  context: CheckContext,
  proof: PointProof,
): Promise<void> {
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
