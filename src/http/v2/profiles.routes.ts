import { Type } from '@sinclair/typebox';
import {
  invalidLoginSelector,
  invalidProfileSettings,
  scanProfileSettingsBodyLimit,
  type ProfileSettingsInput,
} from '../../core/scans/scan-profile-settings.ts';
import {
  createScanProfile,
  deleteScanProfile,
  getProfileSettings,
  listScanProfiles,
  updateProfileSettings,
} from '../../core/scans/scan-profile.service.ts';
// The core knows no selector syntax (.dependency-cruiser.cjs: core-is-the-centre): the face checks
// login selectors with the engine's compiler, the one the scanner matches them with.
import { compileSelector } from '../../engine/fingerprint/css-selector.ts';
import { pathInput } from './path-params.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { presentProfile, presentProfileSettings } from './scan.presenter.ts';
import {
  ProfileSettingsSchema,
  ProfileSettingsUpdateSchema,
  ProfileTokenParam,
  ScanProfileSchema,
} from './scan.schemas.ts';
import { EmptyObject, Token } from './schemas.ts';

/** The six v2 scan profile operations. */
export const profileRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/profiles/',
    group: 'profiles',
    operationId: 'listScanProfiles',
    summary: 'List scan profiles',
    description: 'Every application scan profile of the team, in creation order, with its latest scan.',
    tags: ['scan profiles'],
    response: Type.Array(ScanProfileSchema),
    successStatus: 200,
    errors: [],
    handler: async (ctx) => ({
      status: 200,
      body: (await listScanProfiles(ctx.deps, ctx.team)).map(presentProfile),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/profiles/',
    group: 'profiles',
    operationId: 'createScanProfile',
    summary: 'Create scan profile',
    description:
      'Body `{asset_token, endpoint, name?}`, or the older `{domain_token, endpoint, name?, unique?, valid?}`. The asset must be verified (2021, HTTP 423). ' +
      "The endpoint is `[http:// or https://]host[:port]` where host is the asset's name or lies under it (2607); anything else is 2606. " +
      'Before the profile is created the service sends a GET to the endpoint through its egress guard, HTTPS first, then HTTP (only the given scheme when one is given), ' +
      'following redirects that stay inside the asset; 2609 when nothing answers within 10 s. The scheme and port that answered are what scans use. ' +
      'A second profile for the same endpoint is 2605, unless `unique: true`, which answers the existing profile. `valid` is accepted for older clients and does not skip validation. ' +
      'The plan limits the number of profiles (2618). ' +
      "The oldest body, `{endpoint, name?, unique, valid?}` with neither token, infers the asset: the longest root asset of the team that is the endpoint's host or a parent of it " +
      '(an IP asset: that address; 2607 when none) and creates the profile without the ownership and reachability checks (no 2021, no 2609, nothing sent to the endpoint); ' +
      'its scans answer 2021 until the asset is verified and start from the scheme and port the endpoint names, else https on 443. Without a token and without `unique` the body is 1050.',
    tags: ['scan profiles'],
    body: Type.Object({
      asset_token: Type.Optional(Token),
      domain_token: Type.Optional(Token),
      endpoint: Type.String({ examples: ['example.com', 'https://shop.example.com:8443'] }),
      name: Type.Optional(Type.String({ maxLength: 255, description: 'Defaults to the endpoint' })),
      unique: Type.Optional(
        Type.Boolean({
          description:
            'true: an existing profile for the endpoint is answered instead of 2605. Present without a token: the oldest body (asset inferred from the endpoint)',
        }),
      ),
      valid: Type.Optional(Type.Boolean()),
    }),
    response: ScanProfileSchema,
    successStatus: 200,
    errors: [1050, 1051, 2011, 2014, 2021, 2602, 2605, 2606, 2607, 2609, 2618],
    handler: async (ctx) => {
      const profile = await createScanProfile(
        {
          store: ctx.deps.store,
          ports: ctx.deps.ports,
          engine: ctx.deps.scanEngine,
          validationTimeoutMs: ctx.deps.config.endpointValidationTimeoutMs,
        },
        ctx.team,
        ctx.body as Record<string, unknown>,
      );
      const latest = (await ctx.deps.store.scans.latestOf(ctx.team.id, [profile.id])).get(profile.id);
      return { status: 200, body: presentProfile({ profile, latest }) };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/profiles/{assetToken}/',
    group: 'profiles',
    operationId: 'listScanProfilesOfAsset',
    summary: 'List scan profiles of an asset',
    tags: ['scan profiles'],
    params: Type.Object({ assetToken: Token }),
    input: { params: pathInput('assetToken') },
    response: Type.Array(ScanProfileSchema),
    successStatus: 200,
    errors: [2011, 2014],
    handler: async (ctx) => ({
      status: 200,
      body: (await listScanProfiles(ctx.deps, ctx.team, ctx.params['assetToken']!)).map(presentProfile),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'DELETE',
    path: '/profiles/{scanProfileToken}/',
    group: 'profiles',
    operationId: 'deleteScanProfile',
    summary: 'Delete scan profile',
    description:
      'A running scan of the profile is stopped first; its reports go with it. Vulnerabilities the profile found stay.',
    tags: ['scan profiles'],
    params: ProfileTokenParam,
    input: { params: pathInput('scanProfileToken'), isUnusedBodyParsed: true },
    response: EmptyObject,
    successStatus: 200,
    errors: [2601, 2604],
    handler: async (ctx) => {
      await deleteScanProfile(ctx.deps.store, ctx.team, ctx.params['scanProfileToken']!);
      return { status: 200, body: {} };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/profiles/{scanProfileToken}/settings/',
    group: 'profiles',
    operationId: 'getScanProfileSettings',
    summary: 'Get scan profile settings',
    description: 'basic_auth and session_cookie are present only when set.',
    tags: ['scan profiles'],
    params: ProfileTokenParam,
    input: { params: pathInput('scanProfileToken') },
    response: ProfileSettingsSchema,
    successStatus: 200,
    errors: [2601, 2604],
    handler: async (ctx) => ({
      status: 200,
      body: presentProfileSettings(await getProfileSettings(ctx.deps.store, ctx.team, ctx.params['scanProfileToken']!)),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'PUT',
    alsoMethods: ['PATCH'],
    path: '/profiles/{scanProfileToken}/settings/',
    group: 'profiles',
    operationId: 'updateScanProfileSettings',
    summary: 'Update scan profile settings',
    description:
      'Partial update: fields absent from the body stay; an empty array removes all; null removes basic_auth, session_cookie or login. ' +
      'Each violation answers its own code naming the field: 2641 subdomain, 2642 path, 2643 port, 2651-2654 cookie, 2657/2658 header, 2671 report lifespan, ' +
      '2672 requests per second, 2673 scan region; a wrong type or an unknown field is 1051, as is a bad start_urls or login value (naming it, e.g. login.fields[0].name). Body at most 30 KB (1052).',
    tags: ['scan profiles'],
    params: ProfileTokenParam,
    body: ProfileSettingsUpdateSchema,
    // A body that fails the schema (another JSON type included) answers the first failing
    // field's code, after the profile's lookup (2601, 2604).
    input: {
      isAnyJsonBody: true,
      params: pathInput('scanProfileToken'),
      bodyError: invalidProfileSettings,
      isBodyCheckedLate: true,
    },
    response: ProfileSettingsSchema,
    successStatus: 200,
    errors: [
      1050, 1051, 1052, 1009, 2601, 2604, 2641, 2642, 2643, 2651, 2652, 2653, 2654, 2657, 2658, 2671, 2672, 2673,
    ],
    bodyLimit: scanProfileSettingsBodyLimit,
    handler: async (ctx) => ({
      status: 200,
      body: presentProfileSettings(
        await updateProfileSettings(ctx.deps.store, ctx.team, ctx.params['scanProfileToken']!, () => {
          const body = ctx.checkedBody() as ProfileSettingsInput;
          const error = invalidLoginSelector(body, (selector) => compileSelector(selector) !== undefined);
          if (error !== undefined) throw error;
          return body;
        }),
      ),
    }),
  }),
];
