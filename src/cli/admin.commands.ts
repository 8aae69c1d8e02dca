import { checkAssetNow, markAssetVerified } from '../core/assets/asset-admin.service.ts';
import type { Asset } from '../core/assets/asset.types.ts';
import { acceptInvitation, listMembersForOperator } from '../core/members/member.service.ts';
import type { Member } from '../core/members/member.types.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../core/teams/api-key.service.ts';
import { plans } from '../core/teams/plans.ts';
import { createTeam, OperatorError, requireTeam } from '../core/teams/team.service.ts';
import { setProfileActive } from '../core/scans/scan-profile.service.ts';
import { isAppError } from '../core/errors/app-error.ts';
import type { Team } from '../core/teams/team.types.ts';
import type { Runtime } from '../runtime.ts';
import { runSeed } from './admin-seed.command.ts';
import { parseArgs } from './args.ts';

/** Where CLI output goes (tests capture it). */
export interface Output {
  out(text: string): void;
}

function presentTeam(team: Team) {
  const plan = plans[team.plan];
  return {
    name: team.name,
    token: team.token,
    plan: team.plan,
    verification_code: team.verificationCode,
    limits: { monitored_domains: plan.monitoredDomains, scan_profiles: plan.scanProfiles },
    endpoint_groups: plan.groups,
    created: team.created.toISOString(),
  };
}

function presentAssetLine(asset: Asset) {
  return { name: asset.name, token: asset.token, status: asset.status };
}

function presentMemberLine(member: Member) {
  return {
    email: member.email,
    user_token: member.userToken,
    role: member.role,
    state: member.state,
    first_name: member.firstName,
    last_name: member.lastName,
    authentication: member.authentication,
    created: member.created.toISOString(),
  };
}

function emit(output: Output, json: boolean, value: unknown, human: string): void {
  output.out(json ? JSON.stringify(value, null, 2) : human);
}

export const adminUsage = `usage:
  perimeter admin team create NAME [--plan starter|professional|enterprise] [--json]
  perimeter admin key create --team NAME [--v3] [--signing] [--permission GROUP ...] [--json]
  perimeter admin key revoke KEY
  perimeter admin key list --team NAME [--json]
  perimeter admin asset verify NAME [--team TEAM] [--json]
  perimeter admin asset check NAME [--team TEAM] [--json]
  perimeter admin member list --team NAME [--json]
  perimeter admin member accept EMAIL --team NAME [--first-name F] [--last-name L] [--authentication password|2fa|sso] [--json]
  perimeter admin profile deactivate|activate TOKEN --team NAME [--json]
  perimeter admin seed --team NAME --vulnerabilities N [--json]`;

/** Runs `perimeter admin …`: thin commands over the core services. */
export async function runAdmin(runtime: Runtime, argv: string[], output: Output): Promise<void> {
  const args = parseArgs(argv, { switches: ['json', 'v3', 'signing'], repeatable: ['permission'] });
  const [area, action, name] = args.positionals;
  const json = args.switches.has('json');
  const { store } = runtime;
  switch (`${area} ${action}`) {
    case 'team create': {
      if (name === undefined) throw new OperatorError('team create needs a NAME');
      const team = await createTeam(store, name, args.flags['plan']);
      return emit(output, json, presentTeam(team), `created team ${team.name} (plan ${team.plan}, verification code ${team.verificationCode})`);
    }
    case 'key create': {
      const teamName = args.flags['team'];
      if (teamName === undefined) throw new OperatorError('key create needs --team NAME');
      const created = await createApiKey(store, runtime.box, {
        teamName,
        kind: args.switches.has('v3') ? 'v3' : 'v2',
        signing: args.switches.has('signing'),
        permissions: args.lists['permission'] ?? [],
      });
      const value = created.secret === undefined ? { key: created.key } : { key: created.key, secret: created.secret };
      return emit(output, json, value, `key ${created.key}${created.secret ? `\nsigning secret ${created.secret}` : ''}\n(shown once; store it now)`);
    }
    case 'key revoke': {
      if (name === undefined) throw new OperatorError('key revoke needs the KEY');
      await revokeApiKey(store, name);
      return emit(output, json, { revoked: true }, 'key revoked');
    }
    case 'key list': {
      const teamName = args.flags['team'];
      if (teamName === undefined) throw new OperatorError('key list needs --team NAME');
      const keys = (await listApiKeys(store, teamName)).map((k) => ({
        hint: `${k.hint}…`,
        kind: k.kind,
        signing: k.secretSealed !== null,
        permissions: k.permissions ?? 'all of the plan',
        created: k.created.toISOString(),
        revoked: k.revoked?.toISOString() ?? null,
      }));
      return emit(output, json, keys, keys.map((k) => `${k.hint} ${k.kind}${k.signing ? ' signing' : ''} ${k.revoked ? `revoked ${k.revoked}` : 'active'}`).join('\n') || 'no keys');
    }
    case 'asset verify': {
      if (name === undefined) throw new OperatorError('asset verify needs the asset NAME');
      const asset = await markAssetVerified(store, name, args.flags['team']);
      return emit(output, json, presentAssetLine(asset), `${asset.name} is verified`);
    }
    case 'asset check': {
      if (name === undefined) throw new OperatorError('asset check needs the asset NAME');
      const { asset, result } = await checkAssetNow(store, runtime.verification, name, args.flags['team']);
      const value = { ...presentAssetLine(asset), verified_by: result.via ?? null, observations: result.observations };
      return emit(output, json, value, `${asset.name}: ${asset.status}${result.via ? ` (proven by ${result.via})` : ''}\n${result.observations.map((o) => `  ${o}`).join('\n')}`);
    }
    case 'member list': {
      const teamName = args.flags['team'];
      if (teamName === undefined) throw new OperatorError('member list needs --team NAME');
      const members = (await listMembersForOperator(store, teamName)).map(presentMemberLine);
      return emit(output, json, members, members.map((m) => `${m.email} ${m.role} ${m.state} ${m.user_token}`).join('\n') || 'no members');
    }
    case 'member accept': {
      const teamName = args.flags['team'];
      if (name === undefined || teamName === undefined) throw new OperatorError('member accept needs the EMAIL and --team NAME');
      const member = await acceptInvitation(store, teamName, name, {
        firstName: args.flags['first-name'],
        lastName: args.flags['last-name'],
        authentication: args.flags['authentication'],
      });
      return emit(output, json, presentMemberLine(member), `${member.email} is an active ${member.role} of team ${teamName}`);
    }
    case 'profile deactivate':
    case 'profile activate': {
      const teamName = args.flags['team'];
      if (name === undefined || teamName === undefined) throw new OperatorError(`profile ${action} needs the profile TOKEN and --team NAME`);
      const team = await requireTeam(store, teamName);
      const profile = await setProfileActive(store, team, name, action === 'activate').catch((err: unknown) => {
        throw isAppError(err) ? new OperatorError(err.message) : err;
      });
      return emit(output, json, { token: profile.token, endpoint: profile.endpoint, active: profile.isActive }, `profile ${profile.token} (${profile.endpoint}) is ${profile.isActive ? 'active' : 'deactivated'}`);
    }
    case 'seed undefined': {
      const result = await runSeed(runtime, args, output.out);
      return emit(output, json, result, `seeded: ${JSON.stringify(result)}`);
    }
    default:
      throw new OperatorError(adminUsage);
  }
}
