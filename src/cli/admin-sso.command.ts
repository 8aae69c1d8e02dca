import { readFileSync } from 'node:fs';
import { readSsoSettings, removeSsoSettings, saveSsoSettings } from '../core/accounts/sso-settings.service.ts';
import { OperatorError } from '../core/errors/operator-error.ts';
import { requireTeam } from '../core/teams/team.service.ts';
import type { CoreRuntime } from '../runtime.ts';
import type { ParsedArgs } from './args.ts';
import { consoleBase } from './admin-member-link.command.ts';

/**
 * `sso show|set|remove --team NAME`: a team's single sign-on provider, as an Admin sets it on the
 * console's /team/sso (the same service, rules and messages). The client secret is read from a
 * file (`--client-secret-file`), never from the command line, where other users of the machine
 * and the shell's history would see it; it is never printed.
 */
export async function runSso(runtime: CoreRuntime, args: ParsedArgs, action: string | undefined) {
  const teamName = args.flags['team'];
  if (teamName === undefined) throw new OperatorError(`sso ${action} needs --team NAME`);
  const team = await requireTeam(runtime.store, teamName);
  const redirectUri = `${consoleBase(runtime)}/signin/sso/callback`;
  if (action === 'remove') {
    const removed = await removeSsoSettings(runtime.store, team);
    return {
      value: { team: team.name, removed },
      human: removed ? `Single sign-on of team ${team.name} is off.` : `Team ${team.name} had no single sign-on.`,
    };
  }
  if (action === 'set') {
    const file = args.flags['client-secret-file'];
    const result = await saveSsoSettings({ store: runtime.store, box: runtime.box, oidc: runtime.oidc }, team, {
      issuer: args.flags['issuer'] ?? '',
      clientId: args.flags['client-id'] ?? '',
      clientSecret: file === undefined ? '' : readFileSync(file, 'utf8').trim(),
    });
    if (result.kind === 'invalid') throw new OperatorError(result.message);
  }
  const settings = await readSsoSettings(runtime.store, team);
  const value = {
    team: team.name,
    issuer: settings?.issuer ?? null,
    client_id: settings?.clientId ?? null,
    updated: settings?.updated.toISOString() ?? null,
    redirect_uri: redirectUri,
  };
  const human =
    settings === undefined
      ? `Team ${team.name} has no single sign-on. Register ${redirectUri} with the provider, then: perimeter admin sso set --team ${team.name} --issuer URL --client-id ID --client-secret-file PATH`
      : `Team ${team.name} signs in through ${settings.issuer} as client ${settings.clientId} (secret stored, not shown).\nRedirect URI to register with the provider: ${redirectUri}`;
  return { value, human };
}
