import { Type } from '@sinclair/typebox';
import {
  invalidInvitations,
  invitationReasons,
  invitationRolePattern,
  inviteMembers,
  listMembers,
  maxInvitations,
  type InvitationInput,
} from '../../core/members/member.service.ts';
import { memberAuthentications, memberRoles } from '../../core/members/member.types.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { presentInvitationErrors, presentMember } from './member.presenter.ts';
import { Timestamp, Token } from './schemas.ts';

const Role = Type.Union(
  memberRoles.map((r) => Type.Literal(r)),
  { description: 'Admin, Editor or Viewer (matched ignoring case)' },
);

const Member = Type.Object(
  {
    user_token: Token,
    first_name: Type.String({ description: 'Empty until the invitation is accepted' }),
    last_name: Type.String({ description: 'Empty until the invitation is accepted' }),
    email: Type.String({ format: 'email', description: 'Lowercase' }),
    role: Role,
    state: Type.Union([Type.Literal('pending'), Type.Literal('active')], {
      description: 'Extension: pending until the invitation is accepted',
    }),
    authentication: Type.Union(
      memberAuthentications.map((a) => Type.Literal(a)),
      {
        description:
          '`none` while a password invitation is pending; `sso` for a member who signs in (or, pending, will sign in) through single sign-on; else password or 2fa',
      },
    ),
    created: Timestamp,
    last_login: Type.Optional(
      Type.String({ format: 'date-time', description: 'ISO 8601 UTC; absent until the user has logged in' }),
    ),
  },
  { $id: 'Member' },
);

/** One invitation: a malformed e-mail address (or none) is reported in invitation_errors, not refused. */
const Invitation = Type.Object({
  email: Type.Optional(
    Type.Unknown({
      description: 'An e-mail address; anything else is listed in invitation_errors as malformed',
      examples: ['jane@example.com'],
    }),
  ),
  role: Type.String({ pattern: invitationRolePattern, description: 'Admin, Editor or Viewer (matched ignoring case)' }),
});

/** The invite body: up to 1000 invitations, or one as a single object. */
const InvitationBody = Type.Union([Type.Array(Invitation, { maxItems: maxInvitations }), Invitation]);

const reasons = Object.values(invitationReasons)
  .map((r) => `"${r}"`)
  .join(', ');

/** The two v2 member operations. */
export const memberRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/members/',
    group: 'members',
    operationId: 'listMembers',
    summary: 'List team members',
    description:
      'Every member of the team, pending invitations included, in the order they were invited. A bare array.',
    tags: ['members'],
    response: Type.Array(Member),
    successStatus: 200,
    errors: [],
    handler: async (ctx) => ({ status: 200, body: (await listMembers(ctx.deps.store, ctx.team)).map(presentMember) }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/members/',
    group: 'members',
    operationId: 'inviteMembers',
    summary: 'Invite members',
    description:
      `Invites up to ${maxInvitations} people by e-mail; each becomes a pending member. An invitation that cannot be made is listed in ` +
      `\`invitation_errors\` with its reason (${reasons}) and the others are made. ` +
      'A role other than Admin, Editor or Viewer is 8101 and makes none. A single object is accepted as a one-item array.',
    tags: ['members'],
    body: InvitationBody,
    // A body that fails the schema (another JSON type included) answers one error: 1051 for its
    // shape, else 8101 for the first bad role (invalidInvitations).
    input: { isAnyJsonBody: true, bodyError: invalidInvitations },
    response: Type.Object({
      invitation_errors: Type.Array(Type.Object({ email: Type.String(), reason: Type.String() }), {
        description: 'One per invitation that was not made',
      }),
    }),
    successStatus: 200,
    errors: [1050, 1051, 8101],
    handler: async (ctx) => {
      const errors = await inviteMembers(ctx.deps.store, ctx.team, ctx.body as InvitationInput[] | InvitationInput);
      return { status: 200, body: presentInvitationErrors(errors) };
    },
  }),
];
