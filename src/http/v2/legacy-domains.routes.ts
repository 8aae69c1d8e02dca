import { Type } from '@sinclair/typebox';
import { addAsset } from '../../core/assets/asset.service.ts';
import { collectSubdomains, listDomains } from '../../core/legacy/legacy-domains.service.ts';
import { joinRuns, withEnvelope } from '../../shared/page-render.mjs';
import {
  collectFindingUuids,
  domainScope,
  getDomainFinding,
  legacyFindingCap,
  legacyListCap,
  pageDomainFindings,
} from '../../core/legacy/legacy-findings.service.ts';
import { maxVulnerabilityPageSize } from '../../core/vulnerabilities/vulnerability-list.service.ts';
import { v2ErrorBody } from '../errors.ts';
import { latePathInput, pathInput } from './path-params.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { Asset } from './assets.routes.ts';
import {
  answerFinding,
  answerFindings,
  legacyNote,
  legacyRouteBase,
  markTruncated,
  findingFilterInput,
  findingFilterOf,
} from './legacy-route-support.ts';
import { presentDomain, presentOldFindings } from './legacy.presenter.ts';
import { FindingQuery, LegacyDomain, OldFinding, OldFindingPage } from './legacy.schemas.ts';
import { Token } from './schemas.ts';

const DomainTokenParam = Type.Object({ domainToken: Token });
const legacy = legacyRouteBase('domains (deprecated)');

