import { Type } from '@sinclair/typebox';
import {
  createImport,
  findImport,
  importLimit,
  presentImport,
  unknownImportFormat,
} from '../../core/imports/import.service.ts';
import { enqueueImport } from '../../jobs/import.job.ts';
import { NotFoundProblem } from '../errors.ts';
import { requiredUpload } from '../request-input.ts';
import { defineRoute, type RouteDef } from '../route.ts';

const Import = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The import id' }),
  format: Type.Union([Type.Literal('nuclei'), Type.Literal('zap'), Type.Literal('sarif'), Type.Literal('nmap')]),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')], {
    description: 'queued → running → done, or failed (the error says why)',
  }),
  progress: Type.Integer({ minimum: 0, maximum: 100, description: 'Percent done' }),
  bytes: Type.Integer({ description: 'Size of the uploaded file' }),
  counts: Type.Object({
    lines: Type.Integer({ description: 'Lines of the file' }),
    results: Type.Integer({
      description: 'Results read: nuclei lines, ZAP alert instances, SARIF results, nmap ports',
    }),
    findings_created: Type.Integer(),
    findings_updated: Type.Integer({
      description: 'Findings seen before (by their fingerprint): updated, never twinned',
    }),
    skipped: Type.Integer({
      description: 'Results whose host is not an asset of the team, or that name no host: not imported',
    }),
    ports_recorded: Type.Integer({ description: 'nmap: open (address, port) pairs recorded in the port inventory' }),
    hosts_skipped: Type.Integer({ description: 'nmap: hosts that are not assets of the team' }),
  }),
  error: Type.Union([
    Type.Null(),
    Type.Object({
      message: Type.String(),
      line: Type.Union([Type.Integer(), Type.Null()], { description: 'The line of the file the error names' }),
    }),
  ]),
  created: Type.String({ format: 'date-time' }),
  started: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  finished: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const notFound =
  "An unknown, malformed, expired or another team's id answers 404 (problem type `/problems/not-found`), alike.";

/** Imports of other tools' results (nuclei, ZAP, SARIF, nmap). */
export const importRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'POST',
    path: '/imports',
    group: 'imports',
    operationId: 'createImport',
    summary: 'Import a file of another tool',
    description:
      'The file is the request body, at most 32 MB, read as raw bytes whatever the Content-Type and streamed to storage; answers 202 at once with the import, ' +
      'which a durable job then runs (poll `GET /imports/{id}`). `format`: `nuclei` (nuclei `-jsonl` output), `zap` (ZAP traditional JSON report), ' +
      '`sarif` (SARIF 2.1.0 log whose result locations are URLs), `nmap` (nmap `-oX` XML). The whole file is parsed and validated before anything is written: ' +
      'a malformed or truncated file makes the import `failed` with an error naming the line, and imports nothing. Findings go through the same ingestion as scans ' +
      "(fingerprints, deduplication, lifecycle, events), with scan source application-scanning, on the team's assets only: a result whose host is neither an asset of the team nor " +
      'under one of its root domains is skipped and counted. nmap open TCP ports go into the port inventory of the root asset of their host. ' +
      'A missing or unknown `format` answers 400 (type /problems/4150); an empty body 400 (/problems/1050); a body holding NUL (U+0000) 400 naming the line (/problems/1051); a larger one 413 (/problems/1052).',
    tags: ['imports'],
    query: Type.Object({
      format: Type.Union([Type.Literal('nuclei'), Type.Literal('zap'), Type.Literal('sarif'), Type.Literal('nmap')], {
        description: 'The format of the file',
      }),
    }),
    input: { errors: { format: (value) => unknownImportFormat(value) } },
    rawBody: { contentType: 'application/octet-stream', description: 'The file (JSONL, JSON or XML)' },
    response: Import,
    successStatus: 202,
    errors: [1050, 1051, 1052, 4150],
    bodyLimit: importLimit,
    isStreamingBody: true,
    isExtension: true,
    handler: async (ctx) => {
      const format = ctx.input['format'] as 'nuclei' | 'zap' | 'sarif' | 'nmap' | undefined;
      if (format === undefined) throw unknownImportFormat(undefined);
      const job = await createImport(ctx.deps.store, ctx.team, format, requiredUpload(ctx.bodyStream, 'the file'));
      await enqueueImport(ctx.deps.jobs, job.uuid);
      return { status: 202, body: presentImport(job) };
    },
  }),
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/imports/{id}',
    group: 'imports',
    operationId: 'getImport',
    summary: 'Get import',
    description: `The status, progress and counts of an import of the team; readable for 30 days after upload. ${notFound}`,
    tags: ['imports'],
    params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
    input: { params: { id: () => new NotFoundProblem('No import with this id') } },
    response: Import,
    successStatus: 200,
    errors: [],
    isExtension: true,
    handler: async (ctx) => {
      const job = await findImport(ctx.deps.store, ctx.team, ctx.params['id'] ?? '');
      if (job === undefined) throw new NotFoundProblem('No import with this id');
      return { status: 200, body: presentImport(job) };
    },
  }),
];
