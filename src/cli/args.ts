/** A command line that does not parse or names no command: answered with the usage and exit code 2, no stack trace. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** True when the command line asks for help (`--help`, `-h` or the word `help` first). */
export function isHelpRequest(argv: string[]): boolean {
  return argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
}

/** Parsed command-line arguments: positional words and `--flag value` / `--flag=value` / `--switch`. */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string>;
  lists: Record<string, string[]>;
  switches: Set<string>;
}

/**
 * Parses argv. `switches` names flags that take no value; `repeatable` names flags that may be
 * given several times (collected in `lists`). Unknown flags are kept so commands can refuse them.
 */
export function parseArgs(argv: string[], options: { switches?: string[]; repeatable?: string[] } = {}): ParsedArgs {
  const switchNames = new Set(options.switches ?? []);
  const repeatable = new Set(options.repeatable ?? []);
  const out: ParsedArgs = { positionals: [], flags: {}, lists: {}, switches: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (switchNames.has(name)) {
      out.switches.add(name);
      continue;
    }
    let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      i++;
    }
    if (repeatable.has(name)) (out.lists[name] ??= []).push(value);
    else out.flags[name] = value;
  }
  return out;
}
