import type { Asset } from '../core/assets/asset.types.ts';
import type { Member } from '../core/members/member.types.ts';
import type { SurfaceRunListing, SurfaceRunSummary } from '../core/surface/surface-run.types.ts';
import { createApiKey, listApiKeys, revokeApiKey, type Revocation } from '../core/teams/api-key.service.ts';
import { plans } from '../core/teams/plans.ts';
import { OperatorError } from '../core/errors/operator-error.ts';
import { createTeam, requireTeam } from '../core/teams/team.service.ts';
import { isAppError } from '../core/errors/app-error.ts';
import type { ApiKey, Team } from '../core/teams/team.types.ts';
import type { CoreRuntime } from '../runtime.ts';
import { isHelpRequest, parseArgs, UsageError, type ParsedArgs } from './args.ts';
import { configFlagNames } from '../config/config.ts';
import { formatTable, formatTime } from './table.ts';

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

function presentKey(key: ApiKey) {
  return {
    id: key.publicId,
    hint: `${key.hint}…`,
    kind: key.kind,
    permissions: key.permissions ?? 'all of the plan',
    signing: key.secretSealed !== null,
    created: key.created.toISOString(),
    last_used: key.lastUsed?.toISOString() ?? null,
    revoked: key.revoked?.toISOString() ?? null,
  };
}

function keyTable(keys: ApiKey[]): string {
  const rows = keys.map((k) => [
    k.publicId,
    `${k.hint}…`,
    k.kind,
    k.permissions?.join(',') ?? 'all of the plan',
    k.secretSealed === null ? 'no' : 'yes',
    formatTime(k.created, ''),
    formatTime(k.lastUsed, 'never'),
    formatTime(k.revoked, 'no'),
  ]);
  return formatTable(['ID', 'HINT', 'KIND', 'PERMISSIONS', 'SIGNING', 'CREATED', 'LAST USED', 'REVOKED'], rows);
}

function presentRevocation({ key, teams, wasRevoked }: Revocation) {
  return {
    id: key.publicId,
    kind: key.kind,
    teams: teams.map((t) => t.name),
    revoked: key.revoked?.toISOString() ?? null,
    was_revoked: wasRevoked,
  };
}

function describeRevocation({ key, teams, wasRevoked }: Revocation): string {
  const owner = `${key.kind}, team ${teams.map((t) => t.name).join(', ') || '(none)'}`;
  return wasRevoked
    ? `key ${key.publicId} (${owner}) was revoked already, at ${formatTime(key.revoked, '')}`
    : `revoked key ${key.publicId} (${owner})`;
}

function emit(output: Output, json: boolean, value: unknown, human: string): void {
  output.out(json ? JSON.stringify(value, null, 2) : human);
}

const usageLines = `  perimeter admin team create NAME [--plan starter|professional|enterprise] [--json]
  perimeter admin key create --team NAME [--v3] [--signing] [--permission GROUP ...] [--json]
  perimeter admin key list --team NAME [--json]
  perimeter admin key revoke ID|KEY [--json]
  perimeter admin asset verify NAME [--team TEAM] [--json]
  perimeter admin asset check NAME [--team TEAM] [--json]
  perimeter admin member list --team NAME [--json]
  perimeter admin member accept EMAIL --team NAME [--first-name F] [--last-name L] [--authentication password|2fa|sso] [--json]
  perimeter admin member invite EMAIL --team NAME [--role Admin|Editor|Viewer] [--json]
  perimeter admin member link EMAIL --team NAME [--password] [--json]
  perimeter admin sso show|set|remove --team NAME [--issuer URL] [--client-id ID] [--client-secret-file PATH] [--json]
  perimeter admin profile deactivate|activate TOKEN --team NAME [--json]
  perimeter admin monitoring list [--team NAME] [--limit N] [--json]
  perimeter admin seed --team NAME --vulnerabilities N [--json]`.split('\n');

