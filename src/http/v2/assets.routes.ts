import { Type } from '@sinclair/typebox';
import {
  assetRequestsPerSecond,
  customHeaderNamePattern,
  customHeaderValuePattern,
  defaultAssetSettings,
  malformedAssetSettings,
  portListTextPattern,
  portScanningFields,
  type AssetSettingsInput,
} from '../../core/assets/asset-settings.ts';
import {
  addAsset,
  deleteAsset,
  getAssetSettings,
  listAssets,
  updateAssetSettings,
} from '../../core/assets/asset.service.ts';
import { defaultAssetPageSize, maxAssetPageSize } from '../../core/assets/asset.types.ts';
import { parseTimeParameter } from '../../core/shared/time.ts';
import { v2ErrorBody } from '../errors.ts';
import { pathInput } from './path-params.ts';
import { defineRoute, type RouteContext, type RouteDef } from '../route.ts';
import type { RouteInput } from '../route.ts';
import { presentAsset, presentAssetPage } from './asset.presenter.ts';
import { EmptyObject, Timestamp, Token, pagedList } from './schemas.ts';

/** The v2 wire schema of an asset (also used by the assets of groups). */
export const Asset = Type.Object(
  {
    token: Token,
    name: Type.String({ description: 'Domain name or IP address' }),
    status: Type.Union([Type.Literal('verified'), Type.Literal('unverified')], {
      description: 'Ownership verification status',
    }),
    added_by: Type.Array(Type.String(), {
      description:
        'Origins: manual, zone-file, zone-transfer, zone-lookup, connector; surface monitoring: dns-scrape, certificate-scrape, page-scrape, brute-force, permutation, surface-monitoring (a held name a run saw again)',
    }),
    monitored: Type.Boolean(),
    created: Timestamp,
    updated: Timestamp,
    discovered: Timestamp,
    last_seen: Timestamp,
  },
  { $id: 'Asset' },
);

const PortList = Type.Union([
  Type.Array(Type.Integer({ minimum: 1, maximum: 65535 })),
  Type.String({ description: 'Comma-separated ports, e.g. "8080,8443"' }),
]);

const assetSettingProperties = {
  brute_force: Type.Boolean({ description: 'Brute-force subdomains; true only when scrape is true' }),
  custom_headers: Type.Record(Type.String({ pattern: '^[xX]-' }), Type.String(), {
    description: 'Header names start with x- or X-',
  }),
  enable_active_tls_assessments: Type.Boolean({ default: true }),
  enable_certificate_assessments: Type.Boolean({ default: true }),
  enable_passive_tls_assessments: Type.Boolean({ default: true }),
  enable_port_scanning: Type.Boolean({ default: true }),
  enable_tls_discovery: Type.Boolean({ default: true }),
  fingerprinting: Type.Boolean({ default: defaultAssetSettings.fingerprinting }),
  include_discovered_ports_in_surface_monitoring: Type.Boolean({ default: false }),
  monitoring: Type.Boolean({ default: false, description: 'Surface monitoring; verified domains only' }),
  port_scanning_avoid_list: PortList,
  port_scanning_force_list: PortList,
  port_scanning_include_recommended_ports: Type.Boolean({ default: true }),
  requests_per_second: Type.Integer({
    minimum: 0,
    maximum: assetRequestsPerSecond.max,
    default: defaultAssetSettings.requests_per_second,
    description: `${assetRequestsPerSecond.min} to ${assetRequestsPerSecond.max}, or 0 for no limit (as in scan profile settings)`,
  }),
  scrape: Type.Boolean({ default: defaultAssetSettings.scrape }),
  ssl_audit: Type.Boolean({ default: false, deprecated: true }),
  stateless_tests: Type.Boolean({ default: defaultAssetSettings.stateless_tests }),
  subdomain_takeover_tests: Type.Boolean({ default: defaultAssetSettings.subdomain_takeover_tests }),
};

const AssetSettings = Type.Object(assetSettingProperties, {
  $id: 'AssetSettings',
  description: 'Responses give all 18 fields, port lists as integer arrays.',
});

/** A port list of an update: integers from 1 to 65535, or their comma-separated text. */
const PortListUpdate = Type.Union([
  Type.Array(Type.Integer({ minimum: 1, maximum: 65535 })),
  Type.String({ pattern: portListTextPattern, description: 'Comma-separated ports, e.g. "8080,8443"' }),
]);

