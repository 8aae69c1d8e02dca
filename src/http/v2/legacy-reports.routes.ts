import { Type } from '@sinclair/typebox';
import { collectFindings, legacyFindingCap, legacyListCap } from '../../core/legacy/legacy-findings.service.ts';
import { getReportFinding, latestReport, listReports } from '../../core/legacy/legacy-reports.service.ts';
import { latePathInput, pathInput } from './path-params.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import {
  answerFinding,
  answerFindings,
  legacyNote,
  legacyRouteBase,
  markTruncated,
  findingFilterInput,
  findingFilterOf,
  rangeInput,
  publicBase,
} from './legacy-route-support.ts';
import { presentOldFindings, presentReport } from './legacy.presenter.ts';
import { FindingQuery, LegacyFullReport, LegacyReport, OldFinding, ReportQuery } from './legacy.schemas.ts';
import { ProfileTokenParam } from './scan.schemas.ts';
import { Token } from './schemas.ts';

const legacy = legacyRouteBase('reports (deprecated)');
const noReport =
  'A report is a scan of the profile that has ended, whatever its outcome; a profile with none answers 2604 (404).';

/** The older v2 report operations: a report is one finished scan of a scan profile. */
export const legacyReportRoutes: RouteDef[] = [
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/fullreports/{scanProfileToken}/latest/',
    group: 'scans',
    operationId: 'legacyGetLatestFullReport',
    summary: 'Latest full report of a scan profile (deprecated)',
    description:
      `The latest report with its findings (at most ${legacyFindingCap}, then x-perimeter-truncated: true; the counts and \`cvss\` always cover all of them). ` +
      `\`cvss\` is the highest CVSS 3.1 score among its findings, 0 when none. ${noReport} ${legacyNote}`,
    params: ProfileTokenParam,
    input: { params: pathInput('scanProfileToken') },
    response: LegacyFullReport,
    errors: [2601, 2604],
    handler: async (ctx) => {
      const { profile, scan } = await latestReport(ctx.deps, ctx.team, ctx.params['scanProfileToken']!);
      const found = await collectFindings(ctx.deps.store, ctx.team, { scanId: scan.id }, {});
      markTruncated(ctx, found.isTruncated);
      return {
        status: 200,
        body: { ...presentReport(profile, scan, publicBase(ctx)), findings: presentOldFindings(found) },
      };
    },
  }),
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/reports/{scanProfileToken}/latest/',
    group: 'scans',
    operationId: 'legacyGetLatestReport',
    summary: 'Latest report of a scan profile (deprecated)',
    description: `The latest report without its findings. ${noReport} ${legacyNote}`,
    params: ProfileTokenParam,
    input: { params: pathInput('scanProfileToken') },
    response: LegacyReport,
    errors: [2601, 2604],
    handler: async (ctx) => {
      const { profile, scan } = await latestReport(ctx.deps, ctx.team, ctx.params['scanProfileToken']!);
      return { status: 200, body: presentReport(profile, scan, publicBase(ctx)) };
    },
  }),
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/reports/{scanProfileToken}/',
    group: 'scans',
    operationId: 'legacyListReports',
    summary: 'Reports of a scan profile (deprecated)',
    description: `The profile's reports without findings, newest first, as a bare array (empty when it has none); \`from\`/\`to\` bound their creation. At most ${legacyListCap}. ${legacyNote}`,
    params: ProfileTokenParam,
    query: Type.Object(ReportQuery),
    input: { ...rangeInput, params: pathInput('scanProfileToken') },
    response: Type.Array(LegacyReport),
    errors: [1085, 2601, 2604, 4150],
    handler: async (ctx) => {
      const range = findingFilterOf(ctx.input);
      const { profile, scans, isTruncated } = await listReports(
        ctx.deps,
        ctx.team,
        ctx.params['scanProfileToken']!,
        range,
      );
      markTruncated(ctx, isTruncated);
      const base = publicBase(ctx);
      return { status: 200, body: scans.map((scan) => presentReport(profile, scan, base)) };
    },
  }),
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/findings/{scanProfileToken}/',
    group: 'scans',
    operationId: 'legacyListProfileFindings',
    summary: 'Findings of the latest report of a scan profile (deprecated)',
    description:
      `The findings of the profile's latest report as old findings, a bare array of at most ${legacyFindingCap} (then x-perimeter-truncated: true). ` +
      `\`severity\` matches the severity the report recorded; \`from\`/\`to\` bound the latest detection. ${noReport} ${legacyNote}`,
    params: ProfileTokenParam,
    query: Type.Object(FindingQuery),
    input: { ...findingFilterInput, params: pathInput('scanProfileToken') },
    response: Type.Array(OldFinding),
    errors: [1085, 2601, 2604, 4085, 4150],
    handler: (ctx) =>
      answerFindings(ctx, async () => ({
        scanId: (await latestReport(ctx.deps, ctx.team, ctx.params['scanProfileToken']!)).scan.id,
      })),
  }),
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/findings/{scanProfileToken}/{reportToken}/{uuid}/',
    group: 'scans',
    operationId: 'legacyGetReportFinding',
    summary: 'One finding of a report (deprecated)',
    description:
      `Details complete. 2601 when a token is malformed, 2604 when the profile or the report (of that profile) does not exist, 4111 for a malformed UUID, ` +
      `1900 when the report did not see that vulnerability. ${legacyNote}`,
    params: Type.Object({ scanProfileToken: Token, reportToken: Token, uuid: Type.String({ format: 'uuid' }) }),
    // The report's token answers after the profile's lookup, the UUID after the report's.
    input: { params: pathInput('scanProfileToken'), lateParams: latePathInput('reportToken', 'uuid') },
    response: OldFinding,
    errors: [1900, 2601, 2604, 4111],
    handler: async (ctx) =>
      answerFinding(
        await getReportFinding(
          ctx.deps,
          ctx.team,
          ctx.params['scanProfileToken']!,
          () => ctx.checkedParam('reportToken'),
          () => ctx.checkedParam('uuid'),
        ),
      ),
  }),
];