const usageFooter = `
The store is the one \`perimeter serve\` uses: DATA_DIR (embedded) or DATABASE_URL (PostgreSQL).
key list shows each key's id; key revoke takes that id or the key itself.`;

/** The usage of `perimeter admin`, or of one area of it (`key`, `team` …) when it names one. */
export function adminUsage(area?: string): string {
  const lines = usageLines.filter((l) => l.startsWith(`  perimeter admin ${area} `));
  return `usage:\n${(lines.length > 0 ? lines : usageLines).join('\n')}${lines.length > 0 ? '' : `\n${usageFooter}`}`;
}

const commands = new Set([
  'team create',
  'key create',
  'key list',
  'key revoke',
  'asset verify',
  'asset check',
  'member list',
  'member accept',
  'member invite',
  'member link',
  'sso show',
  'sso set',
  'sso remove',
  'profile deactivate',
  'profile activate',
  'monitoring list',
  'seed',
]);
const argOptions = { switches: ['json', 'v3', 'signing', 'password'], repeatable: ['permission'] };

/**
 * Checks a command line before anything is opened: the usage when it asks for help, a
 * UsageError when it names no command (or a flag lacks its value), undefined when it may run.
 */
export function checkAdminCommandLine(argv: string[]): string | undefined {
  if (argv.length === 0) throw new UsageError(`perimeter admin: which command?\n${adminUsage()}`);
  if (isHelpRequest(argv)) return adminUsage(argv.find((a) => !a.startsWith('-') && a !== 'help'));
  const args = parseArgs(argv, argOptions);
  const [area, action] = args.positionals;
  const command = [area, action].filter((w) => w !== undefined).join(' ');
  if (commands.has(command)) {
    assertKnownArguments(args, area!, command === area ? undefined : action);
    return undefined;
  }
  const isKnownArea = usageLines.some((l) => l.startsWith(`  perimeter admin ${area} `));
  const problem =
    command === ''
      ? 'perimeter admin: which command?'
      : action === undefined && isKnownArea
        ? `perimeter admin ${area}: which action?`
        : `unknown command: perimeter admin ${command}`;
  throw new UsageError(`${problem}\n${adminUsage(isKnownArea ? area : undefined)}`);
}

/** The flags and the number of words a command takes after its name, read off its usage line. */
function commandShape(area: string, action: string | undefined): { flags: Set<string>; words: number } {
  const line = usageLines.find((l) => {
    const words = l.trim().split(/\s+/);
    return words[2] === area && (action === undefined || (words[3]?.split('|') ?? []).includes(action));
  });
  const flags = new Set<string>();
  let words = 0;
  const tokens = (line ?? '')
    .trim()
    .split(/\s+/)
    .slice(action === undefined ? 3 : 4);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!.replace(/^\[/, '');
    if (token.startsWith('--')) {
      flags.add(token.replace(/\]$/, '').slice(2));
      // `--team NAME`, `[--plan a|b]`: the next token is the flag's value; `[--json]` takes none.
      if (!token.endsWith(']')) i++;
    } else if (!token.startsWith('...')) words++;
  }
  return { flags, words };
}

/** A UsageError for a flag the command does not take (or a configuration flag), or a word too many. */
function assertKnownArguments(args: ParsedArgs, area: string, action: string | undefined): void {
  const shape = commandShape(area, action);
  const name = `perimeter admin ${[area, action].filter((w) => w !== undefined).join(' ')}`;
  const given = [...Object.keys(args.flags), ...Object.keys(args.lists), ...args.switches];
  const unknown = given.find((flag) => !shape.flags.has(flag) && !configFlagNames.includes(flag));
  if (unknown !== undefined) throw new UsageError(`${name}: unknown option --${unknown}\n${adminUsage(area)}`);
  const extra = args.positionals.slice(action === undefined ? 1 : 2);
  if (extra.length > shape.words)
    throw new UsageError(`${name}: unexpected ${JSON.stringify(extra[shape.words])}\n${adminUsage(area)}`);
}

