import { isHelpRequest, parseArgs, UsageError } from './cli/args.ts';
import { ConfigError, configFlagNames, loadConfig, unknownVariableWarnings, type Config } from './config/config.ts';
import { OperatorError } from './core/errors/operator-error.ts';
import { createTeam } from './core/teams/team.service.ts';
import type { Runtime } from './runtime.ts';

// Each command imports what it needs when it runs (`import()` below): the HTTP app, the jobs
// and the scan engine cost seconds to load under tsx, and an admin command needs none of them.
// What is wired to what is decided in one place, the composition root (runtime.ts): it builds
// the core part alone (openCoreRuntime, for migrate and admin) or everything (openRuntime), and
// loads the engine, the jobs and the HTTP app only for the latter.

const usage = `usage: perimeter <command>
  serve [--roles api,worker,scheduler] [--port N] [--data-dir DIR] [--database-url URL] …
  migrate
  admin …   (perimeter admin --help)`;

function configFrom(argv: string[]): Config {
  const args = parseArgs(argv, { switches: ['json', 'v3', 'signing'], repeatable: ['permission'] });
  const flags = Object.fromEntries(Object.entries(args.flags).filter(([k]) => configFlagNames.includes(k)));
  return loadConfig({ flags });
}

/** The configuration of `serve` or `migrate`, which take configuration flags and nothing else. */
function serverConfigFrom(command: string, argv: string[]): Config {
  const args = parseArgs(argv);
  const unknown = Object.keys(args.flags).find((flag) => !configFlagNames.includes(flag));
  if (unknown !== undefined) throw new UsageError(`perimeter ${command}: unknown option --${unknown}\n${usage}`);
  if (args.positionals.length > 0)
    throw new UsageError(`perimeter ${command}: unexpected ${JSON.stringify(args.positionals[0])}\n${usage}`);
  return loadConfig({ flags: args.flags });
}

/** Where the store is, for a message: the data directory, or the database URL without its password. */
function storeLabel(config: Config): string {
  if (config.databaseUrl === undefined) return `the embedded store in ${config.dataDir}`;
  try {
    const url = new URL(config.databaseUrl);
    if (url.password !== '') url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return `the database ${url.href}`;
  } catch {
    return 'the database of DATABASE_URL';
  }
}

/**
 * What the store or the network refused at start (a missing directory, a database that does not
 * answer, a port in use): one line for the operator, exit 1, no stack trace. Anything else is a bug
 * and keeps its trace.
 */
async function starting<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '' && !(err instanceof ConfigError) && !(err instanceof OperatorError)) {
      throw new OperatorError(`cannot ${what}: ${(err as Error).message || code}`);
    }
    throw err;
  }
}

/**
 * On the first start of an empty store: a demo team with a v2 and a v3 key, and its first Admin
 * (config adminEmail: admin@example.com unless PERIMETER_ADMIN_EMAIL says otherwise) with the one-time link that sets the console
 * password, printed once.
 */
async function seedDemo(runtime: Runtime, consoleUrl: string): Promise<void> {
  if ((await runtime.store.teams.count()) > 0) return;
  const { createApiKey } = await import('./core/teams/api-key.service.ts');
  const team = await createTeam(runtime.store, 'demo', 'enterprise').catch(async (err: unknown) => {
    // Processes started together on an empty store: one of them seeds it (and prints the keys).
    if ((await runtime.store.teams.findByName('demo')) !== undefined) return undefined;
    throw err;
  });
  if (team === undefined) return;
  const v2 = await createApiKey(runtime.store, runtime.box, {
    teamName: team.name,
    kind: 'v2',
    signing: false,
    permissions: [],
  });
  const v3 = await createApiKey(runtime.store, runtime.box, {
    teamName: team.name,
    kind: 'v3',
    signing: false,
    permissions: [],
  });
  const { inviteMembers } = await import('./core/members/member.service.ts');
  const { issueAccountLink, accountLinkPath } = await import('./core/accounts/account-link.service.ts');
  const { accountPolicyOf } = await import('./core/accounts/account-policy.ts');
  const email = runtime.config.adminEmail;
  await inviteMembers(runtime.store, team, { email, role: 'Admin' });
  const link = await issueAccountLink(runtime.store, team, email, accountPolicyOf(runtime.config));
  console.log(
    `First start: created team "demo" (enterprise plan).\n  v2 API key: ${v2.key}\n  v3 API key: ${v3.key}\n  These keys are shown once. Verification code of the team: ${team.verificationCode}\n` +
      `  Console: ${consoleUrl}/ — set the password of ${email} (Admin of "demo") at\n  ${consoleUrl}${accountLinkPath(link.token)}\n` +
      `  (valid until ${link.link.expires.toISOString()}, once; \`perimeter admin member link ${email} --team demo\` makes a new one)`,
  );
}

