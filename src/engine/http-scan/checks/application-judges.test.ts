import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { csrfTokenField, isCrossSiteOpen, looksLikeTokenValue, stateChangingMethod } from './csrf.check.ts';
import { pairsToTry, defaultCredentials } from './default-credentials.check.ts';
import { judgeServedFile, placesInAnswer, uploadProbes } from './file-upload.check.ts';
import { parsePageMarkup } from './page-markup.ts';
import { judgeJsonAnswer } from './sensitive-data.check.ts';
import { estimatedEntropyBits, judgeSessionIds } from './session-id.check.ts';

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

describe('session identifier judge', () => {
  const now = Date.now();
  const from = now - 2000;
  const to = now + 2000;

  it('recognises counters, the time, hashes of either, and low entropy', () => {
    assert.equal(judgeSessionIds(['1001', '1002', '1004', '1005', '1006', '1007'], from, to)?.kind, 'sequential');
    const seconds = Math.floor(now / 1000);
    // DVWA medium: time() — values repeat within a second, and are still the time.
    assert.equal(
      judgeSessionIds([seconds - 1, seconds - 1, seconds, seconds, seconds + 1, seconds + 1].map(String), from, to)
        ?.kind,
      'timestamp',
    );
    assert.equal(judgeSessionIds([now, now + 310, now + 620, now + 930].map(String), from, to)?.kind, 'timestamp');
    // DVWA high: md5 of a counter.
    assert.equal(judgeSessionIds(['7', '8', '9', '10', '11'].map(md5), from, to)?.kind, 'hashed-counter');
    assert.match(judgeSessionIds(['7', '8', '9', '10', '11'].map(sha1), from, to)?.detail ?? '', /SHA1 .* 7, 8, 9/);
    assert.equal(
      judgeSessionIds(
        [seconds - 1, seconds, seconds + 1, seconds + 2].map((t) => md5(String(t))),
        from,
        to,
      )?.kind,
      'hashed-timestamp',
    );
    assert.equal(judgeSessionIds(['ab12', 'ab17', 'ab93', 'ab40', 'ab55'], from, to)?.kind, 'low-entropy');
    assert.equal(
      judgeSessionIds(['sess-4a1f', 'sess-9b2c', 'sess-07de', 'sess-c3a8', 'sess-5e6b'], from, to)?.kind,
      'low-entropy',
    );
  });

  it('leaves random 128-bit values, constant cookies and short series alone', () => {
    for (let run = 0; run < 20; run++) {
      const hex = Array.from({ length: 6 }, () => randomBytes(16).toString('hex'));
      assert.equal(judgeSessionIds(hex, from, to), undefined, hex.join(' '));
      const b64 = Array.from({ length: 6 }, () => randomBytes(16).toString('base64url'));
      assert.equal(judgeSessionIds(b64, from, to), undefined, b64.join(' '));
    }
    // PHP's default identifiers: 26 characters of [a-v0-9].
    const php = Array.from({ length: 6 }, () =>
      Array.from(randomBytes(26), (b) => '0123456789abcdefghijklmnopqrstuv'[b % 32]).join(''),
    );
    assert.equal(judgeSessionIds(php, from, to), undefined);
    assert.equal(judgeSessionIds(['en', 'en', 'en', 'en', 'en'], from, to), undefined, 'a preference');
    assert.equal(judgeSessionIds(['1', '2', '3'], from, to), undefined, 'too few');
    assert.equal(judgeSessionIds(['5', '3', '9', '1', '7'], from, to)?.kind, 'low-entropy', 'one digit is no session');
    assert.equal(estimatedEntropyBits(['aaaa', 'aaaa']), 0);
  });
});

