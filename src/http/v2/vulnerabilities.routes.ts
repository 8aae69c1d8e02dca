import { FormatRegistry, Type } from '@sinclair/typebox';
import {
  changeMark,
  listVulnerabilityEvents,
  invalidTagName,
  isTagName,
  requireVulnerability,
  tagVulnerability,
  untagVulnerability,
} from '../../core/vulnerabilities/vulnerability-status.service.ts';
import type { Mark } from '../../core/vulnerabilities/vulnerability.types.ts';
import { cachedPage } from '../cached-page.ts';
import { pathInput } from './path-params.ts';
import { defineRoute, type RouteContext, type RouteDef } from '../route.ts';
import type { VulnerabilityListInput } from '../../core/vulnerabilities/vulnerability-list.service.ts';
import { EmptyObject } from './schemas.ts';
import { presentEvents, presentVulnerability, presentVulnerabilityPage } from './vulnerability.presenter.ts';
import {
  Vulnerability,
  VulnerabilityListQuery,
  VulnerabilityPage,
  vulnerabilityListInput,
} from './vulnerability.schemas.ts';

const UuidParam = Type.Object({ uuid: Type.String({ format: 'uuid' }) });

FormatRegistry.Set('tag-name', isTagName);
const TagName = Type.String({
  format: 'tag-name',
  description: 'Trimmed: 1 to 64 letters, digits, spaces and _ . : / -, starting with a letter or digit',
});

const markOperations: Array<{ path: string; mark: Mark; isSet: boolean; summary: string }> = [
  { path: 'setacceptedriskstatus', mark: 'accepted_risk', isSet: true, summary: 'Set accepted risk' },
  { path: 'setfalsepositivestatus', mark: 'false_positive', isSet: true, summary: 'Set false positive' },
  { path: 'setfixedstatus', mark: 'fixed', isSet: true, summary: 'Set fixed (reads patched)' },
  { path: 'unsetacceptedriskstatus', mark: 'accepted_risk', isSet: false, summary: 'Unset accepted risk' },
  { path: 'unsetfalsepositivestatus', mark: 'false_positive', isSet: false, summary: 'Unset false positive' },
  { path: 'unsetfixedstatus', mark: 'fixed', isSet: false, summary: 'Unset fixed' },
];

const markDescription =
  'Manual marks sit on top of the detection state (new, active, patched, regression) and survive rescans, except a fixed mark, which a later detection lifts (the status reads regression). Setting a mark replaces another; ' +
  'unsetting returns the status to the detection state (unsetting a mark the vulnerability does not carry changes nothing). ' +
  'Every change bumps modified_at and is recorded in the events of the vulnerability (GET …/events/). An unknown or foreign UUID answers 1900 (404).';

/** Default page size of the vulnerability list. */
const defaultVulnerabilityPageSize = 100;

/** Distinct values of a validated list, lowercased where case does not matter. */
function distinct(input: RouteContext['input'], name: string, lower = false): string[] | undefined {
  const values = input[name] as string[] | undefined;
  return values === undefined ? undefined : [...new Set(lower ? values.map((v) => v.toLowerCase()) : values)];
}

/** The validated list query as the service takes it (the console reads its filters through it too). */
export function listInputOf(input: RouteContext['input']): VulnerabilityListInput {
  const filter: VulnerabilityListInput['filter'] = {};
  const fields: Array<[keyof VulnerabilityListInput['filter'], unknown]> = [
    ['severity', distinct(input, 'severity[]')],
    ['severityV3', distinct(input, 'severityV3[]')],
    ['scanSource', distinct(input, 'scan_source[]')],
    ['status', distinct(input, 'status[]')],
    ['title', distinct(input, 'title[]')],
    ['host', distinct(input, 'host[]')?.map((h) => h.toLowerCase())],
    ['assetTokens', distinct(input, 'asset_token[]', true)],
    ['excludeAssetTokens', distinct(input, 'exclude_asset_token[]', true)],
    ['scanProfileToken', distinct(input, 'scan_profile_token[]', true)],
    ['tags', distinct(input, 'tag[]', true)],
    ['excludeTags', distinct(input, 'exclude_tag[]', true)],
    ['groupTokens', distinct(input, 'group_token[]', true)],
    ['createdAfter', input['created_after']],
    ['createdBefore', input['created_before']],
    ['updatedAfter', input['updated_after']],
    ['updatedBefore', input['updated_before']],
    ['modifiedAfter', input['modified_after']],
    ['modifiedBefore', input['modified_before']],
  ];
  for (const [key, value] of fields) if (value !== undefined) (filter as Record<string, unknown>)[key] = value;
  return {
    filter,
    marker: input['marker'] as string | undefined,
    pageSize: (input['pageSize'] as number | undefined) ?? defaultVulnerabilityPageSize,
  };
}