/**
 * The update body: the 14 older fields required (custom_headers may be null), the four
 * port-scanning fields optional, nothing else. A body that fails it is one 2422 listing every
 * problem (malformedAssetSettings), answered after the asset's lookup (2011, 2014).
 */
const AssetSettingsUpdate = Type.Object(
  {
    ...assetSettingProperties,
    custom_headers: Type.Union(
      [
        Type.Record(
          Type.String({ pattern: customHeaderNamePattern }),
          Type.String({ pattern: customHeaderValuePattern }),
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'Header names start with x- or X-, values are single lines without NUL; null means none' },
    ),
    port_scanning_avoid_list: Type.Optional(PortListUpdate),
    port_scanning_force_list: Type.Optional(PortListUpdate),
    ...Object.fromEntries(
      portScanningFields
        .filter((name) => !name.endsWith('_list'))
        .map((name) => [name, Type.Optional(assetSettingProperties[name])]),
    ),
  },
  {
    $id: 'AssetSettingsUpdate',
    additionalProperties: false,
    description:
      'The 14 fields other than the port-scanning ones are required (2422 names the missing ones). enable_port_scanning, ' +
      'port_scanning_avoid_list, port_scanning_force_list and port_scanning_include_recommended_ports may be left out, each on its own: ' +
      'a field left out keeps its current value (bodies written before port scanning existed). custom_headers null means no headers.',
  },
);

const AssetList = pagedList(
  'assets',
  Asset,
  'Asset list object. Listing root assets of a team that has none answers `{}`.',
);

const AssetTokenParam = Type.Object({ assetToken: Token });
const DomainTokenParam = Type.Object({ domainToken: Token });

const PageQuery = {
  marker: Type.Optional(
    Type.String({ description: 'Continuation marker (next_marker of the previous page); empty starts over' }),
  ),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: maxAssetPageSize, default: defaultAssetPageSize })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: maxAssetPageSize, description: 'Alias of pageSize' })),
};

/** The page query of the asset lists: page_size is an alias of pageSize. */
const pageInput: RouteInput = { aliases: { page_size: 'pageSize' } };

/** The page parameters of a validated query. */
function pageOf(input: RouteContext['input']): { marker: string | undefined; pageSize: number } {
  return {
    marker: input['marker'] as string | undefined,
    pageSize: (input['pageSize'] as number | undefined) ?? defaultAssetPageSize,
  };
}

async function listRoots(ctx: RouteContext) {
  const page = await listAssets(ctx.deps.store, ctx.deps.markers, ctx.team, {
    scope: ctx.input['include_subdomains'] === true ? 'all' : 'roots',
    ...pageOf(ctx.input),
    createdAfter: ctx.input['from'] as Date | undefined,
  });
  return { status: 200, json: presentAssetPage(page, { emptyTeamIsEmptyObject: true }) };
}