describe('CSRF judges', () => {
  const form = (html: string) => parsePageMarkup(html).forms[0]!;

  it('recognises tokens by name and by a secret-looking hidden value', () => {
    for (const name of [
      'csrf_token',
      '_csrf',
      'authenticity_token',
      '_wpnonce',
      'user_token',
      '__RequestVerificationToken',
    ])
      assert.equal(
        csrfTokenField(form(`<form method="post"><input type="hidden" name="${name}" value="x"></form>`)),
        name,
      );
    const random = randomBytes(16).toString('hex');
    assert.equal(
      csrfTokenField(form(`<form method="post"><input type="hidden" name="k" value="${random}"></form>`)),
      'k',
    );
    assert.equal(looksLikeTokenValue('order.created'), false);
    assert.equal(looksLikeTokenValue('general'), false);
    assert.equal(
      csrfTokenField(
        form('<form method="post"><input type="hidden" name="topic" value="general"><input name="csrf"></form>'),
      ),
      undefined,
      'a visible field named csrf is no hidden token',
    );
  });

  it('tells state-changing forms from logins and searches', () => {
    assert.equal(
      stateChangingMethod(form('<form method="post" action="/profile"><input name="email"></form>')),
      'POST',
    );
    assert.equal(
      stateChangingMethod(
        form(
          '<form action="#" method="GET"><input type="password" name="password_new"><input type="password" name="password_conf"><input type="submit" value="Change" name="Change"></form>',
        ),
      ),
      'GET',
      "DVWA's CSRF page",
    );
    assert.equal(
      stateChangingMethod(form('<form method="get" action="/user/delete"><input name="id" value="3"></form>')),
      'GET',
    );
    assert.equal(
      stateChangingMethod(form('<form method="get" action="/catalogue"><input name="page"></form>')),
      undefined,
    );
    assert.equal(
      stateChangingMethod(form('<form method="post"><input name="user"><input type="password" name="pw"></form>')),
      undefined,
      'a login',
    );
    assert.equal(
      stateChangingMethod(form('<form method="post" action="/login"><input name="user"></form>')),
      undefined,
      'the first step of a login (its action names it)',
    );
    assert.equal(stateChangingMethod(form('<form method="post" action="/search"><input name="q"></form>')), undefined);
    assert.equal(stateChangingMethod(form('<form method="get"><input name="q"></form>')), undefined);
  });

  it('weighs the session cookie: Strict protects, Lax protects POST only, paths must cover the action', () => {
    const cookie = (sameSite: string, path = '/') => [{ name: 'PHPSESSID', path, sameSite }];
    assert.equal(isCrossSiteOpen(cookie(''), '/profile', 'POST'), true);
    assert.equal(isCrossSiteOpen(cookie('none'), '/profile', 'POST'), true);
    assert.equal(isCrossSiteOpen(cookie('lax'), '/profile', 'POST'), false);
    assert.equal(isCrossSiteOpen(cookie('lax'), '/password', 'GET'), true);
    assert.equal(isCrossSiteOpen(cookie('strict'), '/password', 'GET'), false);
    assert.equal(isCrossSiteOpen(cookie('', '/app'), '/app/profile', 'POST'), true);
    assert.equal(isCrossSiteOpen(cookie('', '/app'), '/application', 'POST'), false);
    assert.equal(isCrossSiteOpen([], '/profile', 'POST'), false, 'no session: nothing to forge');
  });
});

