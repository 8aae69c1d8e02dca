import { appError } from '../errors/app-error.ts';
import { plans, type EndpointGroup } from './plans.ts';
import type { Team } from './team.types.ts';

/** The authenticated caller of a request. */
export interface Caller {
  keyId: number;
  /** First characters of the key, for audit trails. */
  keyHint: string;
  kind: 'v2' | 'v3';
  permissions: EndpointGroup[] | null;
  teamIds: number[];
}

/** 1009 unless both the team's plan and the key's permissions include the endpoint group. */
export function assertCanCall(caller: Caller, team: Team, group: EndpointGroup): void {
  const inPlan = (plans[team.plan].groups as readonly EndpointGroup[]).includes(group);
  const inKey = caller.permissions === null || caller.permissions.includes(group);
  if (!inPlan || !inKey) throw appError(1009, `This API key cannot access the ${group} endpoints`);
}
