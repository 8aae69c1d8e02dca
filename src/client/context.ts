import type { ParsedArgs } from './args.ts';
import { normalizeServer, resolveConfig } from './config.ts';
import { UsageError } from './errors.ts';
import { Api } from './http.ts';

/** What a command talks to: its streams and environment (a test or the bin passes the process's). */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Prints a line on standard output. */
export function print(io: Io, text: string): void {
  io.stdout.write(`${text}\n`);
}

/** Prints a line on standard error. */
export function note(io: Io, text: string): void {
  io.stderr.write(`${text}\n`);
}

/** The request time-out: --timeout SECONDS, else PERIMETER_TIMEOUT (seconds), else 30 s. */
export function timeoutMsOf(values: Record<string, string>, env: NodeJS.ProcessEnv): number {
  const given = values['timeout'] ?? env['PERIMETER_TIMEOUT'];
  if (given === undefined || given === '') return 30_000;
  const seconds = Number(given);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--timeout takes a number of seconds, got ${JSON.stringify(given)}`);
  return Math.round(seconds * 1000);
}

/** The API of the command: flags, then the environment, then the stored login. */
export function apiOf(args: ParsedArgs, io: Io): Api {
  const resolved = resolveConfig(
    { server: args.values['server'], key: args.values['key'], v3Key: args.values['v3-key'] },
    io.env,
  );
  return new Api({
    ...resolved,
    server: resolved.server === undefined ? undefined : normalizeServer(resolved.server),
    timeoutMs: timeoutMsOf(args.values, io.env),
  });
}