describe('sensitive data judge', () => {
  it('finds password hashes in crypt formats anywhere and hex digests in password fields', () => {
    const bcrypt = `$2y$10$${'a'.repeat(22)}${'B'.repeat(31)}`;
    assert.deepEqual(
      judgeJsonAnswer({ id: 1, name: 'x', pw: bcrypt }).map((f) => f.kind),
      ['password-hash'],
    );
    assert.equal(
      judgeJsonAnswer({ secret: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2g' })[0]?.kind,
      'password-hash',
    );
    assert.equal(judgeJsonAnswer({ x: `$6$rounds=5000$salt$${'c'.repeat(86)}` })[0]?.kind, 'password-hash');
    assert.equal(judgeJsonAnswer({ x: `$1$salt$${'d'.repeat(22)}` })[0]?.kind, 'password-hash');
    assert.equal(judgeJsonAnswer({ user: 'gordonb', password: md5('abc123') })[0]?.kind, 'password-hash');
    assert.equal(judgeJsonAnswer({ id: 4, username: 'x', password_hash: sha1('x') })[0]?.kind, 'password-hash');
    assert.deepEqual(judgeJsonAnswer({ file: 'a.zip', hash: sha1('x') }), [], 'a checksum is no password');
    assert.deepEqual(judgeJsonAnswer({ commit: sha1('x'), sha256: createHash('sha256').digest('hex') }), []);
    assert.deepEqual(judgeJsonAnswer({ price: '$2.50', text: '$1$ is cheap' }), []);
  });

  it("finds several users' e-mail addresses and secrets, not one's own", () => {
    const users = [
      { id: 1, username: 'a', email: 'a@x.example', api_key: 'k1f8a9b7c6d5e4f3a2b1' },
      { id: 2, username: 'b', email: 'b@x.example', api_key: 'k2a8b9c7d6e5f4a3b2c1' },
    ];
    assert.deepEqual(
      judgeJsonAnswer({ users }).map((f) => f.kind),
      ['emails', 'secrets'],
    );
    assert.deepEqual(
      judgeJsonAnswer({ id: 1, username: 'a', email: 'a@x.example', token: 'k1f8a9b7c6d5e4f3a2b1' }),
      [],
    );
    assert.deepEqual(
      judgeJsonAnswer([
        { id: 1, username: 'a', email: 'same@x.example' },
        { id: 2, username: 'b', email: 'SAME@x.example' },
      ]),
      [],
    );
    assert.deepEqual(judgeJsonAnswer({ support: 'help@x.example', sales: 'sales@x.example' }), [], 'no user records');
  });
});

describe('file upload judges', () => {
  const exchange = (body: string, headers: Array<[string, string]>, status = 200): HttpExchange => ({
    request: { method: 'GET', url: new URL('http://127.0.0.1/uploads/x'), headers: [] },
    status,
    headers: headers.map(([name, value]) => ({ name, value })),
    body,
    isTruncated: false,
  });

  it('makes unique harmless probes: a PHP echo of a product, then an HTML page', () => {
    const [php, phpAsImage, page] = uploadProbes();
    assert.match(php!.file.filename, /^perimeter-[0-9a-f]{12}\.php$/);
    assert.match(php!.file.content, /^perimeter-[0-9a-f]{12} <\?php echo \d{4}\*\d{4}; \?>\n$/);
    assert.equal(phpAsImage!.file.contentType, 'image/png');
    assert.match(page!.file.filename, /\.html$/);
    assert.notEqual(php!.marker, phpAsImage!.marker);
  });

  it('tells executed, served and inert answers apart', () => {
    const [php, , page] = uploadProbes();
    const raw = php!.file.content;
    assert.equal(judgeServedFile(exchange(`${php!.product}\n`, [['content-type', 'text/html']]), php!), 'executed');
    assert.equal(judgeServedFile(exchange(raw, [['content-type', 'text/html']]), php!), 'served');
    assert.equal(judgeServedFile(exchange(raw, []), php!), 'served');
    assert.equal(
      judgeServedFile(
        exchange(raw, [
          ['content-type', 'text/plain'],
          ['x-content-type-options', 'nosniff'],
        ]),
        php!,
      ),
      undefined,
    );
    assert.equal(
      judgeServedFile(
        exchange(page!.file.content, [
          ['content-type', 'text/html'],
          ['content-disposition', 'attachment'],
        ]),
        page!,
      ),
      undefined,
    );
    assert.equal(judgeServedFile(exchange('<p>Not found</p>', [['content-type', 'text/html']], 200), page!), undefined);
    assert.equal(judgeServedFile(exchange(raw, [['content-type', 'text/html']], 404), php!), undefined);
  });

  it('reads where the answer says the file went', () => {
    const base = new URL('http://127.0.0.1/vulnerabilities/upload/');
    assert.deepEqual(
      placesInAnswer('<pre>../../hackable/uploads/p-1.php succesfully uploaded!</pre>', 'p-1.php', base).map(
        (u) => u.pathname,
      ),
      ['/hackable/uploads/p-1.php'],
    );
    assert.deepEqual(
      placesInAnswer('<a href="/media/p-1.php">p-1.php</a>', 'p-1.php', base).map((u) => u.pathname),
      ['/media/p-1.php', '/vulnerabilities/upload/p-1.php'],
    );
  });
});

describe('default credentials: the profile login', () => {
  it("tries the profile's user only with its own password, and keeps that pair when it is a default", () => {
    const profile = (user: string, password: string) => [
      { name: 'username', value: user },
      { name: 'password', value: password },
      { name: 'Login', value: 'Login' },
    ];
    assert.equal(pairsToTry([]).length, defaultCredentials.length);
    // DVWA's profile logs in as admin/password: that default pair is tried (and reported), admin/admin is not.
    const dvwa = pairsToTry(profile('admin', 'password')).map(([u, p]) => `${u}/${p}`);
    assert.deepEqual(dvwa, ['admin/password', 'root/root', 'tomcat/tomcat']);
    assert.deepEqual(
      pairsToTry(profile('admin', 'S3cret!')).map(([u]) => u),
      ['root', 'tomcat'],
      "no failure on the profile's own account",
    );
    assert.equal(pairsToTry(profile('gordonb', 'abc123')).length, defaultCredentials.length);
  });
});
