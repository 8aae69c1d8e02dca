import { Type } from '@sinclair/typebox';
import { appError } from '../../core/errors/app-error.ts';
import { assetReport, scanReport, type ReportData } from '../../core/reports/report.service.ts';
import { NoBrowserError, printPdf } from '../../engine/reports/pdf-printer.ts';
import { NotFoundProblem } from '../errors.ts';
import { defineRoute, type RouteContext, type RouteDef, type RouteResult } from '../route.ts';
import { renderReportHtml, reportTitle } from './reports.render.ts';

const ReportQuery = Type.Object({
  format: Type.Optional(
    Type.Union([Type.Literal('html'), Type.Literal('pdf')], {
      description: '`html` (the default): one self-contained page; `pdf`: the same page printed on A4.',
    }),
  ),
});

const ReportDocument = Type.String({
  description: 'text/html (UTF-8) or application/pdf, as `format` asks: not JSON.',
});

const formatError = () => appError(4150, 'format must be html or pdf', ['format']);

const contents =
  'A title block (team, target, dates), a summary (counts by severity, a chart, and what changed since the previous scan of the profile: new, regressed, patched) ' +
  'and the findings grouped by severity with their evidence (request and response excerpts), CWE, CVSS and remediation. ' +
  "The HTML is self-contained (inline CSS and SVG, no script, nothing fetched); the PDF is that page printed by the server's Chromium (A4, page numbers in the footer). " +
  'Without a browser on the server, `format=pdf` answers 503 (type /problems/1909) saying so. A malformed `format` answers 400 naming it (type /problems/4150). See docs/reports.md.';

/** The report as the answer `format` asks for. */
async function answerReport(ctx: RouteContext, data: ReportData | undefined, notFound: string): Promise<RouteResult> {
  if (data === undefined) throw new NotFoundProblem(notFound);
  const html = renderReportHtml(data);
  const name = `${data.kind}-report-${data.kind === 'scan' ? data.scan!.token : data.asset!.token}`;
  ctx.reply.header('cache-control', 'no-store');
  if (ctx.input['format'] !== 'pdf') {
    ctx.reply.header('content-disposition', `inline; filename="${name}.html"`);
    return { status: 200, json: html, contentType: 'text/html; charset=utf-8' };
  }
  let pdf: Buffer;
  try {
    pdf = await printPdf(html, { footer: `${reportTitle(data)} · ${data.team.name}` });
  } catch (err) {
    if (err instanceof NoBrowserError) throw appError(1909, err.message);
    throw err;
  }
  ctx.reply.header('content-disposition', `attachment; filename="${name}.pdf"`);
  return { status: 200, json: pdf, contentType: 'application/pdf' };
}

/** Reports of a scan and of an asset, as HTML or PDF (an extension of perimeter: docs/reports.md). */
export const reportRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/reports/scans/{scan_token}',
    group: 'vulnerabilities',
    operationId: 'getScanReport',
    summary: 'Report of a scan (HTML or PDF)',
    description:
      'The report of one finished scan, named by its report token (the `token` of v2 `/reports/{scanProfileToken}/`): the findings it reported, with their status today. ' +
      `${contents} An unknown, malformed or another team's token, and a scan still running, answer 404 (problem type \`/problems/not-found\`), alike.`,
    tags: ['reports'],
    params: Type.Object({ scan_token: Type.String({ description: 'The report token of a finished scan.' }) }),
    query: ReportQuery,
    input: { errors: { format: formatError } },
    response: ReportDocument,
    responseMediaTypes: ['text/html', 'application/pdf'],
    successStatus: 200,
    errors: [1909, 4150],
    isExtension: true,
    handler: async (ctx) =>
      answerReport(
        ctx,
        await scanReport(ctx.deps.store, ctx.team, ctx.params['scan_token'] ?? '', new Date()),
        'No finished scan with this token',
      ),
  }),
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/reports/assets/{asset_token}',
    group: 'vulnerabilities',
    operationId: 'getAssetReport',
    summary: 'Report of an asset (HTML or PDF)',
    description:
      'The report of one asset of the team, named by its token (`asset_token` of the v3 lists): the open findings of the asset and its subdomain assets, ' +
      `and the changes of its latest finished scan. ${contents} An unknown, malformed or another team's token answers 404 (problem type \`/problems/not-found\`), alike.`,
    tags: ['reports'],
    params: Type.Object({ asset_token: Type.String({ description: 'The token of an asset of the team.' }) }),
    query: ReportQuery,
    input: { errors: { format: formatError } },
    response: ReportDocument,
    responseMediaTypes: ['text/html', 'application/pdf'],
    successStatus: 200,
    errors: [1909, 4150],
    isExtension: true,
    handler: async (ctx) =>
      answerReport(
        ctx,
        await assetReport(ctx.deps.store, ctx.team, ctx.params['asset_token'] ?? '', new Date()),
        'No asset with this token',
      ),
  }),
];
