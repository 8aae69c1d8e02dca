import { readFileSync } from 'node:fs';
import { assets } from './assets.ts';
import { note, print, type Io } from './context.ts';
import { ApiError, ExitError, UsageError, exitCodes } from './errors.ts';
import { findings } from './findings.ts';
import { help, helpText, type HelpTopic } from './help.ts';
import { importFile } from './import.ts';
import { login, logout } from './login.ts';
import { scan } from './scan.ts';

/**
 * The client command line: `perimeter login|logout|assets|scan|findings|import`, over the HTTP API
 * only (never the store). Bundled by scripts/build-client.js into dist/client/cli.js, which
 * bin/perimeter.js loads without tsx, so that it starts in well under 300 ms.
 */

/** The first words bin/perimeter.js hands to the client. */
export const clientCommands = ['login', 'logout', 'assets', 'scan', 'findings', 'import'];

const commands: Record<string, (argv: string[], io: Io) => Promise<number>> = {
  login,
  logout,
  assets,
  scan,
  findings,
  import: importFile,
};

/** The version of the package (package.json is two folders up from src/client and from dist/client). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** The help topic of a command line that asks for help: the command and its subcommand when it has one. */
function helpTopicOf(argv: string[]): HelpTopic {
  const words = argv.filter((a) => !a.startsWith('-'));
  const [command, sub] = words;
  if (command === undefined || !(command in help)) return 'top';
  const pair = `${command} ${sub}`;
  if (sub !== undefined && pair in help) return pair as HelpTopic;
  if (command === 'assets' && sub === 'remove') return 'assets rm';
  return command as HelpTopic;
}

/** Runs a command line; resolves to its exit code (errors are printed, never thrown). */
export async function run(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === '--version' || command === '-V' || command === 'version') {
      print(io, `perimeter ${version()}`);
      return 0;
    }
    if (command === undefined || command === 'help' || argv.includes('--help') || argv.includes('-h')) {
      const topic = command === 'help' ? helpTopicOf(rest) : helpTopicOf(argv);
      print(io, helpText(topic));
      return 0;
    }
    const handler = commands[command];
    if (handler === undefined) throw new UsageError(`unknown command: ${command}\n${help.top}`);
    return await handler(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      note(io, `perimeter: ${err.message}`);
      return exitCodes.usage;
    }
    if (err instanceof ApiError) {
      note(io, `perimeter: ${err.message}`);
      return exitCodes.api;
    }
    if (err instanceof ExitError) {
      note(io, `perimeter: ${err.message}`);
      return err.exitCode;
    }
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    throw err;
  }
}

/** The process entry: runs argv and exits with its code once the output is flushed. */
export async function main(argv: string[]): Promise<void> {
  const io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  process.exitCode = await run(argv, io);
}
