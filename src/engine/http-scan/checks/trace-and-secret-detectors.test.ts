import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSecrets } from './secrets-in-javascript.check.ts';
import { findStackTrace } from './stack-trace.check.ts';

// Credentials are assembled at run time: the repository holds no string that looks like a live key.
const join = (...parts: string[]): string => parts.join('');
const AWS = join('AKIA', 'Z7QK2M4X9B3N6P1R');
const GOOGLE = join('AIza', 'SyB1c2D3e4F5g6H7i8J9k0L1m2N3o4P5q6R');
const STRIPE = join('sk_', 'live_', '4eC39HqLyjWDarjtT1zdp7dc');
const GITHUB = join('ghp_', 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5');
const GITHUB_PAT = join(
  'github_',
  'pat_',
  '11ABCDEFG0123456789abc',
  '_',
  'Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9Zy8Xw7Vu6Ts5Rq4Po3Nm2L',
);
const SLACK = join('xoxb-', '123456789012', '-', '1234567890123', '-', 'AbCdEfGhIjKlMnOpQrStUvWx');
const KEY_BODY = 'MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\\n'.repeat(3);

describe('stack-trace detector', () => {
  const shapeOf = (body: string): string | undefined => findStackTrace(body)?.shape;

  it('recognises traces of each platform with their frames', () => {
    assert.equal(
      shapeOf('Traceback (most recent call last):\n  File "/app/views.py", line 12, in index\n    x = y\nNameError: y'),
      'Python traceback',
    );
    assert.equal(
      shapeOf('{"trace": "Traceback (most recent call last):\\n  File \\"/app/views.py\\", line 12, in index"}'),
      'Python traceback',
      'inside a JSON string',
    );
    assert.equal(
      shapeOf('java.lang.IllegalStateException: boom\n\tat com.x.Y.run(Y.java:12)\n\tat com.x.Z.main(Z.java:3)'),
      'Java stack trace',
    );
    assert.equal(
      shapeOf('java.lang.NullPointerException\n    at com.x.Y.run(Y.java:12)'),
      'Java stack trace',
      'one frame after the exception line',
    );
    assert.equal(
      shapeOf(
        '<pre>org.x.Failure\n\tcom.x.web.Servlet.doGet(Servlet.java:57)\n\tjavax.servlet.http.HttpServlet.service(HttpServlet.java:655)</pre>',
      ),
      'Java stack trace',
      'Tomcat frames without "at"',
    );
    assert.equal(
      shapeOf('TypeError: x is not a function\n    at Object.<anonymous> (/app/x.js:1:2)'),
      'Node.js stack trace',
    );
    assert.equal(
      shapeOf(
        'Error: nope<br>    at Object.&lt;anonymous&gt; (/app/x.js:1:2)<br>    at Module._compile (node:internal/modules/cjs/loader:1105:14)',
      ),
      'Node.js stack trace',
    );
    assert.equal(
      shapeOf(
        '<b>Warning</b>:  include(conf.php): Failed to open stream in <b>/var/www/html/index.php</b> on line <b>3</b><br />',
      ),
      'PHP error with file path',
    );
    assert.equal(
      shapeOf(
        'PHP Fatal error:  Uncaught Error: Call to undefined function f() in /srv/app/a.php:4\nStack trace:\n#0 {main}\n  thrown in /srv/app/a.php on line 4',
      ),
      'PHP error with file path',
    );
    assert.equal(
      shapeOf('System.Exception: boom\n   at Shop.Cart.Add(Int32 id) in C:\\src\\Shop\\Cart.cs:line 42'),
      '.NET stack trace',
    );
    assert.equal(
      shapeOf(
        'panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:8 +0x1d',
      ),
      'Go panic',
    );
  });

  it('recognises debug pages, once per origin', () => {
    const django = findStackTrace(
      '<p>You&#x27;re seeing this error because you have <code>DEBUG = True</code> in your Django settings file.</p>',
    );
    assert.deepEqual([django?.shape, django?.signature], ['Django debug page', 'django']);
    assert.equal(
      shapeOf(
        '<div class="debugger"><h1>KeyError</h1><p>The debugger caught an exception in your WSGI application.</p>',
      ),
      'Werkzeug debugger',
    );
    assert.equal(shapeOf('<title>Action Controller: Exception caught</title>'), 'Rails debug page');
    assert.equal(
      shapeOf('<td>/var/www/vendor/laravel/framework/src/Illuminate/Routing/Router.php</td>'),
      'Laravel debug page',
    );
    assert.equal(
      shapeOf(
        '{"file":"\\/var\\/www\\/vendor\\/laravel\\/framework\\/src\\/Illuminate\\/Foundation\\/Application.php"}',
      ),
      'Laravel debug page',
      'JSON-escaped slashes',
    );
    assert.equal(
      shapeOf("<h1>Server Error in '/' Application.</h1><b>Exception Details: </b>System.NullReferenceException"),
      'ASP.NET error page with details',
    );
  });

  it('groups one failing handler behind many URLs by its frames', () => {
    const trace = (n: number): string =>
      `Traceback (most recent call last):\n  File "/app/views.py", line 12, in product\nKeyError: ${n}`;
    assert.equal(findStackTrace(trace(1))?.signature, findStackTrace(trace(2))?.signature);
    assert.notEqual(
      findStackTrace(trace(1))?.signature,
      findStackTrace(trace(1).replace('line 12', 'line 40'))?.signature,
    );
  });

  it('does not take prose, generic error pages or code for a trace', () => {
    for (const body of [
      '<p>Quote the words "Traceback (most recent call last)" from your log when you write to us.</p>',
      '<p>An exception occurred at com.example.Foo (see Foo.java)</p>',
      '<p>Meet us at Object Park (/maps/park.js) at 12:30</p>',
      'Error: at least one item is required',
      "<h1>Server Error in '/' Application.</h1><h2>Runtime Error</h2><p>The current custom error settings prevent the details from being viewed remotely.</p>",
      '<p>Warning: your cart is empty.</p>',
      '<p>Set DEBUG = True only on your laptop.</p>',
      '<p>We use the Laravel framework.</p>',
      'at com.x.Y.run(Y.java:12) is where it failed',
      '{"error": "Internal error", "hint": "see /srv/api/logs"}',
    ]) {
      assert.equal(findStackTrace(body), undefined, body);
    }
  });
});

describe('secrets detector', () => {
  it('finds credentials of each known format, in order, with offsets and masks', () => {
    const code = `const cfg = { aws: "${AWS}", maps: '${GOOGLE}', stripe: "${STRIPE}", gh: "${GITHUB}", pat: "${GITHUB_PAT}", slack: "${SLACK}" };`;
    const found = findSecrets(code);
    assert.deepEqual(
      found.map((s) => s.label),
      ['AWS access key ID', 'Google API key', 'Stripe live secret key', 'GitHub token', 'GitHub token', 'Slack token'],
    );
    for (const secret of found) {
      assert.equal(code.slice(secret.offset, secret.offset + secret.value.length), secret.value);
      assert.equal(secret.masked.length, secret.value.length);
      assert.notEqual(secret.masked, secret.value);
    }
    assert.equal(found[0]!.masked, `AKIA${'*'.repeat(12)}${AWS.slice(-4)}`);
    assert.equal(found[2]!.masked.slice(0, 8), 'sk_live_');
    assert.deepEqual(
      found.map((s) => s.isBrowserKey),
      [false, true, false, false, false, false],
    );
  });

  it('finds a private key with a body (real or escaped line breaks) and masks the body only', () => {
    const header = join('-----BEGIN RSA ', 'PRIVATE KEY-----');
    const [key] = findSecrets(`const k = "${header}\\n${KEY_BODY}-----END RSA PRIVATE KEY-----";`);
    assert.equal(key?.label, 'private key');
    assert.ok(key.masked.startsWith(`${header}\\n****`), key.masked);
    assert.equal(
      findSecrets(
        `${join('-----BEGIN ', 'OPENSSH PRIVATE KEY-----')}\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn\nNhAAAAAwEAAQAAAYEA\n`,
      )[0]?.label,
      'private key',
    );
  });

  it('ignores near misses: public keys, placeholders, documentation examples, short or embedded strings', () => {
    for (const code of [
      'const id = "AKIAIOSFODNN7EXAMPLE";',
      `const id = "${AWS.slice(0, 19)}";`,
      `const id = "X${AWS}";`,
      `const k = "${join('pk_', 'live_', '4eC39HqLyjWDarjtT1zdp7dc')}";`,
      `const k = "${join('sk_', 'test_', '4eC39HqLyjWDarjtT1zdp7dc')}";`,
      `const t = "${join('ghp_', 'x'.repeat(36))}";`,
      'const t = "xoxb-your-token-here";',
      `const g = "${GOOGLE.slice(0, 30)}";`,
      `const pem = "${join('-----BEGIN RSA ', 'PRIVATE KEY-----')}";`,
      `const pem = "-----BEGIN PUBLIC KEY-----\\n${KEY_BODY}-----END PUBLIC KEY-----";`,
      `const cert = "-----BEGIN CERTIFICATE-----\\n${KEY_BODY}";`,
    ]) {
      assert.deepEqual(findSecrets(code), [], code);
    }
  });
});