/** What a command is given: the runtime, the parsed arguments, and the words after the command's name. */
interface AdminCall {
  runtime: CoreRuntime;
  args: ParsedArgs;
  output: Output;
  /** The command's action (`create`, `list` …), undefined for a command of one word (`seed`). */
  action: string | undefined;
  /** The word after the action: a team's name, a key, an asset's name, an email, a profile's token. */
  name: string | undefined;
}

/** What a command answers: the value printed with --json, and the text printed otherwise. */
interface AdminResult {
  value: unknown;
  human: string;
}

/**
 * Runs `perimeter admin …`: thin commands over the core services. The services of assets,
 * members, profiles and demo data are imported by their commands only (the asset rules bring the
 * public suffix list, a good part of a command's start-up).
 */
export async function runAdmin(runtime: CoreRuntime, argv: string[], output: Output): Promise<void> {
  const help = checkAdminCommandLine(argv);
  if (help !== undefined) return output.out(help);
  const args = parseArgs(argv, argOptions);
  const [area, action, name] = args.positionals;
  const command = adminCommands[`${area} ${action}`];
  // checkAdminCommandLine let through only the commands below.
  if (command === undefined) throw new Error(`admin command ${area} ${action} has no case`);
  const { value, human } = await command({ runtime, args, output, action, name });
  emit(output, args.switches.has('json'), value, human);
}

/** The team named by --team, which `command` needs (an OperatorError without it). */
function requiredTeamFlag(args: ParsedArgs, command: string): string {
  const teamName = args.flags['team'];
  if (teamName === undefined) throw new OperatorError(`${command} needs --team NAME`);
  return teamName;
}

/** `team create NAME`: creates a team on a plan. */
async function createTeamCommand({ runtime, args, name }: AdminCall): Promise<AdminResult> {
  if (name === undefined) throw new OperatorError('team create needs a NAME');
  const team = await createTeam(runtime.store, name, args.flags['plan']);
  return {
    value: presentTeam(team),
    human: `created team ${team.name} (plan ${team.plan}, verification code ${team.verificationCode})`,
  };
}

/** `key create --team NAME`: creates an API key (v2 or v3, signing or not, with permissions); its secret is shown once. */
async function createKeyCommand({ runtime, args }: AdminCall): Promise<AdminResult> {
  const teamName = requiredTeamFlag(args, 'key create');
  const created = await createApiKey(runtime.store, runtime.box, {
    teamName,
    kind: args.switches.has('v3') ? 'v3' : 'v2',
    signing: args.switches.has('signing'),
    permissions: args.lists['permission'] ?? [],
  });
  return {
    value: created.secret === undefined ? { key: created.key } : { key: created.key, secret: created.secret },
    human: `key ${created.key}${created.secret ? `\nsigning secret ${created.secret}` : ''}\n(shown once; store it now)`,
  };
}

/** `key list --team NAME`: a team's keys. */
async function listKeysCommand({ runtime, args }: AdminCall): Promise<AdminResult> {
  const teamName = requiredTeamFlag(args, 'key list');
  const keys = await listApiKeys(runtime.store, teamName);
  return { value: keys.map(presentKey), human: keys.length > 0 ? keyTable(keys) : `team ${teamName} has no keys` };
}

/** `key revoke ID|KEY`: revokes a key (saying so when it was revoked already). */
async function revokeKeyCommand({ runtime, name }: AdminCall): Promise<AdminResult> {
  if (name === undefined) throw new OperatorError('key revoke needs the key ID (see key list) or the KEY');
  const revocation = await revokeApiKey(runtime.store, name);
  return { value: presentRevocation(revocation), human: describeRevocation(revocation) };
}