/** The older v2 domain operations: a domain is a root asset, a finding a vulnerability. */
export const legacyDomainRoutes: RouteDef[] = [
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/domains/',
    group: 'assets',
    operationId: 'legacyListDomains',
    summary: 'List domains (deprecated)',
    description: `Every root asset of the team (domain names and IP addresses) in the order they were added, as a bare array; at most ${legacyListCap} (then the header x-perimeter-truncated: true). ${legacyNote}`,
    response: Type.Array(LegacyDomain),
    errors: [],
    handler: async (ctx) => {
      const { domains, isTruncated } = await listDomains(ctx.deps.store, ctx.team);
      markTruncated(ctx, isTruncated);
      return { status: 200, body: domains.map((d) => presentDomain(d, ctx.team)) };
    },
  }),
  defineRoute({
    ...legacy,
    method: 'POST',
    path: '/domains/',
    group: 'assets',
    operationId: 'legacyAddDomain',
    summary: 'Add domain (deprecated)',
    description: `Adds an asset with the rules and errors of POST /assets/ and answers it as a domain; when a root asset of the team is an ancestor the answer is 202 with error 2019 and the new asset under \`domain\`. ${legacyNote}`,
    body: Type.Object({ name: Type.String({ examples: ['example.com'] }) }),
    response: LegacyDomain,
    errors: [1050, 1051, 2012, 2018, 2019],
    handler: async (ctx) => {
      const { asset, parent } = await addAsset(ctx.deps.store, ctx.team, (ctx.body as Record<string, unknown>)['name']);
      ctx.deps.verification.checkInBackground(ctx.team, asset);
      if (parent === undefined) return { status: 200, body: presentDomain(asset, ctx.team) };
      const message = `Asset accepted as a subdomain of ${parent.name}, which is already a root asset; it appears in that domain's subdomains`;
      return { status: 202, body: { ...v2ErrorBody(2019, message, ['name']), domain: presentDomain(asset, ctx.team) } };
    },
  }),
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/domains/{domainToken}/subdomains/',
    group: 'assets',
    operationId: 'legacyListSubdomains',
    summary: 'List subdomains of a domain (deprecated)',
    description: `The items of GET /assets/{assetToken}/subdomains/ (subdomain assets, then names discovered by DNS) as one bare array; at most ${legacyListCap} (then x-perimeter-truncated: true). ${legacyNote}`,
    params: DomainTokenParam,
    input: { params: pathInput('domainToken') },
    response: Type.Array(Asset),
    errors: [2011, 2014],
    handler: async (ctx) => {
      const { items, isTruncated } = await collectSubdomains(
        ctx.deps,
        ctx.deps.markers,
        ctx.team,
        ctx.params['domainToken']!,
      );
      markTruncated(ctx, isTruncated);
      return { status: 200, json: withEnvelope('[', joinRuns(items), ']') };
    },
  }),
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/domains/{domainToken}/findings/',
    group: 'vulnerabilities',
    operationId: 'legacyListDomainFindings',
    summary: 'Findings of a domain (deprecated)',
    description:
      `The vulnerabilities of the domain and its subdomain assets as old findings, in the order they were first recorded; a bare array of at most ${legacyFindingCap} ` +
      `(then x-perimeter-truncated: true; the paginated read has them all). ${legacyNote}`,
    params: DomainTokenParam,
    query: Type.Object(FindingQuery),
    input: { ...findingFilterInput, params: pathInput('domainToken') },
    response: Type.Array(OldFinding),
    errors: [1085, 2011, 2014, 4085, 4150],
    handler: (ctx) => answerFindings(ctx, () => domainScope(ctx.deps, ctx.team, ctx.params['domainToken']!)),
  }),
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/domains/{domainToken}/findings/paginated/',
    group: 'vulnerabilities',
    operationId: 'legacyListDomainFindingsPaginated',
    summary: 'Findings of a domain, paged (deprecated)',
    description: `Keyset pages of the domain's findings; \`next_marker\` and \`nextMarker\` (same value) are absent on the last page. A marker of another domain or team is 4150. ${legacyNote}`,
    params: DomainTokenParam,
    query: Type.Object({
      ...FindingQuery,
      marker: Type.Optional(
        Type.String({ description: 'next_marker (or nextMarker) of the previous page; empty starts over' }),
      ),
      pageSize: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: maxVulnerabilityPageSize,
          default: maxVulnerabilityPageSize,
          description: 'Also page_size',
        }),
      ),
    }),
    input: {
      ...findingFilterInput,
      order: ['from', 'to', 'severity', 'pageSize', 'marker'],
      aliases: { page_size: 'pageSize' },
      params: pathInput('domainToken'),
    },
    response: OldFindingPage,
    errors: [1085, 2011, 2014, 4085, 4150],
    handler: async (ctx) => {
      const filter = findingFilterOf(ctx.input);
      const size = (ctx.input['pageSize'] as number | undefined) ?? maxVulnerabilityPageSize;
      const page = await pageDomainFindings(ctx.deps, ctx.deps.markers, ctx.team, ctx.params['domainToken']!, filter, {
        marker: ctx.input['marker'] as string | undefined,
        size,
      });
      const next = page.nextMarker;
      return {
        status: 200,
        body: {
          findings: presentOldFindings(page),
          ...(next === undefined ? {} : { next_marker: next, nextMarker: next }),
        },
      };
    },
  }),
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/domains/{domainToken}/findings/{uuid}/',
    group: 'vulnerabilities',
    operationId: 'legacyGetDomainFinding',
    summary: 'One finding of a domain (deprecated)',
    description: `Details complete (never truncated). An unknown UUID, another team's, or one of another domain answers 1900 (404). ${legacyNote}`,
    params: Type.Object({ domainToken: Token, uuid: Type.String({ format: 'uuid' }) }),
    // The UUID answers after the domain's lookup.
    input: { params: pathInput('domainToken'), lateParams: latePathInput('uuid') },
    response: OldFinding,
    errors: [1900, 2011, 2014, 4111],
    handler: async (ctx) =>
      answerFinding(
        await getDomainFinding(ctx.deps, ctx.team, ctx.params['domainToken']!, () => ctx.checkedParam('uuid')),
      ),
  }),
  defineRoute({
    ...legacy,
    method: 'GET',
    path: '/domains/{domainToken}/findinguuids/',
    group: 'vulnerabilities',
    operationId: 'legacyListDomainFindingUuids',
    summary: 'Finding UUIDs of a domain (deprecated)',
    description: `The UUIDs of the domain's findings, in the order they were first recorded; a bare array of at most ${legacyListCap} (then x-perimeter-truncated: true). ${legacyNote}`,
    params: DomainTokenParam,
    query: Type.Object(FindingQuery),
    input: { ...findingFilterInput, params: pathInput('domainToken') },
    response: Type.Array(Type.String({ format: 'uuid' })),
    errors: [1085, 2011, 2014, 4085, 4150],
    handler: async (ctx) => {
      const filter = findingFilterOf(ctx.input);
      const { uuids, isTruncated } = await collectFindingUuids(
        ctx.deps.store,
        ctx.team,
        await domainScope(ctx.deps, ctx.team, ctx.params['domainToken']!),
        filter,
      );
      markTruncated(ctx, isTruncated);
      return { status: 200, body: uuids };
    },
  }),
];
