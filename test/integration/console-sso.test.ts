import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient, signedInMember } from '../support/console-client.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { TestOidcProvider } from '../support/oidc-provider.ts';

// Console single sign-on against a real OpenID provider (oidc-provider) on 127.0.0.1: the team's
// settings page, the sign-in by e-mail and by team name, and every refusal (wrong audience,
// expired token, unverified e-mail, a member the team does not know, a password member, a bad
// state, a callback without its pending sign-in), each with no session.
describe(`console single sign-on (${testStore})`, () => {
  let h: Harness;
  let admin: ConsoleClient;
  const redirectUri = 'http://localhost/signin/sso/callback';
  const provider = new TestOidcProvider([
    { clientId: 'perimeter-console', clientSecret: 'console-secret-1234', redirectUri },
    { clientId: 'other-app', clientSecret: 'other-secret-5678', redirectUri },
  ]);

  const ssoMember = async (email: string, team = 'acme') => {
    await h.admin('member', 'invite', email, '--team', team, '--role', 'Editor', '--json');
    await h.admin('member', 'accept', email, '--team', team, '--authentication', 'sso');
  };

  /** The provider's URL on the hand-over page (a refresh, with a link). */
  const handOverUrl = (body: string) => {
    const match = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(body);
    assert.ok(match, `no hand-over in: ${body.slice(0, 400)}`);
    return match[1]!.replaceAll('&amp;', '&');
  };

  /** Signs in through the e-mail on the password form; the callback's answer. */
  const signInByEmail = async (c: ConsoleClient, email: string, next = '/vulnerabilities') => {
    await c.get('/signin');
    const start = await c.post('/signin', { email, password: '', next });
    assert.equal(start.statusCode, 200);
    assert.ok(c.cookies.has('perimeter_sso'));
    provider.loginAs(email);
    const callback = await provider.authorize(handOverUrl(start.body));
    assert.equal(callback.origin + callback.pathname, redirectUri);
    return c.get(callback.pathname + callback.search);
  };

  /** Signs in through "Sign in with single sign-on" and the team's name. */
  const signInByTeam = async (c: ConsoleClient, team: string, email: string) => {
    await c.get('/signin/sso');
    const start = await c.post('/signin/sso', { team, next: '/' });
    assert.equal(start.statusCode, 200, start.body);
    provider.loginAs(email);
    const callback = await provider.authorize(handOverUrl(start.body));
    return c.get(callback.pathname + callback.search);
  };

  const assertRefused = (c: ConsoleClient, res: { statusCode: number; body: string }, message: RegExp) => {
    assert.equal(res.statusCode, 401, res.body);
    assert.match(res.body, /Single sign-on refused/);
    assert.match(res.body, message);
    assert.equal(c.cookies.has('perimeter_session'), false);
    assert.equal(c.cookies.has('perimeter_sso'), false);
  };

  before(async () => {
    await provider.start();
    h = await createHarness();
    await h.team('acme');
    await h.team('other');
    admin = await signedInMember(h, 'acme', 'root@acme.example', 'Admin');
    await ssoMember('ann@acme.example');
    await ssoMember('eve@acme.example');
    await ssoMember('stranger@other.example', 'other');
    provider.addAccount({ email: 'ann@acme.example', isVerified: true });
    provider.addAccount({ email: 'eve@acme.example', isVerified: false });
    provider.addAccount({ email: 'stranger@other.example', isVerified: true });
    provider.addAccount({ email: 'root@acme.example', isVerified: true });
  });
  after(async () => {
    await h?.close();
    await provider.stop();
  });

  it('lets an Admin set up the provider, refusing bad values with a message and never showing the secret', async () => {
    const form = await admin.get('/team/sso');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /Single sign-on is not set up/);
    assert.match(form.body, /http:\/\/localhost\/signin\/sso\/callback/);
    const save = (fields: Record<string, string>) =>
      admin.post('/team/sso', {
        issuer: provider.issuer,
        client_id: 'perimeter-console',
        client_secret: 'console-secret-1234',
        ...fields,
      });
    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ issuer: '' }, /Enter the issuer URL/],
      [{ issuer: 'ftp://login.example.com/' }, /must start with https:\/\//],
      [{ issuer: 'http://login.example.com/' }, /must start with https:\/\//],
      [{ issuer: `${provider.issuer}/?tenant=1` }, /must not have a user name, a query or a fragment/],
      [{ client_id: '' }, /Enter the client id/],
      [{ client_secret: '' }, /Enter the client secret/],
      [{ issuer: 'http://127.0.0.1:9/' }, /The identity provider did not answer: http:\/\/127\.0\.0\.1:9\/: /],
    ];
    for (const [fields, message] of refusals) {
      const res = await save(fields);
      assert.equal(res.statusCode, 400, JSON.stringify(fields));
      assert.match(res.body, message);
      assert.match(res.body, /aria-invalid="true"/);
    }
    assert.equal(await h.runtime.store.teamSso.find(1), undefined);
    const saved = await save({});
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, '/team/sso?notice=sso-saved');
    const shown = await admin.get(saved.headers.location as string);
    assert.match(shown.body, /Single sign-on saved/);
    assert.match(shown.body, /perimeter-console/);
    assert.doesNotMatch(shown.body, /console-secret-1234/);
    // A blank secret keeps the stored one (sealed, not in clear).
    const kept = await save({ client_secret: '' });
    assert.equal(kept.statusCode, 303);
    const acme = await h.runtime.store.teams.findByName('acme');
    const stored = await h.runtime.store.teamSso.find(acme!.id);
    assert.ok(stored !== undefined && !stored.clientSecretSealed.includes('console-secret'));
    assert.equal(h.runtime.box.decrypt(stored.clientSecretSealed), 'console-secret-1234');
  });

  it('shows a Viewer the settings without a form, and refuses its change with 403', async () => {
    const viewer = await signedInMember(h, 'acme', 'vic@acme.example', 'Viewer');
    const page = await viewer.get('/team/sso');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /perimeter-console/);
    assert.doesNotMatch(page.body, /action="\/team\/sso"/);
    assert.match(page.body, /Only an Admin of the team can change single sign-on/);
    const post = await viewer.post('/team/sso', {
      issuer: 'https://evil.example/',
      client_id: 'x',
      client_secret: 'y',
    });
    assert.equal(post.statusCode, 403);
    const off = await viewer.post('/team/sso/delete');
    assert.equal(off.statusCode, 403);
  });

  it('signs an sso member in from the e-mail on the sign-in form and lands on the page asked', async () => {
    const c = new ConsoleClient(h);
    const res = await signInByEmail(c, 'ann@acme.example');
    assert.equal(res.statusCode, 302, res.body);
    assert.equal(res.headers.location, '/vulnerabilities');
    assert.match(c.cookies.get('perimeter_session') ?? '', /^[\w-]{43}$/);
    assert.equal(c.cookies.has('perimeter_sso'), false);
    const page = await c.get('/vulnerabilities');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /ann@acme\.example/);
    const acme = await h.runtime.store.teams.findByName('acme');
    const [ann] = await h.runtime.store.members.findByEmails(acme!.id, ['ann@acme.example']);
    assert.notEqual(ann!.lastLogin, null);
  });

  it('signs in from "Sign in with single sign-on" and the team name, and refuses an unknown team alike', async () => {
    const c = new ConsoleClient(h);
    const res = await signInByTeam(c, 'acme', 'ann@acme.example');
    assert.equal(res.statusCode, 302);
    assert.ok(c.cookies.has('perimeter_session'));
    const other = new ConsoleClient(h);
    await other.get('/signin/sso');
    for (const team of ['nope', 'other']) {
      const refused = await other.post('/signin/sso', { team });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /No team of that name signs in with single sign-on/);
    }
  });

  it('refuses an ID token issued for another client id (wrong audience)', async () => {
    provider.tamper = (claims) => {
      claims['aud'] = 'other-app';
    };
    try {
      const c = new ConsoleClient(h);
      assertRefused(
        c,
        await signInByEmail(c, 'ann@acme.example'),
        /token was refused: unexpected JWT &quot;aud&quot; \(audience\)/,
      );
    } finally {
      provider.tamper = undefined;
    }
  });

  it('refuses an expired ID token', async () => {
    provider.tamper = (claims) => {
      const now = Math.floor(Date.now() / 1000);
      claims['iat'] = now - 7200;
      claims['exp'] = now - 3600;
    };
    try {
      const c = new ConsoleClient(h);
      assertRefused(
        c,
        await signInByEmail(c, 'ann@acme.example'),
        /token was refused: unexpected JWT &quot;exp&quot; \(expiration time\)/,
      );
    } finally {
      provider.tamper = undefined;
    }
  });

  it('refuses a member of another team, a password member and an e-mail the provider does not verify', async () => {
    const stranger = new ConsoleClient(h);
    assertRefused(
      stranger,
      await signInByTeam(stranger, 'acme', 'stranger@other.example'),
      /stranger@other\.example is not a member of team acme/,
    );
    const root = new ConsoleClient(h);
    assertRefused(
      root,
      await signInByTeam(root, 'acme', 'root@acme.example'),
      /root@acme\.example signs in to team acme with a password, not single sign-on/,
    );
    const eve = new ConsoleClient(h);
    assertRefused(
      eve,
      await signInByEmail(eve, 'eve@acme.example'),
      /does not confirm that eve@acme\.example is verified/,
    );
  });

  it("refuses with the provider's reason when the user cancels there", async () => {
    const c = new ConsoleClient(h);
    await c.get('/signin/sso');
    const start = await c.post('/signin/sso', { team: 'acme' });
    provider.loginAs(null);
    const callback = await provider.authorize(handOverUrl(start.body));
    assertRefused(
      c,
      await c.get(callback.pathname + callback.search),
      /did not sign you in: access_denied \(the user cancelled\)/,
    );
  });

  it('refuses a callback whose state differs, and one without its pending sign-in', async () => {
    const c = new ConsoleClient(h);
    await c.get('/signin/sso');
    const start = await c.post('/signin/sso', { team: 'acme' });
    provider.loginAs('ann@acme.example');
    const callback = await provider.authorize(handOverUrl(start.body));
    const forged = new URL(callback);
    forged.searchParams.set('state', 'x'.repeat(43));
    // Another browser (no pending sign-in) with the right callback.
    const elsewhere = new ConsoleClient(h);
    assertRefused(
      elsewhere,
      await elsewhere.get(callback.pathname + callback.search),
      /expired or was started in another browser/,
    );
    assertRefused(c, await c.get(forged.pathname + forged.search), /does not belong to this sign-in/);
  });

  it('shows, sets and removes the provider from the admin CLI with the same rules, never printing the secret', async () => {
    const shown = JSON.parse(await h.admin('sso', 'show', '--team', 'acme', '--json')) as Record<string, unknown>;
    assert.equal(shown['client_id'], 'perimeter-console');
    assert.match(String(shown['redirect_uri']), /\/signin\/sso\/callback$/);
    await assert.rejects(
      h.admin('sso', 'set', '--team', 'other', '--issuer', 'http://idp.example/', '--client-id', 'x'),
      /must start with https:\/\//,
    );
    const dir = mkdtempSync(join(tmpdir(), 'perimeter-sso-'));
    try {
      writeFileSync(join(dir, 'secret'), 'other-secret-5678\n');
      const set = await h.admin(
        'sso',
        'set',
        '--team',
        'other',
        '--issuer',
        provider.issuer,
        '--client-id',
        'other-app',
        '--client-secret-file',
        join(dir, 'secret'),
      );
      assert.match(set, /signs in through http:\/\/127\.0\.0\.1:\d+ as client other-app \(secret stored, not shown\)/);
      assert.doesNotMatch(set, /other-secret-5678/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.match(await h.admin('sso', 'remove', '--team', 'other'), /Single sign-on of team other is off/);
  });

  it('lets an Admin turn single sign-on off: its members are then sent to the password form', async () => {
    const off = await admin.post('/team/sso/delete');
    assert.equal(off.statusCode, 303);
    const c = new ConsoleClient(h);
    await c.get('/signin');
    const res = await c.post('/signin', { email: 'ann@acme.example', password: '' });
    assert.equal(res.statusCode, 401);
    assert.match(res.body, /The e-mail address or the password is wrong/);
  });
});