/** `monitoring list [--team NAME] [--limit N]`: the latest surface-monitoring runs, of a team or all. */
async function listMonitoringCommand({ runtime, args }: AdminCall): Promise<AdminResult> {
  const { store } = runtime;
  const teamName = args.flags['team'];
  const team = teamName === undefined ? undefined : await requireTeam(store, teamName);
  const limitText = args.flags['limit'] ?? '20';
  const limit = Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new OperatorError(`--limit must be an integer from 1 to 1000, not ${JSON.stringify(limitText)}`);
  const { listSurfaceRuns } = await import('../core/surface/monitoring.service.ts');
  const runs = await listSurfaceRuns(store, { ...(team === undefined ? {} : { teamId: team.id }), limit });
  return {
    value: runs.map(presentSurfaceRun),
    human:
      runs.length === 0
        ? 'no surface-monitoring runs'
        : formatTable(
            ['RUN', 'TEAM', 'ASSET', 'STATUS', 'TRIGGER', 'CREATED', 'ENDED', 'RESULT', 'ERROR'],
            runs.map(surfaceRunRow),
          ),
  };
}

/** A surface-monitoring run as --json prints it. */
function presentSurfaceRun(r: SurfaceRunListing) {
  return {
    id: r.id,
    team: r.teamName,
    asset: r.assetName,
    status: r.status,
    trigger: r.trigger,
    phase: r.progress.phase,
    created: r.created.toISOString(),
    started: r.started?.toISOString() ?? null,
    ended: r.ended?.toISOString() ?? null,
    progress: r.progress,
    summary: r.summary,
    error: r.error,
    warnings: r.warnings,
  };
}

/** A surface-monitoring run as a row of the table. */
function surfaceRunRow(r: SurfaceRunListing): string[] {
  return [
    String(r.id),
    r.teamName,
    r.assetName,
    r.status,
    r.trigger,
    formatTime(r.created, ''),
    formatTime(r.ended, '-'),
    r.summary === null ? `${r.progress.phase}: ${r.progress.live} names` : runResult(r.summary),
    r.error ?? '',
  ];
}

/** `asset verify NAME [--team TEAM]`: marks an asset verified without a proof. */
async function verifyAssetCommand({ runtime, args, name }: AdminCall): Promise<AdminResult> {
  if (name === undefined) throw new OperatorError('asset verify needs the asset NAME');
  const { markAssetVerified } = await import('../core/assets/asset-admin.service.ts');
  const asset = await markAssetVerified(runtime.store, name, args.flags['team']);
  return { value: presentAssetLine(asset), human: `${asset.name} is verified` };
}

/** `asset check NAME [--team TEAM]`: looks for an asset's proof of ownership now, and says what it saw. */
async function checkAssetCommand({ runtime, args, name }: AdminCall): Promise<AdminResult> {
  if (name === undefined) throw new OperatorError('asset check needs the asset NAME');
  const { checkAssetNow } = await import('../core/assets/asset-admin.service.ts');
  const { asset, result } = await checkAssetNow(runtime.store, runtime.verification, name, args.flags['team']);
  return {
    value: { ...presentAssetLine(asset), verified_by: result.via ?? null, observations: result.observations },
    human: `${asset.name}: ${asset.status}${result.via ? ` (proven by ${result.via})` : ''}\n${result.observations.map((o) => `  ${o}`).join('\n')}`,
  };
}

/** `member list --team NAME`: a team's members. */
async function listMembersCommand({ runtime, args }: AdminCall): Promise<AdminResult> {
  const { store } = runtime;
  const teamName = requiredTeamFlag(args, 'member list');
  const { listMembers } = await import('../core/members/member.service.ts');
  const members = (await listMembers(store, await requireTeam(store, teamName))).map(presentMemberLine);
  return {
    value: members,
    human: members.map((m) => `${m.email} ${m.role} ${m.state} ${m.user_token}`).join('\n') || 'no members',
  };
}

