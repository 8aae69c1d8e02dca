import { accountLinkPath, issueAccountLink } from '../core/accounts/account-link.service.ts';
import { OperatorError } from '../core/errors/operator-error.ts';
import { inviteMembers } from '../core/members/member.service.ts';
import { memberRoles, type MemberRole } from '../core/members/member.types.ts';
import { requireTeam } from '../core/teams/team.service.ts';
import { accountPolicyOf } from '../core/accounts/account-policy.ts';
import { restorePasswordSignIn } from '../core/accounts/sso-members.service.ts';
import { normalizeEmail } from '../core/members/member-email.ts';
import type { CoreRuntime } from '../runtime.ts';
import type { ParsedArgs } from './args.ts';

/** The console's base URL for links: the public URL, else the local listening address. */
export function consoleBase(runtime: CoreRuntime): string {
  return runtime.config.publicUrl ?? `http://localhost:${runtime.config.port}`;
}

/** What a link command prints. */
export interface LinkOutput {
  email: string;
  team: string;
  purpose: 'invitation' | 'reset';
  url: string;
  expires: string;
  /** `member link --password` only: whether the member was switched from single sign-on. */
  switched_from_sso?: boolean;
}

function describe(out: LinkOutput): string {
  const what = out.purpose === 'invitation' ? 'sets the first password of' : 'sets a new password for';
  return `This link ${what} ${out.email} (team ${out.team}); it works once, until ${out.expires}:\n${out.url}`;
}

async function link(
  runtime: CoreRuntime,
  teamName: string,
  email: string,
): Promise<{ value: LinkOutput; human: string }> {
  const team = await requireTeam(runtime.store, teamName);
  const issued = await issueAccountLink(runtime.store, team, email, accountPolicyOf(runtime.config));
  const value: LinkOutput = {
    email: issued.member.email,
    team: team.name,
    purpose: issued.link.purpose,
    url: `${consoleBase(runtime)}${accountLinkPath(issued.token)}`,
    expires: issued.link.expires.toISOString(),
  };
  return { value, human: describe(value) };
}

/**
 * `member link EMAIL --team NAME [--password]`: a one-time console link (invitation while pending,
 * password reset once active). An sso member is refused unless `--password` asks to switch it to
 * password sign-in first (sso-members.service.ts: the console's rules, and its sessions end): the
 * way back in when the team's provider is broken and its Admins all sign in through it.
 */
export async function runMemberLink(runtime: CoreRuntime, args: ParsedArgs, email: string | undefined) {
  const teamName = args.flags['team'];
  if (email === undefined || teamName === undefined)
    throw new OperatorError('member link needs the EMAIL and --team NAME');
  const team = await requireTeam(runtime.store, teamName);
  if (!args.switches.has('password')) {
    const [member] = await runtime.store.members.findByEmails(team.id, [normalizeEmail(email) ?? email]);
    if (member?.authentication === 'sso')
      throw new OperatorError(
        `${member.email} signs in through single sign-on: no password link is needed. To switch them to a password (their sessions end), add --password.`,
      );
    return link(runtime, teamName, email);
  }
  const { member, wasSso } = await restorePasswordSignIn(runtime.store, team, email);
  const issued = await link(runtime, teamName, member.email);
  const value = { ...issued.value, switched_from_sso: wasSso };
  if (!wasSso) return { value, human: issued.human };
  const switched = `${member.email} no longer signs in through single sign-on: their sessions and earlier links ended.`;
  return { value, human: `${switched}\n${issued.human}` };
}

/** `member invite EMAIL --team NAME [--role R]`: invites a member (as the API does) and prints the invitation link. */
export async function runMemberInvite(runtime: CoreRuntime, args: ParsedArgs, email: string | undefined) {
  const teamName = args.flags['team'];
  if (email === undefined || teamName === undefined)
    throw new OperatorError('member invite needs the EMAIL and --team NAME');
  const role = (args.flags['role'] ?? 'Viewer').toLowerCase();
  const known = memberRoles.find((r) => r.toLowerCase() === role);
  if (known === undefined) throw new OperatorError(`unknown role "${args.flags['role']}" (${memberRoles.join(', ')})`);
  const team = await requireTeam(runtime.store, teamName);
  const [refused] = await inviteMembers(runtime.store, team, { email, role: known as MemberRole });
  if (refused !== undefined) throw new OperatorError(`${refused.email}: ${refused.reason}`);
  return link(runtime, teamName, email);
}
