import { appError } from '../../core/errors/app-error.ts';
import {
  collectFindings,
  type FindingFilter,
  type FindingScope,
  type FindingSet,
} from '../../core/legacy/legacy-findings.service.ts';
import { parseTimeParameter } from '../../core/shared/time.ts';
import type { Severity } from '../../core/vulnerabilities/vulnerability.types.ts';
import { queryList, queryValue } from '../request-input.ts';
import type { RouteContext, RouteDef, RouteResult } from '../route.ts';
import { presentOldFinding, presentOldFindings } from './legacy.presenter.ts';

/** Inputs and answers shared by the older v2 operations (legacy-domains and legacy-reports routes). */

/** The severities older clients send, and what each matches (their `high` was the top band). */
const severityValues: Record<string, Severity[]> = {
  high: ['high', 'critical'],
  critical: ['critical'],
  medium: ['medium'],
  low: ['low'],
  information: ['information'],
};

/** `from` and `to`: Unix seconds (or the other v2 time forms), inclusive; 1085 when malformed, 4150 when from is after to. */
export function parseRange(query: RouteContext['query']): { from?: Date; to?: Date } {
  const read = (name: 'from' | 'to') => {
    const value = queryValue(query, name);
    return value === undefined || value.trim() === '' ? undefined : parseTimeParameter(name, value);
  };
  const from = read('from');
  const to = read('to');
  if (from !== undefined && to !== undefined && from.getTime() > to.getTime()) {
    throw appError(4150, `from (${from.toISOString()}) is after to (${to.toISOString()}): both bounds are inclusive`, [
      'from',
      'to',
    ]);
  }
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/** `severity` (one value, a comma list or severity[]), `from` and `to`; 4085 for an unknown severity. */
export function parseFindingFilter(query: RouteContext['query']): FindingFilter {
  const filter: FindingFilter = parseRange(query);
  const values = queryList(query, 'severity');
  if (values !== undefined && values.length > 0) {
    const bad = values.filter((v) => !Object.hasOwn(severityValues, v.toLowerCase()));
    if (bad.length > 0)
      throw appError(
        4085,
        `Severity malformed: ${bad.map((b) => `"${b}"`).join(', ')} (allowed: high, medium, low, information)`,
        ['severity'],
      );
    filter.severities = [...new Set(values.flatMap((v) => severityValues[v.toLowerCase()]!))];
  }
  return filter;
}

/** Base of absolute links: the configured public URL, else the request's own origin. */
export function publicBase(ctx: Pick<RouteContext, 'deps' | 'request'>): string {
  return ctx.deps.config.publicUrl ?? `${ctx.request.protocol}://${ctx.request.host}`;
}

/** Marks a bare-array answer that stopped at its cap (x-perimeter-truncated: true). */
export function markTruncated(ctx: Pick<RouteContext, 'reply'>, isTruncated: boolean): void {
  if (isTruncated) ctx.reply.header('x-perimeter-truncated', 'true');
}

/** The sentence every older operation's description ends with. */
export const legacyNote = 'Older v2 endpoint kept for existing clients (deprecated; see docs/legacy-v2.md).';

/** What every older v2 operation shares: v2, deprecated in OpenAPI, answering 200. */
export function legacyRouteBase(tag: string): Pick<RouteDef, 'surface' | 'isDeprecated' | 'tags' | 'successStatus'> {
  return { surface: 'v2', isDeprecated: true, tags: [tag], successStatus: 200 };
}

/** The old findings of a scope as a bare array, read with the request's filters (checked first), capped and flagged. */
export async function answerFindings(ctx: RouteContext, scope: () => Promise<FindingScope>): Promise<RouteResult> {
  const filter = parseFindingFilter(ctx.query);
  const found = await collectFindings(ctx.deps.store, ctx.team, await scope(), filter);
  markTruncated(ctx, found.isTruncated);
  return { status: 200, body: presentOldFindings(found) };
}

/** One old finding with its details complete. */
export function answerFinding(found: FindingSet): RouteResult {
  const record = found.records[0]!;
  return { status: 200, body: presentOldFinding(record, found.assets.get(record.assetId), true) };
}
