import { Type } from '@sinclair/typebox';
import { createLookupJob, getLookupJob } from '../../core/zones/zone-lookup.service.ts';
import {
  transferAndIndex,
  uploadZoneFile,
  zoneFileLimit,
  zoneLookupLimit,
  type ZoneIndexResult,
} from '../../core/zones/zone-upload.service.ts';
import { enqueueZoneLookup } from '../../jobs/zone-lookup.job.ts';
import { requiredUpload } from '../request-input.ts';
import { pathInput } from './path-params.ts';
import { defineRoute, type RouteContext, type RouteDef, type RouteResult } from '../route.ts';

const indexedDescription =
  '`indexed` is the number of distinct domain names (a root asset of the team or a name under one) that received records from this ' +
  "upload: each becomes or refreshes a subdomain of the most specific root it lies under (listed with the root's subdomains, " +
  "with a token of its own), its records of this source replaced, and `added_by` names the sources. Names outside the team's root " +
  'domain assets are not added and not counted. Surface monitoring is never switched on. ' +
  'When the zone (the origin) is neither an asset of the team nor under one of its root domain assets, it is first added as a root asset ' +
  '(`added_by` zone-file or zone-transfer, unverified, an ownership check started as for a manual add) in the same operation: the asset ' +
  'errors apply (2012 for a name that cannot be an asset, such as a public suffix; 1009 for a key without the assets endpoints), and a ' +
  'zone that fails to index adds no asset.';

/** Answers `indexed`, after starting the ownership check of the apex the zone added (as a manual add does). */
function answerIndexed(ctx: RouteContext, result: ZoneIndexResult): RouteResult {
  if (result.addedAsset !== undefined) ctx.deps.verification.checkInBackground(ctx.team, result.addedAsset);
  return { status: 200, body: { indexed: result.indexed } };
}

const Indexed = Type.Object({
  indexed: Type.Integer({ description: "Distinct names indexed under the team's root domain assets" }),
});

