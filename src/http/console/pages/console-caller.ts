import type { SessionContext } from '../../../core/accounts/session.service.ts';
import type { Caller } from '../../../core/teams/caller.ts';

/**
 * The caller a console page hands to a core service that asks for one (zone uploads, connectors):
 * the signed-in member acting for its own team, with every endpoint group of the team's plan
 * (a member is not narrowed like an API key; the role is checked by the route's access). It
 * names no key: keyId 0 is never a stored key.
 */
export function consoleCaller(signedIn: SessionContext, kind: 'v2' | 'v3' = 'v2'): Caller {
  return { keyId: 0, keyHint: 'console', kind, permissions: null, teamIds: [signedIn.team.id] };
}