/** The six v2 asset operations. */
export const assetRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/assets/',
    group: 'assets',
    operationId: 'listRootAssets',
    summary: 'List root assets',
    description:
      'Keyset-paged in the order assets were added. `include_subdomains=true` lists every asset regardless of hierarchy: the asset rows in ' +
      'the order they were added, then the subdomains discovered by DNS (zone files, transfers, lookups) that are not assets themselves, ' +
      'in hierarchy order (labels compared from the right).',
    tags: ['assets'],
    query: Type.Object({
      ...PageQuery,
      from: Type.Optional(
        Type.String({
          description: 'Only assets created after this time (YYYY-MM-DDTHH:mm:ssZ, ±hhmm offset, or Unix seconds)',
        }),
      ),
      include_subdomains: Type.Optional(Type.Boolean()),
    }),
    input: {
      ...pageInput,
      order: ['from', 'include_subdomains', 'marker', 'pageSize'],
      decode: { from: (value, name) => parseTimeParameter(name, value) },
    },
    response: AssetList,
    successStatus: 200,
    errors: [1085, 4150],
    handler: listRoots,
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/assets/',
    group: 'assets',
    operationId: 'addAsset',
    summary: 'Add asset',
    description:
      'Adds a domain, subdomain or IP address (optionally `:port`, used to reach the verification file). Non-ASCII names are refused: send punycode. ' +
      'When a root asset of the team is an ancestor (the root apex), the name becomes its subdomain and the answer is 202 with error 2019 and the new asset under `asset`. ' +
      'The asset starts unverified; an ownership check (DNS TXT `perimeter-verification=<code>` or `/.well-known/perimeter-verification.txt`) runs right after.',
    tags: ['assets'],
    body: Type.Object({ name: Type.String({ examples: ['example.com', 'shop.example.com', '192.0.2.10:8443'] }) }),
    response: Asset,
    successStatus: 200,
    errors: [1050, 1051, 2012, 2018, 2019],
    handler: async (ctx) => {
      const body = ctx.body as Record<string, unknown>;
      const { asset, parent } = await addAsset(ctx.deps.store, ctx.team, body['name']);
      ctx.deps.verification.checkInBackground(ctx.team, asset);
      if (parent !== undefined) {
        const message = `Asset accepted as a subdomain of ${parent.name}, which is already a root asset; it appears in that asset's subdomains`;
        return { status: 202, body: { ...v2ErrorBody(2019, message, ['name']), asset: presentAsset(asset) } };
      }
      return { status: 200, body: presentAsset(asset) };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'DELETE',
    path: '/assets/{assetToken}/',
    group: 'assets',
    operationId: 'deleteAsset',
    summary: 'Delete asset',
    description: 'Deletes the asset and its subdomains.',
    tags: ['assets'],
    params: AssetTokenParam,
    input: { params: pathInput('assetToken'), isUnusedBodyParsed: true },
    response: EmptyObject,
    successStatus: 200,
    errors: [2011, 2014, 2026],
    handler: async (ctx) => {
      await deleteAsset(ctx.deps.store, ctx.team, ctx.params['assetToken']!);
      return { status: 200, body: {} };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/assets/{assetToken}/subdomains/',
    group: 'assets',
    operationId: 'listSubdomains',
    summary: 'List subdomains of a root asset',
    description:
      'Keyset-paged: the subdomains that are assets (added by hand, or acted upon) in the order they were added, then the names discovered ' +
      "by DNS under the root in hierarchy order (labels compared from the right). A discovered name's token answers like an asset's: " +
      'its settings (changing them makes it an asset of its own under the same token), its (empty) subdomains, and delete.',
    tags: ['assets'],
    params: AssetTokenParam,
    query: Type.Object(PageQuery),
    input: { ...pageInput, params: pathInput('assetToken') },
    response: AssetList,
    successStatus: 200,
    errors: [2011, 2014, 4150],
    handler: async (ctx) => {
      const page = await listAssets(ctx.deps.store, ctx.deps.markers, ctx.team, {
        scope: { subdomainsOf: ctx.params['assetToken']! },
        ...pageOf(ctx.input),
      });
      return { status: 200, json: presentAssetPage(page, { emptyTeamIsEmptyObject: false }) };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/domains/{domainToken}/settings/',
    aliases: ['/assets/{domainToken}/settings/'],
    group: 'assets',
    operationId: 'getAssetSettings',
    summary: 'Get asset settings',
    tags: ['assets'],
    params: DomainTokenParam,
    input: { params: pathInput('domainToken') },
    response: AssetSettings,
    successStatus: 200,
    errors: [2011, 2014],
    handler: async (ctx) => ({
      status: 200,
      body: await getAssetSettings(ctx.deps.store, ctx.team, ctx.params['domainToken']!),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'PUT',
    path: '/domains/{domainToken}/settings/',
    aliases: ['/assets/{domainToken}/settings/'],
    group: 'assets',
    operationId: 'updateAssetSettings',
    summary: 'Update asset settings',
    description:
      'Replaces the settings. The four port-scanning fields may be left out, and then keep their current values; every other field is required. ' +
      'Surface monitoring needs a verified domain (2425), never an IP (2423), and a free slot of the plan (2424).',
    tags: ['assets'],
    params: DomainTokenParam,
    body: AssetSettingsUpdate,
    // A body that fails the schema (another JSON type included) is one 2422 listing every
    // problem, answered after the asset's lookup (2011, 2014).
    input: {
      isAnyJsonBody: true,
      params: pathInput('domainToken'),
      bodyError: malformedAssetSettings,
      isBodyCheckedLate: true,
    },
    response: AssetSettings,
    successStatus: 200,
    errors: [1050, 1051, 2011, 2014, 2422, 2423, 2424, 2425, 2426],
    handler: async (ctx) => {
      return {
        status: 200,
        body: await updateAssetSettings(
          ctx.deps.store,
          ctx.team,
          ctx.params['domainToken']!,
          () => ctx.checkedBody() as AssetSettingsInput,
          ctx.deps.monitoring,
        ),
      };
    },
  }),
];
