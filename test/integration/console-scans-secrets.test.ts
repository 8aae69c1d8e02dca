import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signedInMember, type ConsoleClient } from '../support/console-client.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';

/**
 * The scan settings form never shows a stored secret (the basic authentication password, secret
 * login values, credential header values, cookie values, the session cookie's value) to any role,
 * and keeps each when the form comes back unchanged.
 */

const marker = '••••••••';

const unescapeHtml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"' })[e] ?? "'");

/** The fields a browser sends from the settings form as a page shows it (text, switches on, selections). */
function shownForm(body: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const m of body.matchAll(/<textarea id="[^"]+" name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g))
    form[m[1]!] = unescapeHtml(m[2]!);
  for (const m of body.matchAll(/<input id="[^"]+" name="([^"]+)"[^>]* value="([^"]*)"/g))
    form[m[1]!] = unescapeHtml(m[2]!);
  for (const m of body.matchAll(/<input type="checkbox" id="[^"]+" name="([^"]+)" value="true" checked>/g))
    form[m[1]!] = 'true';
  for (const m of body.matchAll(/<select id="[^"]+" name="([^"]+)"[^>]*>.*?<option value="([^"]+)" selected>/gs))
    form[m[1]!] = unescapeHtml(m[2]!);
  return form;
}

/** The stored secrets, each a value no page may hold. */
const secrets = {
  password: 'Basic-Secret-7731',
  login: 'Login-Secret-4412',
  authorization: 'Bearer-Secret-5521',
  apiKey: 'Key-Secret-6630',
  cookie: 'Cookie-Secret-8812',
  session: 'Session-Secret-9904',
};

describe(`console: scan settings secrets (${testStore})`, () => {
  let h: Harness;
  let site: TargetServer;
  let key: string;
  let admin: ConsoleClient;
  let editor: ConsoleClient;
  let viewer: ConsoleClient;
  let profile = '';
  let path = '';
  const read = async () => (await h.send('GET', `/rest/v2/profiles/${profile}/settings/`, { key })).json();

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000 });
    site = await startGeneratedSite(3);
    key = (await h.team('acme')).key;
    const asset = (await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json();
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'acme');
    const created = await h.send('POST', '/rest/v2/profiles/', {
      key,
      body: { asset_token: asset.token, endpoint: `127.0.0.1:${site.port}`, name: 'shop' },
    });
    assert.equal(created.statusCode, 200, created.body);
    profile = created.json().token;
    path = `/scans/${profile}/settings`;
    admin = await signedInMember(h, 'acme', 'admin@acme.test', 'Admin');
    editor = await signedInMember(h, 'acme', 'editor@acme.test', 'Editor');
    viewer = await signedInMember(h, 'acme', 'viewer@acme.test', 'Viewer');
    const api = await h.send('PUT', `/rest/v2/profiles/${profile}/settings/`, {
      key,
      body: {
        basic_auth: { username: 'scan', password: secrets.password },
        custom_headers: [
          { name: 'X-Scanner', value: 'perimeter' },
          { name: 'Authorization', value: secrets.authorization },
          { name: 'X-Api-Key', value: secrets.apiKey },
        ],
        custom_cookies: [{ name: 'pref', value: secrets.cookie, secure: true }],
        session_cookie: { name: 'sid', value: secrets.session, httponly: true },
        login: {
          url: '/login',
          fields: [
            { name: 'user', value: 'scanner' },
            { name: 'Password', value: secrets.login },
          ],
        },
      },
    });
    assert.equal(api.statusCode, 200, api.body);
  });
  after(async () => {
    await h.runtime.verification.settle();
    await h.close();
    await site.stop();
  });

  it('never shows a stored secret to any role, refused form included; Viewers and Editors read "set" only', async () => {
    const refused = await admin.post(path, { ...shownForm((await admin.get(path)).body), requests_per_second: '3' });
    assert.equal(refused.statusCode, 400);
    const pages = [refused.body];
    for (const member of [admin, editor, viewer])
      for (const url of ['/scans', `/scans/${profile}`, path]) pages.push((await member.get(url)).body);
    for (const body of pages) for (const secret of Object.values(secrets)) assert.ok(!body.includes(secret), secret);

    const shown = await admin.get(path);
    assert.match(shown.body, /<input id="basic_auth_password" name="basic_auth_password" type="password" value=""/);
    assert.match(shown.body, /A password is set; leave empty to keep it\./);
    assert.ok(shown.body.includes(`user=scanner\nPassword=${marker}</textarea>`));
    assert.ok(shown.body.includes(`X-Scanner: perimeter\nAuthorization: ${marker}\nX-Api-Key: ${marker}</textarea>`));
    assert.ok(shown.body.includes(`pref=${marker}; Secure</textarea>`));
    assert.ok(shown.body.includes(`name="session_cookie" value="sid=${marker}; HttpOnly"`));
    for (const member of [viewer, editor]) {
      const body = (await member.get(path)).body;
      assert.match(
        body,
        /<input id="basic_auth_password" value="set" readonly aria-describedby="basic_auth_password-hint">/,
      );
      assert.ok(body.includes('user=scanner\nPassword=(set)</textarea>'));
      assert.ok(body.includes('X-Scanner: perimeter\nAuthorization: (set)\nX-Api-Key: (set)</textarea>'));
      assert.ok(body.includes('pref=(set); Secure</textarea>'));
      assert.ok(body.includes('name="session_cookie" value="sid=(set); HttpOnly"'));
      assert.ok(!body.includes(marker));
      assert.doesNotMatch(body, /name="basic_auth_password/);
    }
  });

  it('keeps every stored secret when the form comes back as shown; a typed value replaces one', async () => {
    const stored = await read();
    const form = shownForm((await admin.get(path)).body);
    assert.equal(form['basic_auth_password'], '');
    assert.equal((await admin.post(path, form)).statusCode, 303);
    assert.deepEqual(await read(), stored);

    await admin.get(path);
    const changed = await admin.post(path, {
      ...form,
      basic_auth_password: 'n3w pass',
      custom_headers: `X-Scanner: perimeter\nAuthorization: Bearer-New\nX-Api-Key: ${marker}`,
      session_cookie: 'sid=New-Session; HttpOnly',
    });
    assert.equal(changed.statusCode, 303, changed.body);
    const now = await read();
    assert.deepEqual(now.basic_auth, { username: 'scan', password: 'n3w pass' });
    assert.deepEqual(now.custom_headers, [
      { name: 'X-Scanner', value: 'perimeter' },
      { name: 'Authorization', value: 'Bearer-New' },
      { name: 'X-Api-Key', value: secrets.apiKey },
    ]);
    assert.deepEqual(now.session_cookie, { name: 'sid', value: 'New-Session', secure: false, httponly: true });
    assert.deepEqual(now.custom_cookies, stored.custom_cookies);
    assert.deepEqual(now.login, stored.login);
  });

  it('refuses a hidden value moved to a name with none stored, naming it; nothing changes', async () => {
    const stored = await read();
    const form = shownForm((await admin.get(path)).body);
    const cases: Array<[Record<string, string>, RegExp, string]> = [
      [
        { login_fields: `user=scanner\npin=${marker}` },
        /login\.fields\[1\]\.value: pin shows a hidden value/,
        'login_fields',
      ],
      [
        { custom_headers: `X-Token: ${marker}` },
        /custom_headers\[0\]\.value: X-Token shows a hidden value/,
        'custom_headers',
      ],
      [
        { custom_cookies: `other=${marker}` },
        /custom_cookies\[0\]\.value: other shows a hidden value/,
        'custom_cookies',
      ],
      [{ session_cookie: `token=${marker}` }, /session_cookie\.value: token shows a hidden value/, 'session_cookie'],
    ];
    for (const [change, message, field] of cases) {
      await admin.get(path);
      const res = await admin.post(path, { ...form, ...change });
      assert.equal(res.statusCode, 400, field);
      assert.match(res.body, message);
      assert.match(res.body, new RegExp(`id="${field}" name="${field}"[^>]* aria-invalid="true"`), field);
      for (const secret of Object.values(secrets)) assert.ok(!res.body.includes(secret), secret);
    }
    // A value the API refuses answers with the API's message, the merged secrets not shown.
    await admin.get(path);
    const bad = await admin.post(path, { ...form, custom_cookies: `pref=${marker}\nbad=a b` });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /Cookie value malformed in custom_cookies \(cookie bad\)/);
    assert.deepEqual(await read(), stored);

    await admin.get(path);
    const removed = await admin.post(path, { ...form, basic_auth_username: '', basic_auth_password_remove: 'true' });
    assert.equal(removed.statusCode, 303, removed.body);
    assert.equal((await read()).basic_auth ?? null, null);
    const after = await admin.get(path);
    assert.match(after.body, /No password is set; empty: none\./);
    assert.doesNotMatch(after.body, /basic_auth_password_remove/);
  });
});
