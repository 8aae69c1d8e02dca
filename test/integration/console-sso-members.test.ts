import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { escapeHtml } from '../../src/http/console/html.ts';
import { ConsoleClient, signedInMember, testPassword } from '../support/console-client.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { TestOidcProvider } from '../support/oidc-provider.ts';

// Single sign-on membership on the Team page, against a real OpenID provider on 127.0.0.1: an
// Admin invites with a sign-in (password or sso), switches a member between a password and single
// sign-on (sessions end, the password stops working, the way back needs the operator's reset
// link), the team keeps an Admin who can sign in, a pending sso member becomes active at the first
// sign-in, an invitation link tells an sso member to use single sign-on, the switch back ends
// older links, the operator's `member link --password` brings an sso Admin back to a password
// when the provider is broken, and single sign-on attempts share the password form's
// per-address failure count.
describe(`console single sign-on members (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let admin: ConsoleClient;
  const redirectUri = 'http://localhost/signin/sso/callback';
  const provider = new TestOidcProvider([
    { clientId: 'perimeter-console', clientSecret: 'console-secret-1234', redirectUri },
  ]);

  const userOf = (body: string, email: string): string =>
    new RegExp(`<tr data-user="([0-9a-f]{32})">\\s*<td class="wrap">${email.replace(/\./g, '\\.')}`).exec(body)![1]!;

  /** The v2 member list's entry of an address. */
  const wireMember = async (email: string) => {
    const list = (await h.send('GET', '/rest/v2/members/', { key })).json() as Array<Record<string, unknown>>;
    return list.find((m) => m['email'] === email);
  };

  const handOverUrl = (body: string) => {
    const match = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(body);
    assert.ok(match, `no hand-over in: ${body.slice(0, 400)}`);
    return match[1]!.replaceAll('&amp;', '&');
  };

  /** Signs in through the e-mail on the password form; the callback's answer. */
  const signInBySso = async (c: ConsoleClient, email: string) => {
    await c.get('/signin');
    const start = await c.post('/signin', { email, password: '', next: '/team' });
    assert.equal(start.statusCode, 200, start.body);
    provider.loginAs(email);
    const callback = await provider.authorize(handOverUrl(start.body));
    return c.get(callback.pathname + callback.search);
  };

  /** Signs in through "Sign in with single sign-on" and the team's name. */
  const signInByTeam = async (c: ConsoleClient, email: string) => {
    await c.get('/signin/sso');
    const start = await c.post('/signin/sso', { team: 'acme', next: '/' });
    assert.equal(start.statusCode, 200, start.body);
    provider.loginAs(email);
    const callback = await provider.authorize(handOverUrl(start.body));
    return c.get(callback.pathname + callback.search);
  };

  const signInByPassword = async (email: string) => {
    const c = new ConsoleClient(h);
    await c.get('/signin');
    return c.post('/signin', { email, password: testPassword, next: '/' });
  };

  const shows = (body: string, text: string) => assert.ok(body.includes(escapeHtml(text)), `shows "${text}"`);

  before(async () => {
    await provider.start();
    h = await createHarness();
    key = (await h.team('acme')).key;
    admin = await signedInMember(h, 'acme', 'root@acme.example', 'Admin');
    for (const email of [
      'root@acme.example',
      'new@acme.example',
      'ed@acme.example',
      'link@acme.example',
      'stranger@acme.example',
    ])
      provider.addAccount({ email, isVerified: true });
  });
  after(async () => {
    await h?.close();
    await provider.stop();
  });

  it('offers single sign-on only once it is set up, and refuses it before with a message', async () => {
    const page = await admin.get('/team');
    assert.doesNotMatch(page.body, /name="authentication"/);
    shows(page.body, 'Single sign-on is not set up (see the Single sign-on tab)');
    let res = await admin.post('/team/members', { email: 'new@acme.example', role: 'Editor', authentication: 'sso' });
    assert.equal(res.statusCode, 400);
    shows(res.body, 'Single sign-on is not set up for the team: set it up on the Single sign-on tab first.');
    res = await admin.post('/team/members', { email: 'new@acme.example', role: 'Editor', authentication: 'ldap' });
    assert.equal(res.statusCode, 400);
    shows(res.body, 'Sign-in malformed: expected one of password, sso');
    assert.equal(await wireMember('new@acme.example'), undefined);
    // The last Admin who can sign in is not switched to a single sign-on the team lacks.
    const root = userOf(page.body, 'root@acme.example');
    res = await admin.post(`/team/members/${root}/sign-in`, { authentication: 'sso' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /at least one active Admin who can sign in: single sign-on is not set up/);
    assert.equal((await wireMember('root@acme.example'))!['authentication'], 'password');
    res = await admin.post(`/team/members/${root}/sign-in`, { authentication: 'kerberos' });
    assert.equal(res.statusCode, 400);
    shows(res.body, 'Sign-in malformed: expected one of password, sso');
    const saved = await admin.post('/team/sso', {
      issuer: provider.issuer,
      client_id: 'perimeter-console',
      client_secret: 'console-secret-1234',
    });
    assert.equal(saved.statusCode, 303);
  });

  it('invites as sso without a link; the first single sign-on makes the member active', async () => {
    const page = await admin.get('/team');
    assert.match(page.body, /<select id="invite-authentication" name="authentication">/);
    const res = await admin.post('/team/members', { email: 'new@acme.example', role: 'Editor', authentication: 'sso' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team?notice=member-invited-sso');
    const listed = await admin.get('/team?notice=member-invited-sso');
    assert.match(listed.body, /The member signs in through single sign-on \(no link to send\)/);
    assert.doesNotMatch(listed.body, /data-secret="link"/);
    assert.match(listed.body, /single sign-on <span class="muted">\(active at the first sign-in\)<\/span>/);
    assert.deepEqual(
      [(await wireMember('new@acme.example'))!['state'], (await wireMember('new@acme.example'))!['authentication']],
      ['pending', 'sso'],
    );
    // The operator's link command has nothing to make for them either.
    await assert.rejects(h.admin('member', 'link', 'new@acme.example', '--team', 'acme'), /single sign-on/);
    const c = new ConsoleClient(h);
    const signedIn = await signInBySso(c, 'new@acme.example');
    assert.equal(signedIn.statusCode, 302, signedIn.body);
    assert.equal(signedIn.headers.location, '/team');
    assert.equal((await c.get('/team')).statusCode, 200);
    const wire = await wireMember('new@acme.example');
    assert.equal(wire!['state'], 'active');
    assert.equal(wire!['authentication'], 'sso');
    assert.ok(typeof wire!['last_login'] === 'string');
    // Their account page has no password or second factor to set: the provider keeps those.
    const account = await c.get('/account');
    assert.match(account.body, /You sign in through your team\S{1,6}s single sign-on/);
    assert.doesNotMatch(account.body, /action="\/account\/password"/);
    const forged = await c.post('/account/two-factor', { code: '123456' });
    assert.equal(forged.statusCode, 400);
    assert.match(forged.body, /You sign in through single sign-on: your password and second factor/);
  });

  it('tells a member switched to sso that the invitation link sets no password', async () => {
    await admin.get('/team');
    const invited = await admin.post('/team/members', { email: 'link@acme.example', role: 'Viewer' });
    const url = /data-secret="link">([^<]+)</.exec(invited.body)![1]!;
    const page = await admin.get('/team');
    const res = await admin.post(`/team/members/${userOf(page.body, 'link@acme.example')}/sign-in`, {
      authentication: 'sso',
    });
    assert.equal(res.headers.location, '/team?notice=member-sign-in-sso-pending');
    const visitor = new ConsoleClient(h);
    const link = await visitor.get(new URL(url).pathname);
    assert.equal(link.statusCode, 200);
    assert.match(link.body, /signs in to the team through single sign-on: no password is needed/);
    assert.match(link.body, /href="\/signin\/sso"/);
    assert.doesNotMatch(link.body, /name="password"/);
    await visitor.get('/signin'); // a form token, as a page with a form would give
    const forced = await visitor.post(new URL(url).pathname, { password: testPassword, confirm: testPassword });
    assert.match(forced.body, /no password is needed/);
    assert.equal((await wireMember('link@acme.example'))!['state'], 'pending');
    // Back to a password invitation: a new link is the Admin's to make.
    await admin.get('/team');
    const token = userOf(page.body, 'link@acme.example');
    const back = await admin.post(`/team/members/${token}/sign-in`, { authentication: 'password' });
    assert.equal(back.headers.location, '/team?notice=member-sign-in-invitation');
    assert.equal((await wireMember('link@acme.example'))!['authentication'], 'none');
    const old = await visitor.get(new URL(url).pathname);
    assert.equal(old.statusCode, 404, 'the switch back ended the old invitation link');
    assert.match(old.body, /This link was used already, has expired or is wrong/);
    const renewed = await admin.post(`/team/members/${token}/link`);
    assert.match(renewed.body, /data-secret="link">http:\/\/[^<]+\/account\/link\//);
  });

  it('switches an active member to sso (sessions end, the password stops) and back (a reset link needed)', async () => {
    const ed = await signedInMember(h, 'acme', 'ed@acme.example', 'Editor');
    let page = await admin.get('/team');
    const token = userOf(page.body, 'ed@acme.example');
    assert.match(page.body, new RegExp(`action="/team/members/${token}/sign-in"[^>]*data-confirm="[^"]*sessions end`));
    let res = await admin.post(`/team/members/${token}/sign-in`, { authentication: 'sso' });
    assert.equal(res.statusCode, 303);
    const after = await ed.get('/team');
    assert.equal(after.statusCode, 302, 'the session ended');
    assert.equal((await wireMember('ed@acme.example'))!['authentication'], 'sso');
    // The password form now hands the address over to the provider; the password is no more.
    const c = new ConsoleClient(h);
    assert.equal((await signInBySso(c, 'ed@acme.example')).statusCode, 302);
    page = await admin.get('/team');
    res = await admin.post(`/team/members/${token}/sign-in`, { authentication: 'password' });
    assert.equal(res.headers.location, '/team?notice=member-sign-in-password');
    shows((await admin.get(String(res.headers.location))).body, 'They need a reset link from your operator first');
    assert.equal((await wireMember('ed@acme.example'))!['authentication'], 'password');
    assert.equal((await signInByPassword('ed@acme.example')).statusCode, 401, 'the old password is gone');
    const link = JSON.parse(await h.admin('member', 'link', 'ed@acme.example', '--team', 'acme', '--json')) as {
      url: string;
      purpose?: string;
    };
    const visitor = new ConsoleClient(h);
    await visitor.get(new URL(link.url).pathname);
    const set = await visitor.post(new URL(link.url).pathname, { password: testPassword, confirm: testPassword });
    assert.equal(set.statusCode, 303);
    assert.equal((await signInByPassword('ed@acme.example')).statusCode, 303);
  });

  it('keeps an Admin who can sign in when single sign-on is set up, and hides the switch from a Viewer', async () => {
    // With single sign-on set up, the only password Admin may switch: it signs in through the provider.
    const page = await admin.get('/team');
    const root = userOf(page.body, 'root@acme.example');
    const viewer = await signedInMember(h, 'acme', 'vic@acme.example', 'Viewer');
    const seen = await viewer.get('/team');
    assert.doesNotMatch(seen.body, /\/sign-in"/);
    assert.equal((await viewer.post(`/team/members/${root}/sign-in`, { authentication: 'sso' })).statusCode, 403);
    const res = await admin.post(`/team/members/${root}/sign-in`, { authentication: 'sso' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/signin');
    assert.equal((await admin.get('/team')).statusCode, 302, "the Admin's own session ended");
    const back = new ConsoleClient(h);
    assert.equal((await signInBySso(back, 'root@acme.example')).statusCode, 302);
    admin = back;
    // Every Admin now signs in through single sign-on: turning it off would lock the team out.
    await admin.get('/team/sso');
    const off = await admin.post('/team/sso/delete');
    assert.equal(off.statusCode, 400);
    assert.match(off.body, /Every active Admin of the team signs in through single sign-on/);
    assert.ok(await h.runtime.store.teamSso.find(1));
  });

  it("lets the operator switch an sso Admin back to a password when the team's provider is broken", async () => {
    // The only Admin signs in through single sign-on (the test before); the provider is gone.
    await assert.rejects(
      h.admin('member', 'link', 'root@acme.example', '--team', 'acme'),
      /signs in through single sign-on: no password link is needed. To switch them to a password \(their sessions end\), add --password/,
    );
    const text = await h.admin('member', 'link', 'Root@acme.example', '--team', 'acme', '--password');
    assert.match(
      text,
      /^root@acme\.example no longer signs in through single sign-on: their sessions and earlier links ended\./,
    );
    assert.equal((await admin.get('/team')).statusCode, 302, "the Admin's single sign-on session ended");
    assert.equal((await wireMember('root@acme.example'))!['authentication'], 'password');
    const url = /\nhttp:\/\/\S+\/account\/link\/\S+$/.exec(text)![0].trim();
    const visitor = new ConsoleClient(h);
    await visitor.get(new URL(url).pathname);
    const set = await visitor.post(new URL(url).pathname, { password: testPassword, confirm: testPassword });
    assert.equal(set.statusCode, 303);
    admin = new ConsoleClient(h);
    await admin.get('/signin');
    const signedIn = await admin.post('/signin', { email: 'root@acme.example', password: testPassword, next: '/' });
    assert.equal(signedIn.statusCode, 303, 'the new password signs in');
    // Again: the member has a password now, so it only gets a new reset link.
    const again = JSON.parse(
      await h.admin('member', 'link', 'root@acme.example', '--team', 'acme', '--password', '--json'),
    ) as { purpose: string; switched_from_sso: boolean };
    assert.deepEqual([again.purpose, again.switched_from_sso], ['reset', false]);
    // A pending sso member gets a password invitation; links made before the switch are dead.
    await h.admin('member', 'invite', 'late@acme.example', '--team', 'acme');
    const before = JSON.parse(await h.admin('member', 'link', 'late@acme.example', '--team', 'acme', '--json')) as {
      url: string;
    };
    const page = await admin.get('/team');
    const toSso = await admin.post(`/team/members/${userOf(page.body, 'late@acme.example')}/sign-in`, {
      authentication: 'sso',
    });
    assert.equal(toSso.headers.location, '/team?notice=member-sign-in-sso-pending');
    const invited = JSON.parse(
      await h.admin('member', 'link', 'late@acme.example', '--team', 'acme', '--password', '--json'),
    ) as { purpose: string; switched_from_sso: boolean; url: string };
    assert.deepEqual([invited.purpose, invited.switched_from_sso], ['invitation', true]);
    assert.equal((await visitor.get(new URL(before.url).pathname)).statusCode, 404, 'the earlier link is dead');
    assert.equal((await visitor.get(new URL(invited.url).pathname)).statusCode, 200, 'the new one works');
    await assert.rejects(
      h.admin('member', 'link', 'nobody@acme.example', '--team', 'acme', '--password'),
      /nobody@acme\.example is not a member of team "acme"/,
    );
  });

  it('counts refused callbacks per client address and answers 429 past the limit', async () => {
    const since = new Date(Date.now() - 15 * 60_000);
    const before = await h.runtime.store.accounts.failures('address:127.0.0.1', since);
    const c = new ConsoleClient(h);
    const refused = await signInByTeam(c, 'stranger@acme.example');
    assert.equal(refused.statusCode, 401);
    assert.equal(await h.runtime.store.accounts.failures('address:127.0.0.1', since), before + 1);
    for (let i = before + 1; i < 20; i++)
      await h.runtime.store.accounts.addFailure('address:127.0.0.1', new Date(), since);
    await c.get('/signin/sso');
    const start = await c.post('/signin/sso', { team: 'acme' });
    assert.equal(start.statusCode, 429);
    assert.match(start.body, /Too many failed sign-ins. Try again in 15 minutes./);
    assert.equal(start.headers['retry-after'], '900');
    const callback = await c.get('/signin/sso/callback?code=x&state=y');
    assert.equal(callback.statusCode, 429);
    assert.match(callback.body, /Too many failed sign-ins. Try again in 15 minutes./);
    assert.equal((await signInByPassword('ed@acme.example')).statusCode, 429, 'the password form shares the count');
    await h.runtime.store.accounts.clearFailures('address:127.0.0.1');
  });
});
