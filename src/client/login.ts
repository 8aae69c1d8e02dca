import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { expectPositionals, parseArgs } from './args.ts';
import {
  configPath,
  normalizeServer,
  readConfigFile,
  removeConfigFile,
  writeConfigFile,
  type ClientConfig,
} from './config.ts';
import { note, print, timeoutMsOf, type Io } from './context.ts';
import { ApiError, UsageError } from './errors.ts';
import { help } from './help.ts';
import { Api } from './http.ts';

/** Asks questions on the terminal (hidden input for keys), or reads lines of standard input when it is not one. */
function prompter(io: Io): { ask(question: string, hidden: boolean): Promise<string>; close(): void } {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stderr.write(chunk);
      done();
    },
  });
  const isTty = io.stdin.isTTY === true;
  const rl = createInterface({ input: io.stdin, output, terminal: isTty });
  // Lines are taken from one iterator, which buffers them: piped answers all arrive at once.
  const lines = rl[Symbol.asyncIterator]();
  return {
    async ask(question, hidden) {
      io.stderr.write(question);
      muted = hidden && isTty;
      const next = await lines.next();
      if (muted) io.stderr.write('\n');
      muted = false;
      if (next.done === true) throw new UsageError(`no answer to "${question.trim()}" (standard input ended)`);
      return String(next.value).trim();
    },
    close: () => rl.close(),
  };
}

/** Checks a key with one call; a key valid but without access to that endpoint (1009) is kept, with a note. */
async function check(io: Io, api: Api, surface: 'v2' | 'v3'): Promise<void> {
  try {
    if (surface === 'v2') await api.v2('GET', '/assets/');
    else await api.v3('GET', '/ips', { query: { limit: 1 } });
  } catch (err) {
    if (err instanceof ApiError && (err.code === 1009 || err.status === 403)) {
      note(
        io,
        `note: the ${surface} key is valid but may not list ${surface === 'v2' ? 'assets' : 'IPs'} (${err.message})`,
      );
      return;
    }
    if (err instanceof ApiError)
      throw new ApiError(`the ${surface} key was refused: ${err.message}`, err.status, err.code);
    throw err;
  }
}

/** `perimeter login`: stores the server and keys after checking them. */
export async function login(argv: string[], io: Io): Promise<number> {
  const usage = help.login;
  const args = parseArgs(argv, { values: ['secret'] }, usage);
  expectPositionals(args, [], usage);
  const stored = readConfigFile(configPath(io.env));
  // Standard input is read only when a question is asked (a CI login with every flag reads nothing).
  let questions: ReturnType<typeof prompter> | undefined;
  try {
    return await loginWith(args.values, io, stored, (q, hidden) => (questions ??= prompter(io)).ask(q, hidden), usage);
  } finally {
    questions?.close();
  }
}

async function loginWith(
  values: Record<string, string>,
  io: Io,
  stored: ClientConfig | undefined,
  ask: (question: string, hidden: boolean) => Promise<string>,
  usage: string,
): Promise<number> {
  const given = values['server'] ?? (await ask(`Server URL${stored ? ` [${stored.server}]` : ''}: `, false));
  if (given === '' && stored === undefined) throw new UsageError(`a server URL is needed\n${usage}`);
  const server = normalizeServer(given === '' ? stored!.server : given);
  const key = values['key'] ?? (await ask('API key (v2): ', true));
  if (key === '') throw new UsageError(`an API key is needed\n${usage}`);
  const v3Key =
    values['v3-key'] ?? (values['key'] !== undefined ? '' : await ask('v3 API key (Enter to skip): ', true));
  const secret = values['secret'];
  const config: ClientConfig = { server, key, ...(secret ? { secret } : {}), ...(v3Key ? { v3Key } : {}) };
  const api = new Api({ ...config, timeoutMs: timeoutMsOf(values, io.env) });
  await check(io, api, 'v2');
  if (v3Key) await check(io, api, 'v3');
  const path = configPath(io.env);
  writeConfigFile(config, path);
  print(io, `logged in to ${server}${v3Key ? ' (v2 and v3 keys)' : ''}; saved in ${path}`);
  return 0;
}

/** `perimeter logout`: forgets the stored login. */
export async function logout(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, {}, help.logout);
  expectPositionals(args, [], help.logout);
  const path = configPath(io.env);
  print(io, removeConfigFile(path) ? `logged out (removed ${path})` : 'not logged in');
  return 0;
}