/** `member accept EMAIL --team NAME`: accepts a member's invitation in their stead. */
async function acceptMemberCommand({ runtime, args, name }: AdminCall): Promise<AdminResult> {
  const { store } = runtime;
  const teamName = args.flags['team'];
  if (name === undefined || teamName === undefined)
    throw new OperatorError('member accept needs the EMAIL and --team NAME');
  const { acceptInvitation } = await import('../core/members/member.service.ts');
  const member = await acceptInvitation(store, await requireTeam(store, teamName), name, {
    firstName: args.flags['first-name'],
    lastName: args.flags['last-name'],
    authentication: args.flags['authentication'],
  });
  return { value: presentMemberLine(member), human: `${member.email} is an active ${member.role} of team ${teamName}` };
}

/** `profile activate|deactivate TOKEN --team NAME`: turns a scan profile on or off. */
async function setProfileActiveCommand({ runtime, args, action, name }: AdminCall): Promise<AdminResult> {
  const { store } = runtime;
  const teamName = args.flags['team'];
  if (name === undefined || teamName === undefined)
    throw new OperatorError(`profile ${action} needs the profile TOKEN and --team NAME`);
  const team = await requireTeam(store, teamName);
  const { setProfileActive } = await import('../core/scans/scan-profile.service.ts');
  const profile = await setProfileActive(store, team, name, action === 'activate').catch((err: unknown) => {
    throw isAppError(err) ? new OperatorError(err.message) : err;
  });
  return {
    value: { token: profile.token, endpoint: profile.endpoint, active: profile.isActive },
    human: `profile ${profile.token} (${profile.endpoint}) is ${profile.isActive ? 'active' : 'deactivated'}`,
  };
}

/** `seed --team NAME --vulnerabilities N`: fills a team with demo data (admin-seed.command.ts). */
async function seedCommand({ runtime, args, output }: AdminCall): Promise<AdminResult> {
  const { runSeed } = await import('./admin-seed.command.ts');
  const result = await runSeed(runtime, args, output.out);
  return { value: result, human: `seeded: ${JSON.stringify(result)}` };
}

/** The commands by `area action` (`seed undefined`: seed takes no action). */
const adminCommands: Record<string, (call: AdminCall) => Promise<AdminResult>> = {
  'team create': createTeamCommand,
  'key create': createKeyCommand,
  'key list': listKeysCommand,
  'key revoke': revokeKeyCommand,
  'monitoring list': listMonitoringCommand,
  'asset verify': verifyAssetCommand,
  'asset check': checkAssetCommand,
  'member list': listMembersCommand,
  'member accept': acceptMemberCommand,
  'member invite': async ({ runtime, args, name }) =>
    (await import('./admin-member-link.command.ts')).runMemberInvite(runtime, args, name),
  'member link': async ({ runtime, args, name }) =>
    (await import('./admin-member-link.command.ts')).runMemberLink(runtime, args, name),
  'sso show': async ({ runtime, args }) => (await import('./admin-sso.command.ts')).runSso(runtime, args, 'show'),
  'sso set': async ({ runtime, args }) => (await import('./admin-sso.command.ts')).runSso(runtime, args, 'set'),
  'sso remove': async ({ runtime, args }) => (await import('./admin-sso.command.ts')).runSso(runtime, args, 'remove'),
  'profile deactivate': setProfileActiveCommand,
  'profile activate': setProfileActiveCommand,
  'seed undefined': seedCommand,
};

/** One line of what a finished surface run found. */
function runResult(s: SurfaceRunSummary): string {
  const parts = [`${s.names} names (${s.newNames} new)`, `${s.addresses} IPs`];
  if (s.ports !== null) parts.push(`${s.ports.open} open ports`);
  if (s.tlsEndpoints !== null) parts.push(`${s.tlsEndpoints} TLS`);
  if (s.technologies !== null) parts.push(`${s.technologies.seen} technologies`);
  parts.push(`${s.findings.created} new findings`);
  if (s.breaches !== null) parts.push(`${s.breaches.breached} policy breaches (${s.breaches.opened} new)`);
  return parts.join(', ');
}
