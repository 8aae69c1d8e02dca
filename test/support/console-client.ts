import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from './harness.ts';

/**
 * A browser-less console client for integration tests (inject, no socket): it keeps the cookies
 * the console sets, and sends each POST as a form with the CSRF token of the last page it read
 * (the `_csrf` field of its forms).
 */
export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(readonly h: Harness) {}

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    const set = res.headers['set-cookie'];
    for (const line of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token !== null) this.csrf = token[1]!;
    return res;
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ') };
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.h.app.inject({ method: 'GET', url, headers: { ...this.cookieHeader(), ...headers } }),
    );
  }

  /** Posts a form; `_csrf` is the last page's token unless the fields set it. */
  async post(
    url: string,
    fields: Record<string, string | string[]> = {},
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams();
    if (!('_csrf' in fields)) form.append('_csrf', this.csrf);
    for (const [name, value] of Object.entries(fields))
      for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
    return this.remember(
      await this.h.app.inject({
        method: 'POST',
        url,
        headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: form.toString(),
      }),
    );
  }
}

/** A member's password in tests. */
export const testPassword = 'correct horse battery staple';

/**
 * Invites a member through the admin CLI, sets the password through the link it prints and
 * signs in: a client with a live session (for a `2fa` member, stopped at the second factor).
 */
export async function signedInMember(
  h: Harness,
  team: string,
  email: string,
  role: 'Admin' | 'Editor' | 'Viewer',
  options: { twoFactor?: boolean } = {},
): Promise<ConsoleClient> {
  const out = JSON.parse(await h.admin('member', 'invite', email, '--team', team, '--role', role, '--json')) as {
    url: string;
  };
  const path = new URL(out.url).pathname;
  const client = new ConsoleClient(h);
  await client.get(path);
  const set = await client.post(path, {
    password: testPassword,
    confirm: testPassword,
    ...(options.twoFactor === true ? { two_factor: '1' } : {}),
  });
  if (set.statusCode !== 303) throw new Error(`setting the password answered ${set.statusCode}: ${set.body}`);
  await client.get('/signin');
  const signIn = await client.post('/signin', { email, password: testPassword, next: '/' });
  if (signIn.statusCode !== 303) throw new Error(`sign-in answered ${signIn.statusCode}`);
  if (options.twoFactor !== true) await client.get('/account');
  return client;
}
