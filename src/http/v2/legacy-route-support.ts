import { appError } from '../../core/errors/app-error.ts';
import {
  collectFindings,
  type FindingFilter,
  type FindingScope,
  type FindingSet,
} from '../../core/legacy/legacy-findings.service.ts';
import { parseTimeParameter } from '../../core/shared/time.ts';
import type { Severity } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { FieldError, RouteContext, RouteDef, RouteInput, RouteResult } from '../route.ts';
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

/** A `from` or `to` bound: blank is none, else Unix seconds or another v2 time form (1085 otherwise). */
function decodeBound(value: string, name: string): Date | undefined {
  return value.trim() === '' ? undefined : parseTimeParameter(name, value);
}

/** 4150 when `from` is after `to`: both bounds are inclusive. */
function assertRange(query: Record<string, unknown>): void {
  const from = query['from'] as Date | undefined;
  const to = query['to'] as Date | undefined;
  if (from !== undefined && to !== undefined && from.getTime() > to.getTime()) {
    throw appError(4150, `from (${from.toISOString()}) is after to (${to.toISOString()}): both bounds are inclusive`, [
      'from',
      'to',
    ]);
  }
}

/** The declared input of `from` and `to` (ReportQuery): 1085 when malformed, then 4150 when from is after to. */
export const rangeInput: RouteInput = {
  order: ['from', 'to'],
  decode: { from: decodeBound, to: decodeBound },
  rules: { to: assertRange },
};

/** 4085 naming every severity that is not one older clients send (any case). */
const severityError: FieldError = (values) => {
  const bad = (values as string[]).filter((v) => !Object.hasOwn(severityValues, v.toLowerCase()));
  return appError(
    4085,
    `Severity malformed: ${bad.map((b) => `"${b}"`).join(', ')} (allowed: high, medium, low, information)`,
    ['severity'],
  );
};

/** The declared input of the finding filters (FindingQuery): the range, then `severity` (4085). */
export const findingFilterInput: RouteInput = {
  ...rangeInput,
  order: ['from', 'to', 'severity'],
  decode: { ...rangeInput.decode, severity: (value) => value.toLowerCase() },
  errors: { severity: severityError },
};

/** The filter of a query validated with findingFilterInput (or rangeInput). */
export function findingFilterOf(input: RouteContext['input']): FindingFilter {
  const filter: FindingFilter = {};
  const from = input['from'] as Date | undefined;
  const to = input['to'] as Date | undefined;
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  const values = input['severity'] as string[] | undefined;
  if (values !== undefined && values.length > 0)
    filter.severities = [...new Set(values.flatMap((v) => severityValues[v]!))];
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
  const filter = findingFilterOf(ctx.input);
  const found = await collectFindings(ctx.deps.store, ctx.team, await scope(), filter);
  markTruncated(ctx, found.isTruncated);
  return { status: 200, body: presentOldFindings(found) };
}

/** One old finding with its details complete. */
export function answerFinding(found: FindingSet): RouteResult {
  const record = found.records[0]!;
  return { status: 200, body: presentOldFinding(record, found.assets.get(record.assetId), true) };
}
