import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerHeaders, hasScript, onclickTargets } from './page-renderer.ts';

describe('onclickTargets', () => {
  it('reads location assignments of onclick handlers, however quoted', () => {
    const html = `<button onclick="location.href='/reports?year=2024'">Reports</button>
      <div onclick='window.location = "/admin/users"'>Users</div>
      <a onclick="location.assign(&quot;/help&quot;)">Help</a>
      <span onclick="doSomething()">no navigation</span>`;
    assert.deepEqual(onclickTargets(html), ['/reports?year=2024', '/admin/users', '/help']);
  });

  it('ignores location text outside onclick handlers', () => {
    assert.deepEqual(onclickTargets(`<p>location.href = '/nowhere'</p><script>location = '/x'</script>`), []);
  });
});

describe('hasScript', () => {
  it('tells pages with a script element or an inline handler from pages without', () => {
    assert.ok(hasScript('<p>x</p><SCRIPT src="/app.js"></SCRIPT>'));
    assert.ok(hasScript('<button onclick="go()">Go</button>'));
    assert.ok(!hasScript('<p>Plain page about scripts and onions</p><a href="/x">x</a>'));
  });
});

describe('answerHeaders', () => {
  it('hands the browser one value per name, cookies a line apart, and no header of the encoded body', () => {
    const exchange = {
      request: { method: 'GET', url: new URL('http://127.0.0.1/'), headers: [] },
      status: 200,
      headers: [
        { name: 'content-type', value: 'text/html' },
        { name: 'content-encoding', value: 'gzip' },
        { name: 'content-length', value: '120' },
        { name: 'set-cookie', value: 'a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT' },
        { name: 'set-cookie', value: 'XSRF-TOKEN=abc; Path=/' },
        { name: 'vary', value: 'accept' },
        { name: 'vary', value: 'cookie' },
      ],
      body: '<p>x</p>',
      isTruncated: false,
    };
    assert.deepEqual(answerHeaders(exchange), {
      'content-type': 'text/html',
      'set-cookie': 'a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT\nXSRF-TOKEN=abc; Path=/',
      vary: 'accept, cookie',
    });
  });
});
