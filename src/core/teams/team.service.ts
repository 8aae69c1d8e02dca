import { randomBytes } from 'node:crypto';
import { appError } from '../errors/app-error.ts';
import { OperatorError } from '../errors/operator-error.ts';
import { newToken } from '../shared/ids.ts';
import { defaultPlan, isPlanName, type PlanName } from './plans.ts';
import type { Team, TeamRepositories } from './team.types.ts';

const teamNamePattern = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,99}$/;

/** Creates a team with a fresh token and verification code. */
export async function createTeam(
  store: Pick<TeamRepositories, 'teams'>,
  name: string,
  plan: string = defaultPlan,
): Promise<Team> {
  if (!teamNamePattern.test(name))
    throw new OperatorError(`team name "${name}" must be 1-100 letters, digits, spaces, dots, dashes or underscores`);
  if (!isPlanName(plan)) throw new OperatorError(`unknown plan "${plan}" (starter, professional, enterprise)`);
  if ((await store.teams.findByName(name)) !== undefined)
    throw new OperatorError(`a team named "${name}" exists already`);
  return store.teams.insert({
    token: newToken(),
    name,
    plan: plan as PlanName,
    verificationCode: randomBytes(12).toString('hex'),
    created: new Date(),
  });
}

/** Finds a team by name or fails with an operator error. */
export async function requireTeam(store: Pick<TeamRepositories, 'teams'>, name: string): Promise<Team> {
  const team = await store.teams.findByName(name);
  if (team === undefined) throw new OperatorError(`no team named "${name}"`);
  return team;
}

/** Loads the team of an authenticated caller; a vanished team reads as an invalid key. */
export async function loadTeam(store: Pick<TeamRepositories, 'teams'>, id: number): Promise<Team> {
  const team = await store.teams.findById(id);
  if (team === undefined) throw appError(1003);
  return team;
}
