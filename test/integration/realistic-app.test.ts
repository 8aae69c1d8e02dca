import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  realisticAccounts,
  realisticManifest,
  startRealisticApps,
  type RealisticApp,
} from '../support/realistic-app/index.ts';

/**
 * The realistic application of the scanner benchmark, checked by hand-made requests: each spot
 * of its manifest is really there on the vulnerable twin (log in, trigger the flaw, see it) and
 * absent on the safe twin; the login, the expiring sessions, the button-gated handlers and the
 * script-built menu behave as the benchmark needs.
 */

interface Answer {
  status: number;
  text: string;
  headers: Headers;
  ms: number;
}

/** A client with a cookie jar that does not follow redirects. */
class Client {
  readonly cookies = new Map<string, string>();
  constructor(private readonly origin: string) {}

  async send(path: string, init: { method?: string; body?: string | FormData; type?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {
      cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    };
    if (init.type !== undefined) headers['content-type'] = init.type;
    const started = performance.now();
    const response = await fetch(`${this.origin}${path}`, {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await response.text();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (/Max-Age=0/i.test(line)) this.cookies.delete(pair.slice(0, at));
      else this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return { status: response.status, text, headers: response.headers, ms: performance.now() - started };
  }

  get = (path: string): Promise<Answer> => this.send(path);
  post = (path: string, fields: Record<string, string>): Promise<Answer> =>
    this.send(path, {
      method: 'POST',
      body: new URLSearchParams(fields).toString(),
      type: 'application/x-www-form-urlencoded',
    });

  /** Logs in through the form (token from the page, the Login button sent); the answer of the POST. */
  async login(username: string, password: string, withButton = true): Promise<Answer> {
    const page = await this.get('/login');
    const token = /name="user_token" value="([0-9a-f]+)"/.exec(page.text)?.[1];
    assert.ok(token !== undefined, 'the login form carries a token');
    return this.post('/login', {
      username,
      password,
      user_token: token,
      ...(withButton ? { Login: 'Login' } : {}),
    });
  }

  /** The safe twin's per-session form token, read from a page. */
  async token(path: string): Promise<string> {
    return /name="user_token" value="([0-9a-f]+)"/.exec((await this.get(path)).text)?.[1] ?? '';
  }
}

const { user, admin } = realisticAccounts;
const twins = ['vulnerable', 'safe'] as const;

describe('the realistic application (benchmark fixture)', () => {
  let apps: { vulnerable: RealisticApp; safe: RealisticApp; stop(): Promise<void> };
  const clients = {} as Record<(typeof twins)[number], Client>;

  before(async () => {
    apps = await startRealisticApps({ delayMs: { min: 1, max: 3 } });
    for (const twin of twins) {
      clients[twin] = new Client(apps[twin].origin);
      const answer = await clients[twin].login(user.username, user.password);
      assert.equal(answer.status, 302, `${twin}: the scanner's account logs in`);
    }
  });
  after(() => apps?.stop());

  it('gates every page but the login on a session; the login needs its token and its button', async () => {
    for (const twin of twins) {
      const anonymous = new Client(apps[twin].origin);
      const page = await anonymous.get('/vulnerabilities/sqli/');
      assert.equal(page.status, 302);
      assert.equal(page.headers.get('location'), '/login');
      assert.equal((await anonymous.get('/api/users')).status, 401);
      assert.equal((await anonymous.login(user.username, user.password, false)).status, 200, 'no button: no login');
      assert.equal(anonymous.cookies.size, 0);
      const forged = await anonymous.post('/login', {
        username: user.username,
        password: user.password,
        Login: 'Login',
      });
      assert.equal(forged.headers.get('location'), '/login?msg=token', 'no token: no login');
      assert.equal((await anonymous.login(user.username, 'wrong')).headers.get('location'), '/login?msg=failed');
      const home = await clients[twin].get('/');
      assert.equal(home.status, 200);
      assert.match(home.text, /href="\/logout">Logout</);
      assert.match(home.text, /Username:<\/em> gordonb/);
      const login = await anonymous.get('/login');
      assert.doesNotMatch(login.text, /logout/i, 'the login page has no Logout link');
    }
  });

  it('sets the session cookie without SameSite on the vulnerable twin only (POST forms are CSRF-able there)', async () => {
    for (const twin of twins) {
      const answer = await new Client(apps[twin].origin).login(user.username, user.password);
      const header = answer.headers.getSetCookie().find((c) => c.startsWith('RASESSID=')) ?? '';
      assert.match(header, /HttpOnly/);
      assert.equal(/SameSite=/i.test(header), twin === 'safe', `${twin}: ${header}`);
    }
  });

  it('builds part of the menu only in a script (no static link to those pages anywhere)', async () => {
    const client = clients.vulnerable;
    const scriptOnly = realisticManifest.filter((s) => s.needsJs).map((s) => s.path);
    assert.ok(scriptOnly.includes('/vulnerabilities/sqli_blind/'));
    const pages = ['/', '/about', '/vulnerabilities/sqli/', '/vulnerabilities/xss_s/', '/security'];
    for (const path of pages) {
      const text = (await client.get(path)).text;
      for (const hidden of scriptOnly.filter((p) => p !== '/api/users'))
        assert.ok(!text.includes(hidden), `${path} links ${hidden} statically`);
    }
    const script = (await client.get('/static/menu.js')).text;
    assert.match(script, /\(sqli_blind\)/);
    assert.ok(!script.includes('/vulnerabilities/'), 'the script assembles the base from pieces');
    // The users page (reached through the menu) links the API.
    assert.match((await client.get('/vulnerabilities/users/')).text, /href="\/api\/users"/);
  });

  it('expires a session after its request budget: the next page is the login', async () => {
    const client = new Client(apps.vulnerable.origin);
    await client.login(user.username, user.password);
    const limits = apps.vulnerable.state.limits;
    const saved = limits.maxRequests;
    limits.maxRequests = 2;
    try {
      assert.equal((await client.get('/about')).status, 200);
      assert.equal((await client.get('/about')).status, 200);
      const third = await client.get('/about');
      assert.equal(third.status, 302);
      assert.equal(third.headers.get('location'), '/login?msg=expired');
    } finally {
      limits.maxRequests = saved;
    }
  });

  it('SQL injection (error-based): only when Submit is sent; a MariaDB syntax error and every row on the vulnerable twin', async () => {
    const v = clients.vulnerable;
    assert.equal((await v.get("/vulnerabilities/sqli/?id=1'")).status, 200, 'without the button nothing runs');
    const error = await v.get("/vulnerabilities/sqli/?id=1'&Submit=Submit");
    assert.equal(error.status, 500);
    assert.match(
      error.text,
      /Uncaught mysqli_sql_exception: You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version/,
    );
    const all = await v.get(`/vulnerabilities/sqli/?id=${encodeURIComponent("' OR '1'='1")}&Submit=Submit`);
    assert.equal(all.text.match(/First name:/g)?.length, 5);
    assert.equal((await v.get('/vulnerabilities/sqli/?id=perimeter&Submit=Submit')).text.match(/First name:/g), null);
    const s = clients.safe;
    const token = await s.token('/vulnerabilities/sqli/');
    const safeError = await s.get(`/vulnerabilities/sqli/?id=1'&Submit=Submit&user_token=${token}`);
    assert.equal(safeError.status, 200);
    assert.doesNotMatch(safeError.text, /SQL syntax/);
    const safeAll = await s.get(
      `/vulnerabilities/sqli/?id=${encodeURIComponent("' OR '1'='1")}&Submit=Submit&user_token=${token}`,
    );
    assert.equal(safeAll.text.match(/First name:/g), null);
    assert.equal(
      (await s.get(`/vulnerabilities/sqli/?id=2&Submit=Submit&user_token=${token}`)).text.match(/First name: Gordon/g)
        ?.length,
      1,
    );
  });

  it('blind SQL injection: a true/false status on the vulnerable twin, and SLEEP only when the WHERE can match', async () => {
    const v = clients.vulnerable;
    const q = (id: string, extra = ''): string =>
      `/vulnerabilities/sqli_blind/?id=${encodeURIComponent(id)}&Submit=Submit${extra}`;
    assert.equal((await v.get(q("1' AND '1'='1"))).status, 200);
    assert.equal((await v.get(q("1' AND '1'='2"))).status, 404);
    assert.equal((await v.get(q("1'"))).status, 404, 'errors are swallowed');
    assert.doesNotMatch((await v.get(q("1'"))).text, /SQL syntax/);
    assert.ok((await v.get(q("1' AND SLEEP(1)-- -"))).ms >= 1000, 'a matching row sleeps');
    assert.ok((await v.get(q("perimeter' AND SLEEP(1)-- -"))).ms < 900, 'a junk value never reaches SLEEP');
    const s = clients.safe;
    const token = await s.token('/vulnerabilities/sqli_blind/');
    assert.equal((await s.get(q('1', `&user_token=${token}`))).status, 200);
    assert.equal((await s.get(q("1' AND '1'='1", `&user_token=${token}`))).status, 404);
    assert.ok((await s.get(q("1' AND SLEEP(1)-- -", `&user_token=${token}`))).ms < 900);
  });

  it('command injection: an emulated shell behind the ping form, Submit-gated', async () => {
    const v = clients.vulnerable;
    const ping = (ip: string, extra: Record<string, string> = { Submit: 'Submit' }) =>
      v.post('/vulnerabilities/exec/', { ip, ...extra });
    assert.doesNotMatch((await ping('127.0.0.1;id', {})).text, /uid=/, 'without the button nothing runs');
    assert.match((await ping('127.0.0.1')).text, /4 packets transmitted/);
    assert.match((await ping('127.0.0.1;cat /etc/passwd')).text, /root:x:0:0:root/);
    assert.match((await ping('127.0.0.1|id')).text, /uid=33\(www-data\)/);
    assert.match((await ping('127.0.0.1$(echo prmtr$((1337*3)))')).text, /prmtr4011/);
    assert.match((await ping('a;env;')).text, /PATH=[\s\S]*PWD=/);
    assert.ok((await ping('127.0.0.1 && sleep 1')).ms >= 1000);
    const s = clients.safe;
    const token = await s.token('/vulnerabilities/exec/');
    const refused = await s.post('/vulnerabilities/exec/', {
      ip: '127.0.0.1;cat /etc/passwd',
      Submit: 'Submit',
      user_token: token,
    });
    assert.match(refused.text, /invalid IP/);
    assert.doesNotMatch(refused.text, /root:x/);
    const slow = await s.post('/vulnerabilities/exec/', {
      ip: '127.0.0.1|sleep 1',
      Submit: 'Submit',
      user_token: token,
    });
    assert.ok(slow.ms < 900);
  });

  it('stored and reflected XSS: raw on the vulnerable twin, encoded on the safe one', async () => {
    for (const twin of twins) {
      const client = clients[twin];
      const token = await client.token('/vulnerabilities/xss_s/');
      const marker = `<script>alert('${twin}')</script>`;
      await client.post('/vulnerabilities/xss_s/', {
        txtName: 'x',
        mtxMessage: marker,
        btnSign: 'Sign Guestbook',
        user_token: token,
      });
      const book = (await client.get('/vulnerabilities/xss_s/')).text;
      assert.equal(book.includes(marker), twin === 'vulnerable', `${twin} guestbook`);
      const echo = (
        await client.get(
          `/vulnerabilities/xss_r/?name=${encodeURIComponent('<b>xss</b>')}&Submit=Submit&user_token=${token}`,
        )
      ).text;
      assert.equal(echo.includes('Hello <b>xss</b>'), twin === 'vulnerable', `${twin} reflected`);
      assert.ok(
        !(await client.get(`/vulnerabilities/xss_r/?name=${encodeURIComponent('<b>xss</b>')}`)).text.includes('Hello'),
        'Submit-gated',
      );
    }
  });

  it('file inclusion and open redirect', async () => {
    const traversal = `/vulnerabilities/fi/?page=${encodeURIComponent('../../../../../../etc/passwd')}`;
    assert.match((await clients.vulnerable.get(traversal)).text, /root:x:0:0/);
    assert.match((await clients.vulnerable.get('/vulnerabilities/fi/?page=/etc/passwd')).text, /root:x:0:0/);
    assert.match((await clients.vulnerable.get('/vulnerabilities/fi/?page=file1.php')).text, /File 1/);
    const missing = await clients.vulnerable.get(`/vulnerabilities/fi/?page=${encodeURIComponent('<b>x</b>')}`);
    assert.match(missing.text, /include\(&lt;b&gt;x&lt;\/b&gt;\): Failed to open stream/);
    const safe = await clients.safe.get(traversal);
    assert.doesNotMatch(safe.text, /root:x/);
    assert.match(safe.text, /File not found/);
    const away = `/vulnerabilities/open_redirect/go.php?redirect=${encodeURIComponent('http://evil.example/')}`;
    const vulnerable = await clients.vulnerable.get(away);
    assert.equal(vulnerable.status, 302);
    assert.equal(vulnerable.headers.get('location'), 'http://evil.example/');
    assert.equal((await clients.safe.get(away)).status, 500);
    assert.equal(
      (await clients.safe.get('/vulnerabilities/open_redirect/go.php?redirect=info.php?id=1')).headers.get('location'),
      '/vulnerabilities/open_redirect/info.php?id=1',
    );
  });

  it('file upload: any file stored as named and a .php executed on the vulnerable twin; images only on the safe one', async () => {
    for (const twin of twins) {
      const client = clients[twin];
      const token = await client.token('/vulnerabilities/upload/');
      const form = new FormData();
      form.set('MAX_FILE_SIZE', '100000');
      form.set('uploaded', new Blob(['<?php echo 1337*3; ?> done']), `probe-${twin}.php`);
      form.set('Upload', 'Upload');
      form.set('user_token', token);
      const answer = await client.send('/vulnerabilities/upload/', { method: 'POST', body: form });
      const served = await new Client(apps[twin].origin).get(`/uploads/probe-${twin}.php`);
      if (twin === 'vulnerable') {
        assert.match(answer.text, /succesfully uploaded/);
        assert.equal(served.status, 200);
        assert.equal(served.text, '4011 done');
      } else {
        assert.match(answer.text, /only accept JPEG or PNG/);
        assert.equal(served.status, 404);
      }
    }
  });

  it('change password (CSRF): a GET without a token really changes the password on the vulnerable twin', async () => {
    for (const twin of twins) {
      const client = new Client(apps[twin].origin);
      assert.equal((await client.login('pablo', 'letmein')).status, 302);
      const form = (await client.get('/vulnerabilities/csrf/')).text;
      assert.equal(/name="user_token"/.test(form), twin === 'safe', `${twin}: a token in the form`);
      const changed = await client.get(
        '/vulnerabilities/csrf/?password_new=changed&password_conf=changed&Change=Change',
      );
      assert.match(changed.text, twin === 'vulnerable' ? /Password Changed/ : /Password incorrect/);
      const old = await new Client(apps[twin].origin).login('pablo', 'letmein');
      assert.equal(old.headers.get('location'), twin === 'vulnerable' ? '/login?msg=failed' : '/');
      if (twin === 'vulnerable') {
        assert.equal((await new Client(apps[twin].origin).login('pablo', 'changed')).headers.get('location'), '/');
        assert.equal(apps[twin].state.counters.passwordChanges, 1);
      }
    }
  });

  it('weak session ids count up on the vulnerable twin only', async () => {
    const values = async (client: Client): Promise<string[]> => {
      const out: string[] = [];
      for (let i = 0; i < 3; i++) {
        await client.get('/vulnerabilities/weak_id/');
        out.push(client.cookies.get('dvwaSession') ?? '');
      }
      return out;
    };
    const counted = (await values(clients.vulnerable)).map(Number);
    assert.deepEqual(counted, [counted[0]!, counted[0]! + 1, counted[0]! + 2]);
    for (const value of await values(clients.safe)) assert.match(value, /^[0-9a-f]{40}$/);
  });

  it('server-side evaluation of an expression (emulated eval)', async () => {
    const v = await clients.vulnerable.get(
      `/vulnerabilities/eval/?expr=${encodeURIComponent('7*7')}&Calculate=Calculate`,
    );
    assert.match(v.text, /Result: 49/);
    assert.match(
      (await clients.vulnerable.get(`/vulnerabilities/eval/?expr=${encodeURIComponent("'a'+'b'")}&Calculate=Calculate`))
        .text,
      /Result: ab/,
    );
    assert.match(
      (await clients.vulnerable.get('/vulnerabilities/eval/?expr=foo&Calculate=Calculate')).text,
      /ReferenceError: foo is not defined/,
    );
    assert.doesNotMatch(
      (await clients.vulnerable.get('/vulnerabilities/eval/?expr=7*7')).text,
      /Result/,
      'Calculate-gated',
    );
    const token = await clients.safe.token('/vulnerabilities/eval/');
    const s = await clients.safe.get(
      `/vulnerabilities/eval/?expr=${encodeURIComponent('7*7')}&Calculate=Calculate&user_token=${token}`,
    );
    assert.doesNotMatch(s.text, /Result: 49/);
    assert.match(s.text, /Please enter a number/);
  });

  it('a node-serialize object in the profile cookie on the vulnerable twin only', async () => {
    for (const twin of twins) {
      const client = clients[twin];
      client.cookies.delete('profile');
      await client.get('/vulnerabilities/profile/');
      const value = client.cookies.get('profile') ?? '';
      const decoded = Buffer.from(value.split('.')[0]!, twin === 'vulnerable' ? 'base64' : 'base64url').toString(
        'utf8',
      );
      assert.equal(decoded.includes('_$$ND_FUNC$$_'), twin === 'vulnerable', `${twin}: ${decoded}`);
      assert.match((await client.get('/vulnerabilities/profile/')).text, /Hello gordonb/);
    }
  });

  it('the users API gives an ordinary user every e-mail and password hash on the vulnerable twin only', async () => {
    const v = await clients.vulnerable.get('/api/users');
    assert.equal(v.status, 200);
    assert.match(v.text, /admin@dvwa\.example/);
    assert.match(v.text, /5f4dcc3b5aa765d61d8327deb882cf99/, "md5('password'), the admin's hash");
    const s = await clients.safe.get('/api/users');
    assert.equal(s.status, 200);
    assert.doesNotMatch(s.text, /@|[0-9a-f]{32}/);
  });

  it('DOM XSS: the script writes location.hash into innerHTML on the vulnerable twin, textContent on the safe one', async () => {
    for (const twin of twins) {
      const page = await clients[twin].get('/vulnerabilities/xss_d/');
      assert.match(page.text, /src="\/static\/xss_d.js"/);
      const script = (await clients[twin].get('/static/xss_d.js')).text;
      assert.match(script, /location\.hash/);
      assert.equal(script.includes('.innerHTML ='), twin === 'vulnerable');
      assert.equal(page.headers.has('content-security-policy'), twin === 'safe');
    }
  });

  it('default credentials: admin / password opens the vulnerable twin only', async () => {
    for (const twin of twins) {
      const answer = await new Client(apps[twin].origin).login(admin.username, admin.password);
      assert.equal(answer.headers.get('location'), twin === 'vulnerable' ? '/' : '/login?msg=failed');
    }
  });

  it('the security switch ends the session, and the impossible level makes the pages safe', async () => {
    const client = new Client(apps.vulnerable.origin);
    await client.login('1337', 'charley');
    const ended = await client.post('/security', { security: 'impossible', seclev_submit: 'Submit' });
    assert.equal(ended.headers.get('location'), '/login?msg=level');
    assert.equal((await client.get('/about')).status, 302, 'logged out');
    await client.login('1337', 'charley');
    assert.equal((await client.get("/vulnerabilities/sqli/?id=1'&Submit=Submit")).status, 200, 'no SQL error any more');
  });

  it('has a manifest whose every path is served to a logged-in user', async () => {
    const paths = new Set(realisticManifest.map((s) => s.path));
    assert.equal(new Set(realisticManifest.map((s) => s.id)).size, realisticManifest.length);
    for (const path of paths) {
      const answer = await clients.vulnerable.get(
        path === '/vulnerabilities/open_redirect/go.php' ? `${path}?redirect=info.php?id=1` : path,
      );
      assert.ok([200, 302].includes(answer.status), `${path}: ${answer.status}`);
      assert.notEqual(answer.headers.get('location'), '/login', `${path} is served`);
    }
  });
});
