import { Type } from '@sinclair/typebox';
import { assetPatternLanguage } from '../../core/groups/asset-pattern.ts';
import {
  createAssetPattern,
  deleteAssetPattern,
  listAssetPatterns,
  updateAssetPattern,
} from '../../core/groups/asset-pattern.service.ts';
import { latePathInput, pathInput } from './path-params.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { presentAssetPattern } from './group.presenter.ts';
import { AssetPattern, AssetPatternBody, AssetPatternParams, GroupTokenParam } from './group.schemas.ts';
import { EmptyObject } from './schemas.ts';

/** The four v2 asset pattern operations. */
export const assetPatternRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/groups/{groupToken}/assetpatterns/',
    group: 'groups',
    operationId: 'listAssetPatterns',
    summary: 'List asset patterns',
    description: 'The patterns of the group in creation order. A bare array.',
    tags: ['groups'],
    params: GroupTokenParam,
    input: { params: pathInput('groupToken') },
    response: Type.Array(AssetPattern),
    successStatus: 200,
    errors: [9001, 9003],
    handler: async (ctx) => ({
      status: 200,
      body: (await listAssetPatterns(ctx.deps.store, ctx.team, ctx.params['groupToken']!)).map(presentAssetPattern),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/groups/{groupToken}/assetpatterns/',
    group: 'groups',
    operationId: 'createAssetPattern',
    summary: 'Create asset pattern',
    description: `Adds a pattern to the group; it is stored in canonical (lowercase) form. ${assetPatternLanguage} An invalid pattern is 9012.`,
    tags: ['groups'],
    params: GroupTokenParam,
    input: { params: pathInput('groupToken') },
    body: AssetPatternBody,
    response: AssetPattern,
    successStatus: 200,
    errors: [1050, 1051, 9001, 9003, 9012],
    handler: async (ctx) => {
      const body = ctx.body as Record<string, unknown>;
      return {
        status: 200,
        body: presentAssetPattern(
          await createAssetPattern(ctx.deps.store, ctx.team, ctx.params['groupToken']!, body['pattern']),
        ),
      };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'PUT',
    alsoMethods: ['PATCH'],
    path: '/groups/{groupToken}/assetpatterns/{assetPatternToken}/',
    group: 'groups',
    operationId: 'updateAssetPattern',
    summary: 'Update asset pattern',
    description: `Replaces the pattern text. ${assetPatternLanguage}`,
    tags: ['groups'],
    params: AssetPatternParams,
    input: { params: pathInput('groupToken'), lateParams: latePathInput('assetPatternToken') },
    body: AssetPatternBody,
    response: AssetPattern,
    successStatus: 200,
    errors: [1050, 1051, 9001, 9003, 9011, 9012, 9013],
    handler: async (ctx) => {
      const body = ctx.body as Record<string, unknown>;
      const patternToken = () => ctx.checkedParam('assetPatternToken');
      return {
        status: 200,
        body: presentAssetPattern(
          await updateAssetPattern(ctx.deps.store, ctx.team, ctx.params['groupToken']!, patternToken, body['pattern']),
        ),
      };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'DELETE',
    path: '/groups/{groupToken}/assetpatterns/{assetPatternToken}/',
    group: 'groups',
    operationId: 'deleteAssetPattern',
    summary: 'Delete asset pattern',
    tags: ['groups'],
    params: AssetPatternParams,
    input: {
      params: pathInput('groupToken'),
      lateParams: latePathInput('assetPatternToken'),
      isUnusedBodyParsed: true,
    },
    response: EmptyObject,
    successStatus: 200,
    errors: [9001, 9003, 9011, 9013],
    handler: async (ctx) => {
      const patternToken = () => ctx.checkedParam('assetPatternToken');
      await deleteAssetPattern(ctx.deps.store, ctx.team, ctx.params['groupToken']!, patternToken);
      return { status: 200, body: {} };
    },
  }),
];
