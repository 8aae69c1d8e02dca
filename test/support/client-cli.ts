import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Harness } from './harness.ts';
import { spawnOwned } from './child-processes.ts';

/** The result of one run of the `perimeter` command. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

let built: Promise<unknown> | undefined;

/** Builds dist/client/cli.js once per test process (scripts/build-client.js), as `npm install` would. */
export function buildClient(): Promise<unknown> {
  built ??= promisify(execFile)(process.execPath, ['scripts/build-client.js']);
  return built;
}

/** The environment of a client run: the process's, minus any PERIMETER_* login, with its own config folder. */
export function clientEnv(configHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: configHome };
  for (const name of ['PERIMETER_SERVER', 'PERIMETER_API_KEY', 'PERIMETER_API_SECRET', 'PERIMETER_V3_API_KEY'])
    delete env[name];
  return { ...env, ...extra };
}

/** Runs `node bin/perimeter.js ARGV` (the real bin, so the dispatch to the compiled client is covered). */
export function runCli(argv: string[], options: { env: NodeJS.ProcessEnv; input?: string }): Promise<CliRun> {
  const child = spawnOwned(process.execPath, ['bin/perimeter.js', ...argv], {
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.end(options.input ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Makes the harness's app listen on a free loopback port; its base URL. */
export async function listen(h: Harness): Promise<string> {
  return h.app.listen({ port: 0, host: '127.0.0.1' });
}
