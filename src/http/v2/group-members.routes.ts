import { Type } from '@sinclair/typebox';
import {
  addGroupMember,
  invalidGroupMemberUser,
  listGroupMembers,
  removeGroupMember,
} from '../../core/groups/group-member.service.ts';
import { latePathInput, pathInput } from './path-params.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { presentGroupMember } from './group.presenter.ts';
import { GroupMember, GroupMemberParams, GroupTokenParam } from './group.schemas.ts';
import { EmptyObject, Token } from './schemas.ts';

/** The three v2 group member operations. */
export const groupMemberRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/groups/{groupToken}/members/',
    group: 'groups',
    operationId: 'listGroupMembers',
    summary: 'List group members',
    description: 'The members of the group in the order they were added. A bare array.',
    tags: ['groups'],
    params: GroupTokenParam,
    input: { params: pathInput('groupToken') },
    response: Type.Array(GroupMember),
    successStatus: 200,
    errors: [9001, 9003],
    handler: async (ctx) => ({
      status: 200,
      body: (await listGroupMembers(ctx.deps.store, ctx.team, ctx.params['groupToken']!)).map(presentGroupMember),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/groups/{groupToken}/members/',
    group: 'groups',
    operationId: 'addGroupMember',
    summary: 'Add group member',
    description:
      'Adds a member of the team (the user_token of the member listing; pending invitations count) to the group. ' +
      'Adding a user who is in the group already answers the existing group member. `user_token` is accepted for `userToken`.',
    tags: ['groups'],
    params: GroupTokenParam,
    input: {
      params: pathInput('groupToken'),
      aliases: { user_token: 'userToken' },
      errors: { userToken: invalidGroupMemberUser },
      isBodyCheckedLate: true,
    },
    body: Type.Object({ userToken: Token }),
    response: GroupMember,
    successStatus: 200,
    errors: [1050, 1051, 9001, 9003, 9022, 9024],
    handler: async (ctx) => {
      const member = await addGroupMember(
        ctx.deps.store,
        ctx.team,
        ctx.params['groupToken']!,
        () => ctx.checkedBody() as { userToken: string },
      );
      return { status: 200, body: presentGroupMember(member) };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'DELETE',
    path: '/groups/{groupToken}/members/{groupMemberToken}/',
    group: 'groups',
    operationId: 'removeGroupMember',
    summary: 'Remove group member',
    description: 'Removes the member from the group (not from the team).',
    tags: ['groups'],
    params: GroupMemberParams,
    input: { params: pathInput('groupToken'), lateParams: latePathInput('groupMemberToken'), isUnusedBodyParsed: true },
    response: EmptyObject,
    successStatus: 200,
    errors: [9001, 9003, 9021, 9023],
    handler: async (ctx) => {
      const memberToken = () => ctx.checkedParam('groupMemberToken');
      await removeGroupMember(ctx.deps.store, ctx.team, ctx.params['groupToken']!, memberToken);
      return { status: 200, body: {} };
    },
  }),
];
