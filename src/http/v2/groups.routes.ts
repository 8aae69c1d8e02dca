import { Type } from '@sinclair/typebox';
import { defaultAssetPageSize, maxAssetPageSize } from '../../core/assets/asset.types.ts';
import { assetPatternLanguage } from '../../core/groups/asset-pattern.ts';
import { listAssetsOfGroups } from '../../core/groups/group-assets.service.ts';
import {
  createGroup,
  deleteGroup,
  invalidGroupDescription,
  invalidGroupName,
  listGroups,
  updateGroup,
  type GroupInput,
} from '../../core/groups/group.service.ts';
import { pathInput } from './path-params.ts';
import { defineRoute, type RouteDef, type RouteInput } from '../route.ts';
import { presentAssetPage } from './asset.presenter.ts';
import { presentGroup } from './group.presenter.ts';
import { Group, GroupCreateBody, GroupTokenParam, GroupUpdateBody } from './group.schemas.ts';
import { Asset } from './assets.routes.ts';
import { EmptyObject, Token, pagedList } from './schemas.ts';

const nameRules =
  'Name: non-empty, shorter than 255 characters, letters, digits, underscore, dash and space, unique within the team ignoring case; description shorter than 255 characters. Each rule is 9002.';

/** The fields of a group body that fail the schema: 9002 naming the field and the rule (the name's uniqueness is the core's). */
const groupFieldInput: RouteInput = {
  order: ['name', 'description'],
  errors: { name: invalidGroupName, description: invalidGroupDescription },
};

/** The v2 group operations and the (experimental) assets of groups. */
export const groupRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/groups/assets/',
    group: 'groups',
    operationId: 'listAssetsOfGroups',
    summary: 'List assets of groups (experimental)',
    description:
      'Every asset of the team (roots and subdomains, in the order they were added) whose name matches any asset pattern of the given groups, ' +
      `keyset-paged like the asset listings. Experimental: may change without notice. ${assetPatternLanguage}`,
    tags: ['groups'],
    query: Type.Object({
      marker: Type.Optional(
        Type.String({
          description: 'Continuation marker (next_marker of the previous page with the same groups); empty starts over',
        }),
      ),
      pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: maxAssetPageSize, default: defaultAssetPageSize })),
      page_size: Type.Optional(
        Type.Integer({ minimum: 1, maximum: maxAssetPageSize, description: 'Alias of pageSize' }),
      ),
    }),
    body: Type.Array(Token, { description: 'Group tokens' }),
    // The group rule answers a body of another JSON type or malformed tokens (9001).
    input: { aliases: { page_size: 'pageSize' }, isAnyJsonBody: true },
    response: pagedList('assets', Asset, 'Asset list object of the matching assets'),
    successStatus: 200,
    errors: [1050, 1051, 4150, 9001, 9003],
    isExperimental: true,
    handler: async (ctx) => {
      const page = await listAssetsOfGroups(ctx.deps.store, ctx.deps.markers, ctx.team, {
        body: ctx.body,
        marker: ctx.input['marker'] as string | undefined,
        pageSize: (ctx.input['pageSize'] as number | undefined) ?? defaultAssetPageSize,
      });
      return { status: 200, json: presentAssetPage(page, { emptyTeamIsEmptyObject: false }) };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/groups/',
    group: 'groups',
    operationId: 'listGroups',
    summary: 'List groups',
    description: 'The groups of the team in creation order. A bare array.',
    tags: ['groups'],
    response: Type.Array(Group),
    successStatus: 200,
    errors: [],
    handler: async (ctx) => ({ status: 200, body: (await listGroups(ctx.deps.store, ctx.team)).map(presentGroup) }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/groups/',
    group: 'groups',
    operationId: 'createGroup',
    summary: 'Create group',
    description: nameRules,
    tags: ['groups'],
    body: GroupCreateBody,
    input: groupFieldInput,
    response: Group,
    successStatus: 200,
    errors: [1050, 1051, 9002],
    handler: async (ctx) => ({
      status: 200,
      body: presentGroup(await createGroup(ctx.deps.store, ctx.team, ctx.body as GroupInput)),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'PUT',
    alsoMethods: ['PATCH'],
    path: '/groups/{groupToken}/',
    group: 'groups',
    operationId: 'updateGroup',
    summary: 'Update group',
    description: `Changes the fields given (name, description); absent ones keep their value. ${nameRules}`,
    tags: ['groups'],
    params: GroupTokenParam,
    // The fields answer after the group's lookup (9003 before 9002).
    input: { params: pathInput('groupToken'), ...groupFieldInput, isBodyCheckedLate: true },
    body: GroupUpdateBody,
    response: Group,
    successStatus: 200,
    errors: [1050, 1051, 9001, 9002, 9003],
    handler: async (ctx) => ({
      status: 200,
      body: presentGroup(
        await updateGroup(
          ctx.deps.store,
          ctx.team,
          ctx.params['groupToken']!,
          () => ctx.checkedBody() as Partial<GroupInput>,
        ),
      ),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'DELETE',
    path: '/groups/{groupToken}/',
    group: 'groups',
    operationId: 'deleteGroup',
    summary: 'Delete group',
    description: 'Deletes the group with its members and asset patterns.',
    tags: ['groups'],
    params: GroupTokenParam,
    input: { params: pathInput('groupToken'), isUnusedBodyParsed: true },
    response: EmptyObject,
    successStatus: 200,
    errors: [9001, 9003],
    handler: async (ctx) => {
      await deleteGroup(ctx.deps.store, ctx.team, ctx.params['groupToken']!);
      return { status: 200, body: {} };
    },
  }),
];
