import type { InvitationError } from '../../core/members/member.service.ts';
import type { Member } from '../../core/members/member.types.ts';
import { toWireTime } from '../../core/shared/time.ts';

/**
 * The v2 wire shape of a team member. Names are "" until the invitation is accepted;
 * `last_login` is absent until the user has logged in (timestamps are never empty strings);
 * `state` (pending/active) is an extension.
 */
export function presentMember(member: Member): Record<string, unknown> {
  const body: Record<string, unknown> = {
    user_token: member.userToken,
    first_name: member.firstName,
    last_name: member.lastName,
    email: member.email,
    role: member.role,
    state: member.state,
    authentication: member.authentication,
    created: toWireTime(member.created),
  };
  if (member.lastLogin !== null) body['last_login'] = toWireTime(member.lastLogin);
  return body;
}

/** The answer of an invitation request. */
export function presentInvitationErrors(errors: InvitationError[]): Record<string, unknown> {
  return { invitation_errors: errors.map((e) => ({ email: e.email, reason: e.reason })) };
}
