import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openAccountLink } from '../../src/core/accounts/account-link.service.ts';
import { readSession, tokenHash } from '../../src/core/accounts/session.service.ts';
import { totpCode } from '../../src/core/accounts/totp.ts';
import { defaultAccountPolicy } from '../../src/core/accounts/account-policy.ts';
import { ConsoleClient, signedInMember, testPassword } from '../support/console-client.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';

// The console's sign-in, sessions, one-time links, second factor and CSRF, through inject (the
// browser suite in test/browser drives the same pages in Chromium).
describe(`console sign-in (${testStore})`, () => {
  let h: Harness;
  let key: string;

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('acme')).key;
    await h.team('other');
  });
  after(async () => h.close());

  const invite = async (email: string, role = 'Editor', team = 'acme') =>
    JSON.parse(await h.admin('member', 'invite', email, '--team', team, '--role', role, '--json')) as {
      url: string;
      purpose: string;
      expires: string;
    };

  it('invites through the admin CLI with a one-time link that sets the password and activates the member', async () => {
    const link = await invite('ann@acme.example');
    assert.equal(link.purpose, 'invitation');
    const path = new URL(link.url).pathname;
    assert.match(path, /^\/account\/link\/[\w-]{43}$/);
    const c = new ConsoleClient(h);
    const form = await c.get(path);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /ann@acme\.example/);
    assert.equal(form.headers['referrer-policy'], 'no-referrer');
    const short = await c.post(path, { password: 'short', confirm: 'short' });
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /at least 12 characters/);
    const differ = await c.post(path, { password: testPassword, confirm: `${testPassword}!` });
    assert.match(differ.body, /The two passwords differ/);
    const set = await c.post(path, { password: testPassword, confirm: testPassword, first_name: 'Ann' });
    assert.equal(set.statusCode, 303);
    assert.equal(set.headers.location, '/signin?notice=password-set');
    // Used once: the same link is gone.
    assert.equal((await c.get(path)).statusCode, 404);
    const members = (await h.send('GET', '/rest/v2/members/', { key })).json() as Array<Record<string, unknown>>;
    const ann = members.find((m) => m['email'] === 'ann@acme.example')!;
    assert.equal(ann['authentication'], 'password');
    assert.equal(ann['first_name'], 'Ann');
  });

  it('expires a link at its time and refuses a link of an unknown token alike', async () => {
    const link = await invite('late@acme.example');
    const token = new URL(link.url).pathname.split('/').pop()!;
    const later = new Date(Date.parse(link.expires) + 1000);
    assert.equal(await openAccountLink(h.runtime.store, token, later), undefined);
    assert.notEqual(await openAccountLink(h.runtime.store, token), undefined);
    const c = new ConsoleClient(h);
    const unknown = await c.get(`/account/link/${'x'.repeat(43)}`);
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /This link was used already, has expired or is wrong/);
  });

  it('signs in with a new session id in an HttpOnly SameSite cookie, sets last_login, and signs out on the server', async () => {
    const c = await signedInMember(h, 'acme', 'ben@acme.example', 'Viewer');
    const cookie = c.cookies.get('perimeter_session')!;
    assert.match(cookie, /^[\w-]{43}$/);
    const page = await c.get('/vulnerabilities');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /ben@acme\.example/);
    const members = (await h.send('GET', '/rest/v2/members/', { key })).json() as Array<Record<string, unknown>>;
    assert.match(String(members.find((m) => m['email'] === 'ben@acme.example')!['last_login']), /^\d{4}-/);
    // Only the hash of the id is stored.
    assert.equal(await h.runtime.store.accounts.findSession(cookie), undefined);
    assert.notEqual(await h.runtime.store.accounts.findSession(tokenHash(cookie)), undefined);
    // A second sign-in gets another id.
    const again = new ConsoleClient(h);
    await again.get('/signin');
    const res = await again.post('/signin', { email: 'ben@acme.example', password: testPassword });
    const setCookie = String(res.headers['set-cookie']);
    assert.match(setCookie, /perimeter_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax/);
    assert.notEqual(again.cookies.get('perimeter_session'), cookie);
    // Sign-out ends the session on the server: the old cookie opens nothing.
    const out = await c.post('/signout');
    assert.equal(out.statusCode, 303);
    const stale = await h.app.inject({
      method: 'GET',
      url: '/vulnerabilities',
      headers: { cookie: `perimeter_session=${cookie}` },
    });
    assert.equal(stale.statusCode, 302);
    assert.match(String(stale.headers.location), /^\/signin\?next=/);
  });

  it('ends a session after the idle time and at its absolute end', async () => {
    const c = await signedInMember(h, 'acme', 'idle@acme.example', 'Viewer');
    const token = c.cookies.get('perimeter_session')!;
    const store = h.runtime.store;
    const now = Date.now();
    assert.notEqual(await readSession(store, token, defaultAccountPolicy, new Date(now + 60_000)), undefined);
    assert.equal(await readSession(store, token, defaultAccountPolicy, new Date(now + 31 * 60_000)), undefined);
    const busy = { ...defaultAccountPolicy, sessionIdleMs: 365 * 24 * 3600_000 };
    assert.equal(await readSession(store, token, busy, new Date(now + 13 * 3600_000)), undefined);
  });

  it('answers a wrong password and an unknown e-mail the same, and throttles an account after 5 failures', async () => {
    await signedInMember(h, 'acme', 'cat@acme.example', 'Editor');
    const c = new ConsoleClient(h);
    await c.get('/signin');
    const wrong = await c.post('/signin', { email: 'cat@acme.example', password: 'not the password at all' });
    const unknown = await c.post('/signin', { email: 'nobody@acme.example', password: 'not the password at all' });
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    for (const res of [wrong, unknown]) assert.match(res.body, /The e-mail address or the password is wrong/);
    for (let i = 0; i < 4; i++)
      await c.post('/signin', { email: 'cat@acme.example', password: 'wrong password again' });
    const locked = await c.post('/signin', { email: 'cat@acme.example', password: testPassword });
    assert.equal(locked.statusCode, 429);
    assert.equal(locked.headers['retry-after'], '900');
    assert.match(locked.body, /Too many failed sign-ins/);
  });

  it('refuses a POST without the CSRF token, with another token, or from another origin', async () => {
    const c = await signedInMember(h, 'acme', 'dan@acme.example', 'Editor');
    assert.equal((await c.post('/signout', { _csrf: '' })).statusCode, 403);
    assert.equal((await c.post('/signout', { _csrf: 'x'.repeat(43) })).statusCode, 403);
    const cross = await c.post('/signout', {}, { origin: 'https://evil.example' });
    assert.equal(cross.statusCode, 403);
    assert.match(cross.body, /This form is no longer valid/);
    // The sign-in form's own token is a double-submit cookie: a forged sign-in is refused too.
    const fresh = new ConsoleClient(h);
    const forged = await fresh.post('/signin', { _csrf: 'forged', email: 'dan@acme.example', password: testPassword });
    assert.equal(forged.statusCode, 403);
    assert.equal((await c.get('/account')).statusCode, 200, 'the refused forms left the session alone');
  });

  it('asks a 2fa member for a TOTP code, enrolling at the first sign-in, and never accepts a code twice', async () => {
    const c = await signedInMember(h, 'acme', 'eve@acme.example', 'Admin', { twoFactor: true });
    const prompt = await c.get('/signin/code');
    assert.equal(prompt.statusCode, 200);
    assert.match(prompt.body, /<svg/);
    const secret = /<code class="secret">([A-Z2-7]+)<\/code>/.exec(prompt.body)![1]!;
    // Not signed in yet: pages send it back to sign-in.
    assert.equal((await c.get('/vulnerabilities')).statusCode, 302);
    const bad = await c.post('/signin/code', { code: '000000', next: '/account' });
    assert.equal(bad.statusCode, 401);
    assert.match(bad.body, /That code is wrong/);
    const before = c.cookies.get('perimeter_session');
    const code = totpCode(secret, new Date());
    const ok = await c.post('/signin/code', { code, next: '/account' });
    assert.equal(ok.statusCode, 303);
    assert.equal(ok.headers.location, '/account');
    assert.notEqual(c.cookies.get('perimeter_session'), before, 'the session id changes once both factors passed');
    assert.equal((await c.get('/account')).statusCode, 200);
    // The same code in another sign-in is refused (replay).
    const again = new ConsoleClient(h);
    await again.get('/signin');
    const second = await again.post('/signin', { email: 'eve@acme.example', password: testPassword });
    assert.equal(second.headers.location, '/signin/code?next=%2F');
    const page = await again.get('/signin/code');
    assert.doesNotMatch(page.body, /<svg/, 'no new enrolment once proved');
    assert.equal((await again.post('/signin/code', { code })).statusCode, 401);
  });

  it('keeps each role to its actions on the server', async () => {
    const viewer = await signedInMember(h, 'acme', 'viv@acme.example', 'Viewer');
    const list = await viewer.get('/vulnerabilities');
    assert.doesNotMatch(list.body, /action="\/vulnerabilities\/bulk"/, 'no triage form for a Viewer');
    const forged = await viewer.post('/vulnerabilities/bulk', { action: 'mark:fixed', uuid: crypto.randomUUID() });
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /Your role \(Viewer\) does not allow this/);
  });

  it('sends a visitor without a session to sign-in and back to the page asked for', async () => {
    await signedInMember(h, 'acme', 'fay@acme.example', 'Viewer');
    const c = new ConsoleClient(h);
    const res = await c.get('/account?x=1');
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/signin?next=%2Faccount%3Fx%3D1');
    const form = await c.get(String(res.headers.location));
    assert.match(form.body, /name="next" value="\/account\?x=1"/);
    const signIn = await c.post('/signin', { email: 'fay@acme.example', password: testPassword, next: '/account?x=1' });
    assert.equal(signIn.headers.location, '/account?x=1');
    // Never to another site.
    const off = await c.post('/signin', { email: 'fay@acme.example', password: testPassword, next: '//evil.example/' });
    assert.equal(off.headers.location, '/');
  });

  it('serves every page with a strict CSP and the not-found page outside /rest; the APIs keep their errors', async () => {
    const c = new ConsoleClient(h);
    const page = await c.get('/signin');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    const missing = await c.get('/no/such/page');
    assert.equal(missing.statusCode, 404);
    assert.match(String(missing.headers['content-type']), /^text\/html/);
    assert.match(missing.body, /Not found/);
    const api = await h.send('GET', '/rest/v2/no-such-operation/', { key });
    assert.equal(api.statusCode, 404);
    assert.equal((api.json() as { code: number }).code, 1900);
  });
});