/** The DNS zone operations of v2. */
export const zoneRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/zone/file/',
    group: 'zones',
    operationId: 'uploadZoneFile',
    summary: 'Upload zone file',
    description:
      "RFC 1035 master file, at most 5 MB, read as raw text whatever the Content-Type and parsed as it streams. $INCLUDE is refused; BIND's $GENERATE is expanded as BIND " +
      'expands it, its records counted toward the limit of 1,000,000 records a zone file may hold. A syntax error (a malformed $GENERATE line, a file past the record limit) ' +
      'answers 2421 naming the line and indexes nothing. Without origin the file is read from the root zone, and the zone it names itself (its first $ORIGIN, or the owner ' +
      'of its SOA record, whichever comes first, the root excepted) is its zone as if given as origin; a file that names none adds no asset and is indexed under the ' +
      `team's root domain assets alone. ${indexedDescription}`,
    tags: ['zones'],
    query: Type.Object({
      origin: Type.Optional(
        Type.String({
          description:
            "Starting origin and the zone's apex. Optional: when not given the file is read from the root zone and its apex is the zone the file names (first $ORIGIN, else its SOA owner), if any",
        }),
      ),
    }),
    rawBody: { contentType: 'text/plain', description: 'The zone file' },
    response: Indexed,
    successStatus: 200,
    errors: [1050, 1052, 2012, 2411, 2421],
    bodyLimit: zoneFileLimit,
    isStreamingBody: true,
    handler: async (ctx) =>
      answerIndexed(
        ctx,
        await uploadZoneFile(
          ctx.deps,
          ctx.deps.zoneEngine,
          ctx,
          ctx.input['origin'] as string | undefined,
          requiredUpload(ctx.bodyStream, 'the zone file'),
        ),
      ),
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/zone/lookup/file/',
    group: 'zones',
    operationId: 'uploadZoneLookupFile',
    summary: 'Upload zone lookup file',
    description:
      'One domain name per line, at most 50 MB, streamed to storage. Answers at once with the job UUID; a durable job resolves every name ' +
      "(UDP with TCP fallback, retries, bounded concurrency) through PERIMETER_DNS_RESOLVERS. Only names under the team's root domain assets are populated; " +
      'IP addresses, new apexes, invalid and duplicate names count as failed. A line holding NUL (U+0000) refuses the upload with 1051 naming the line.',
    tags: ['zones'],
    rawBody: { contentType: 'text/plain', description: 'Domain names, one per line' },
    response: Type.Object({ lookup_job_uuid: Type.String({ format: 'uuid' }) }),
    successStatus: 202,
    errors: [1050, 1051, 1052],
    bodyLimit: zoneLookupLimit,
    isStreamingBody: true,
    handler: async (ctx) => {
      const job = await createLookupJob(
        ctx.deps.store,
        ctx.team,
        requiredUpload(ctx.bodyStream, 'the names, one per line,'),
      );
      await enqueueZoneLookup(ctx.deps.jobs, job.uuid);
      return { status: 202, body: { lookup_job_uuid: job.uuid } };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/zone/lookup/{lookupJobUUID}/',
    group: 'zones',
    operationId: 'getZoneLookupStatus',
    summary: 'Zone lookup status',
    description:
      'status moves from queued to running to done (or failed); the counts grow while it runs. Readable for 10 days after upload, then 6002.',
    tags: ['zones'],
    params: Type.Object({ lookupJobUUID: Type.String({ format: 'uuid' }) }),
    input: { params: pathInput('lookupJobUUID') },
    response: Type.Object({
      uuid: Type.String({ format: 'uuid' }),
      status: Type.Union([
        Type.Literal('queued'),
        Type.Literal('running'),
        Type.Literal('done'),
        Type.Literal('failed'),
      ]),
      total: Type.Integer({ description: 'Names received' }),
      succeeded: Type.Integer(),
      failed: Type.Integer({
        description: "Invalid, duplicate, refused (outside the team's assets, IP addresses) and unresolved names",
      }),
    }),
    successStatus: 200,
    errors: [6001, 6002],
    handler: async (ctx) => {
      const job = await getLookupJob(ctx.deps.store, ctx.team, ctx.params['lookupJobUUID']!);
      return {
        status: 200,
        body: { uuid: job.uuid, status: job.status, total: job.total, succeeded: job.succeeded, failed: job.failed },
      };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/zone/transfer/',
    group: 'zones',
    operationId: 'zoneTransfer',
    summary: 'Zone transfer',
    description:
      `AXFR over TCP from nameServer (host name or IP address, optional :port; through the egress guard) for zone, given in the JSON body or the query. ${indexedDescription} ` +
      'A transfer that fails because of the name server or its address (refused, not authoritative, no answer in time, unreachable, a malformed answer, ' +
      'an address the egress guard denies) is the caller\'s problem, not a server fault: it answers 2412 (HTTP 400) with `parameters` `["nameServer"]` ' +
      'and a message saying which, and indexes nothing.',
    tags: ['zones'],
    query: Type.Object({ nameServer: Type.Optional(Type.String()), zone: Type.Optional(Type.String()) }),
    body: Type.Object({
      nameServer: Type.String({ examples: ['ns1.example.com', '192.0.2.53:5353'] }),
      zone: Type.String({ examples: ['example.com'] }),
    }),
    response: Indexed,
    successStatus: 200,
    errors: [1051, 2012, 2412, 2413],
    // Body or query: a field the body gives is not read from the query.
    isBodyOptional: true,
    input: { isAnyJsonBody: true, queryUnlessBody: ['nameServer', 'zone'] },
    handler: async (ctx) => {
      const body = ctx.body;
      const fields =
        body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      const nameServer = fields['nameServer'] ?? ctx.input['nameServer'];
      const zone = fields['zone'] ?? ctx.input['zone'];
      return answerIndexed(ctx, await transferAndIndex(ctx.deps, ctx.deps.zoneEngine, ctx, nameServer, zone));
    },
  }),
];
