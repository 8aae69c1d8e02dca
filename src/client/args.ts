import { UsageError } from './errors.ts';

/** The options a command takes: those with a value (repeatable or not) and switches. */
export interface OptionSpec {
  values?: string[];
  repeatable?: string[];
  switches?: string[];
  /** Short forms: `-o` → `output`. */
  short?: Record<string, string>;
}

export interface ParsedArgs {
  positionals: string[];
  values: Record<string, string>;
  lists: Record<string, string[]>;
  switches: Set<string>;
}

/** Options every command takes. */
export const globalOptions: OptionSpec = {
  values: ['server', 'key', 'v3-key', 'timeout'],
  switches: ['help'],
  short: { h: 'help' },
};

/** Parses `--name value`, `--name=value`, switches and `-x` short forms; anything else is a usage error. */
export function parseArgs(argv: string[], spec: OptionSpec, usage: string): ParsedArgs {
  const values = new Set([...(spec.values ?? []), ...(globalOptions.values ?? [])]);
  const repeatable = new Set(spec.repeatable ?? []);
  const switches = new Set([...(spec.switches ?? []), ...(globalOptions.switches ?? [])]);
  const short = { ...globalOptions.short, ...spec.short };
  const out: ParsedArgs = { positionals: [], values: {}, lists: {}, switches: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
    } else if (/^-[a-zA-Z]$/.test(arg)) {
      const long = short[arg.slice(1)];
      if (long === undefined) throw new UsageError(`unknown option ${arg}\n${usage}`);
      name = long;
    } else {
      out.positionals.push(arg);
      continue;
    }
    if (switches.has(name)) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value\n${usage}`);
      out.switches.add(name);
      continue;
    }
    if (!values.has(name) && !repeatable.has(name)) throw new UsageError(`unknown option --${name}\n${usage}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value\n${usage}`);
    if (repeatable.has(name)) (out.lists[name] ??= []).push(...value.split(',').filter((v) => v !== ''));
    else out.values[name] = value;
  }
  return out;
}

/** Exactly the positionals a command takes; the names say what is missing or too much. */
export function expectPositionals(args: ParsedArgs, names: string[], usage: string, optional = 0): string[] {
  const required = names.length - optional;
  if (args.positionals.length < required) throw new UsageError(`missing ${names[args.positionals.length]}\n${usage}`);
  if (args.positionals.length > names.length)
    throw new UsageError(`unexpected ${JSON.stringify(args.positionals[names.length])}\n${usage}`);
  return args.positionals;
}

/** One of the allowed words (case-insensitive), or a usage error naming them. */
export function oneOf<T extends string>(value: string, allowed: readonly T[], what: string, usage: string): T {
  const lower = value.toLowerCase() as T;
  if (!allowed.includes(lower))
    throw new UsageError(`${what} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}\n${usage}`);
  return lower;
}