/** The vulnerability operations of v2, plus the tag and event extensions. */
export const vulnerabilityRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/vulnerabilities/',
    group: 'vulnerabilities',
    operationId: 'listVulnerabilities',
    summary: 'List vulnerabilities',
    description:
      'Keyset-paged in the order vulnerabilities were first recorded; markers stay correct while rows are added or change status. ' +
      'created_* and updated_* bounds are inclusive, modified_* bounds exclusive. HTML, Markdown and text details longer than 16,000 characters are truncated here and complete in the single read. ' +
      'total_vulnerabilities counts every match of the filter (computed once per data version, not per page).',
    tags: ['vulnerabilities'],
    query: VulnerabilityListQuery,
    input: vulnerabilityListInput,
    isQueryCheckedOnUse: true,
    response: VulnerabilityPage,
    successStatus: 200,
    errors: [1085, 4085, 4110, 4115, 4150, 9001, 9003],
    handler: async (ctx) => {
      const { vulnerabilities, pageCache } = ctx.deps;
      const version = await vulnerabilities.version(ctx.team);
      // Keyed by the query string as sent: a hit means that exact query was parsed and answered
      // before at this data version, so it is sent as cached UTF-8 bytes without parsing again.
      const rawQuery = ctx.request.url.slice(ctx.request.url.indexOf('?') + 1 || ctx.request.url.length);
      const key = `${ctx.team.id}:${version}:${rawQuery}`;
      const json = await cachedPage(pageCache, key, async () =>
        presentVulnerabilityPage(await vulnerabilities.list(ctx.team, listInputOf(ctx.checkedQuery()), version)),
      );
      return { status: 200, json };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/vulnerabilities/uuid/{uuid}/',
    group: 'vulnerabilities',
    operationId: 'getVulnerability',
    summary: 'Get vulnerability',
    tags: ['vulnerabilities'],
    params: UuidParam,
    input: { params: pathInput('uuid') },
    response: Type.Object({ vulnerability: Vulnerability }),
    successStatus: 200,
    errors: [4111, 1900],
    handler: async (ctx) => ({
      status: 200,
      json: presentVulnerability(await requireVulnerability(ctx.deps.store, ctx.team, ctx.params['uuid']!)),
    }),
  }),
  ...markOperations.map((op) =>
    defineRoute({
      surface: 'v2',
      method: 'POST',
      path: `/vulnerabilities/uuid/{uuid}/${op.path}/`,
      group: 'vulnerabilities',
      operationId: op.path,
      summary: op.summary,
      description: markDescription,
      tags: ['vulnerabilities'],
      params: UuidParam,
      input: { params: pathInput('uuid'), isUnusedBodyParsed: true },
      response: EmptyObject,
      successStatus: 200,
      errors: [4111, 1900],
      handler: async (ctx) => {
        await changeMark(
          ctx.deps.store,
          ctx.team,
          ctx.params['uuid']!,
          op.mark,
          op.isSet,
          `key ${ctx.caller.keyHint}…`,
        );
        return { status: 200, body: {} };
      },
    }),
  ),
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/vulnerabilities/uuid/{uuid}/events/',
    group: 'vulnerabilities',
    operationId: 'listVulnerabilityEvents',
    summary: 'Status events of a vulnerability (extension)',
    description:
      'Every status change by a mark: the key that made it (or `scan:<token>` when a scan detected a fixed vulnerability again and lifted the mark), the action, the status before and after, and when.',
    tags: ['vulnerabilities'],
    isExtension: true,
    params: UuidParam,
    input: { params: pathInput('uuid') },
    response: Type.Object({
      events: Type.Array(
        Type.Object({
          actor: Type.String(),
          action: Type.String(),
          from: Type.String(),
          to: Type.String(),
          at: Type.String({ format: 'date-time' }),
        }),
      ),
    }),
    successStatus: 200,
    errors: [4111, 1900],
    handler: async (ctx) => ({
      status: 200,
      body: presentEvents(await listVulnerabilityEvents(ctx.deps.store, ctx.team, ctx.params['uuid']!)),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/vulnerabilities/uuid/{uuid}/tags/',
    group: 'vulnerabilities',
    operationId: 'tagVulnerability',
    summary: 'Tag a vulnerability (extension)',
    description:
      'Attaches the team tag of that name (created on first use). The tag UUID is what tag[] and exclude_tag[] filter on. Bumps modified_at.',
    tags: ['vulnerabilities'],
    isExtension: true,
    params: UuidParam,
    body: Type.Object({ name: TagName }),
    input: { errors: { name: invalidTagName } },
    response: Type.Object({ name: Type.String(), uuid: Type.String({ format: 'uuid' }) }),
    successStatus: 200,
    errors: [1050, 1051, 4111, 1900],
    handler: async (ctx) => {
      const { name } = ctx.body as { name: string };
      const tag = await tagVulnerability(ctx.deps.store, ctx.team, ctx.params['uuid']!, name.trim());
      return { status: 200, body: { name: tag.name, uuid: tag.uuid } };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'DELETE',
    path: '/vulnerabilities/uuid/{uuid}/tags/{tagUuid}/',
    group: 'vulnerabilities',
    operationId: 'untagVulnerability',
    summary: 'Remove a tag from a vulnerability (extension)',
    tags: ['vulnerabilities'],
    isExtension: true,
    params: Type.Object({ uuid: Type.String({ format: 'uuid' }), tagUuid: Type.String({ format: 'uuid' }) }),
    input: { params: pathInput('uuid'), isUnusedBodyParsed: true },
    response: EmptyObject,
    successStatus: 200,
    errors: [4111, 1900],
    handler: async (ctx) => {
      await untagVulnerability(ctx.deps.store, ctx.team, ctx.params['uuid']!, ctx.params['tagUuid']!);
      return { status: 200, body: {} };
    },
  }),
];