async function serve(config: Config): Promise<void> {
  const { openRuntime, buildApi, startWorker, startSchedulerRole } = await import('./runtime.ts');
  const runtime = await starting(`open ${storeLabel(config)}`, () => openRuntime(config));
  for (const warning of unknownVariableWarnings()) runtime.log.warn(warning);
  const app = await buildApi(runtime);
  let address: string;
  try {
    address = await starting(`listen on ${config.host}:${config.port}`, () =>
      app.listen({ port: config.port, host: config.host }),
    );
  } catch (err) {
    await app.close().catch(() => undefined);
    await runtime.close();
    throw err;
  }
  // Signals are handled from here on: a SIGTERM that arrives while the roles start waits until
  // they have started, then stops them and exits 0 (instead of the signal's default action, or a
  // worker started on a queue already stopped).
  let isClosing = false;
  let scheduler: { stop(): Promise<void> } | undefined;
  const startRoles = async () => {
    await seedDemo(runtime, config.publicUrl ?? address);
    if (config.roles.includes('worker')) await startWorker(runtime);
    if (config.roles.includes('scheduler')) scheduler = await startSchedulerRole(runtime);
  };
  const started = startRoles();
  const shutdown = async (signal: string) => {
    if (isClosing) return;
    isClosing = true;
    runtime.log.info({ signal }, 'shutting down: finishing in-flight requests, handing running jobs back');
    await started.catch(() => undefined);
    await Promise.all([app.close(), runtime.jobs.stop(), scheduler?.stop()]);
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await started;
  if (isClosing) return;
  // The listening line is the readiness signal: printed once every role of this process runs.
  const egress =
    config.egressAllow.length === 0 ? 'none (every special-purpose range denied)' : config.egressAllow.join(',');
  console.log(
    `perimeter listening on ${address} (store: ${runtime.database.description}, roles: ${config.roles.join(',')}, egress allowed: ${egress})`,
  );
}

/** `perimeter migrate`: applies pending migrations (opening the store does) and says so. */
async function migrate(config: Config): Promise<void> {
  const { openCoreRuntime } = await import('./runtime.ts');
  const runtime = await starting(`open ${storeLabel(config)}`, () => openCoreRuntime(config));
  for (const warning of unknownVariableWarnings()) console.warn(`warning: ${warning}`);
  console.log(`migrated ${runtime.database.description}`);
  await runtime.close();
}

/** `perimeter admin …` on the core runtime only: the store, the server key, the ownership check. */
async function admin(argv: string[]): Promise<void> {
  const { checkAdminCommandLine, runAdmin } = await import('./cli/admin.commands.ts');
  const help = checkAdminCommandLine(argv);
  if (help !== undefined) return console.log(help);
  const [{ openCoreRuntime }, { default: pino }] = await Promise.all([import('./runtime.ts'), import('pino')]);
  const config = configFrom(argv);
  const runtime = await starting(`open ${storeLabel(config)}`, () =>
    openCoreRuntime(config, { log: pino({ level: 'warn' }) }),
  );
  try {
    await runAdmin(runtime, argv, { out: (text) => console.log(text) });
  } finally {
    await runtime.close();
  }
}

/** Entry point of the `perimeter` command. */
export async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
      case 'migrate':
        if (isHelpRequest(rest)) return console.log(usage);
        return await (command === 'serve' ? serve : migrate)(serverConfigFrom(command, rest));
      case 'admin':
        return await admin(rest);
      case 'help':
      case '--help':
      case '-h':
        return console.log(usage);
      default:
        throw new UsageError(`unknown command: ${command}\n${usage}`);
    }
  } catch (err) {
    // Mistakes of the person at the terminal get a message, never a stack trace.
    if (err instanceof UsageError) {
      console.error(err.message);
      process.exitCode = 2;
      return;
    }
    if (err instanceof ConfigError || err instanceof OperatorError) {
      console.error(err.message);
      process.exitCode = 1;
      return;
    }
    throw err;
  }
}
