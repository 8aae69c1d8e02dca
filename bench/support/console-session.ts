import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { repoRoot } from './benchmark.ts';

/**
 * A console session for a benchmark, made the way a member makes one: the admin CLI invites the
 * member (on the server's store, with the server's environment), the invitation link sets the
 * password, and the sign-in form answers with the session cookie.
 */

/** Runs `node bin/perimeter.js admin …` on the store of `dataDir` with the server's environment; its stdout. */
export async function adminCli(dataDir: string, env: Record<string, string>, args: string[]): Promise<string> {
  // As startPerimeter: only what we set reaches the command, so it opens the benchmark's store.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('PERIMETER_') && k !== 'DATABASE_URL' && k !== 'DATA_DIR' && k !== 'PORT',
    ),
  );
  const child = spawn(process.execPath, [join(repoRoot, 'bin/perimeter.js'), 'admin', ...args], {
    cwd: repoRoot,
    env: { ...inherited, DATA_DIR: dataDir, PERIMETER_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0)
    throw new Error(`perimeter admin ${args.join(' ')} exited with ${code}: ${stderr.trim() || stdout.trim()}`);
  return stdout;
}

/** The cookies of a response's Set-Cookie headers, by name (a cleared one as ''). */
function setCookies(res: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(';')[0]!;
    const eq = pair.indexOf('=');
    out.set(pair.slice(0, eq).trim(), /Max-Age=0/i.test(line) ? '' : pair.slice(eq + 1).trim());
  }
  return out;
}

function csrfOf(body: string, what: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
  if (token === undefined) throw new Error(`${what}: no _csrf field in the page`);
  return token;
}

/** A GET of a console page without following redirects: its status, body and cookies. */
async function getPage(
  url: string,
  cookie: string,
): Promise<{ status: number; body: string; cookies: Map<string, string> }> {
  const res = await fetch(url, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
  return { status: res.status, body: await res.text(), cookies: setCookies(res) };
}

/** A form POST without following redirects (same-origin, as the browser sends it). */
async function postForm(
  base: string,
  path: string,
  cookie: string,
  fields: Record<string, string>,
): Promise<{ status: number; location: string; body: string; cookies: Map<string, string> }> {
  const res = await fetch(base + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return {
    status: res.status,
    location: res.headers.get('location') ?? '',
    body: await res.text(),
    cookies: setCookies(res),
  };
}

/** What consoleSession made: the `Cookie` header of a signed-in request and the member. */
export interface ConsoleSession {
  /** `perimeter_session=…`, ready for a Cookie header. */
  cookie: string;
  name: string;
  value: string;
  email: string;
}

/**
 * Signs `email` in as a member of `team` (a Viewer unless said) on the server at `base`, running
 * on the store of `dataDir`: invited through the admin CLI (or, when the cached store already
 * holds the member from an earlier run, sent a new link), the password set through the link,
 * then the sign-in form.
 */
export async function consoleSession(
  base: string,
  store: { dataDir: string; env: Record<string, string> },
  options: { team: string; email: string; password: string; role?: 'Admin' | 'Editor' | 'Viewer' },
): Promise<ConsoleSession> {
  const { team, email, password } = options;
  let printed: string;
  try {
    printed = await adminCli(store.dataDir, store.env, [
      'member',
      'invite',
      email,
      '--team',
      team,
      '--role',
      options.role ?? 'Viewer',
      '--json',
    ]);
  } catch (err) {
    if (!/already (a member|invited)/.test((err as Error).message)) throw err;
    printed = await adminCli(store.dataDir, store.env, ['member', 'link', email, '--team', team, '--json']);
  }
  const linkPath = new URL((JSON.parse(printed) as { url: string }).url).pathname;

  const linkPage = await getPage(base + linkPath, '');
  if (linkPage.status !== 200) throw new Error(`the link page answered ${linkPage.status}`);
  const formCookie = [...linkPage.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  const set = await postForm(base, linkPath, formCookie, {
    _csrf: csrfOf(linkPage.body, 'the link page'),
    password,
    confirm: password,
  });
  if (set.status !== 303) throw new Error(`setting the password answered ${set.status}: ${set.body.slice(0, 300)}`);

  const signInPage = await getPage(`${base}/signin`, formCookie);
  const cookies = new Map([...linkPage.cookies, ...signInPage.cookies]);
  const signIn = await postForm(base, '/signin', [...cookies].map(([n, v]) => `${n}=${v}`).join('; '), {
    _csrf: csrfOf(signInPage.body, 'the sign-in page'),
    email,
    password,
    next: '/vulnerabilities',
  });
  const session = [...signIn.cookies].find(([n, v]) => /perimeter_session$/.test(n) && v !== '');
  if (signIn.status !== 303 || session === undefined)
    throw new Error(`sign-in answered ${signIn.status} (${signIn.location}) without a session cookie`);
  const [name, value] = session;
  return { cookie: `${name}=${value}`, name, value, email };
}

/** A GET whose body is read as sent (no decompression): status, headers and the bytes on the wire. */
export function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
