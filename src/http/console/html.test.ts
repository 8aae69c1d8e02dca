import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, html, join, safeHref, trusted } from './html.ts';

describe('console html templates', () => {
  it('escapes every value for text and quoted attributes', () => {
    const evil = `"><script>alert('x')</script>&`;
    assert.equal(
      html`<a title="${evil}">${evil}</a>`.text,
      '<a title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</a>',
    );
    assert.equal(escapeHtml(`'`), '&#39;');
  });

  it('keeps nested templates and trusted markup as they are, joins arrays, drops null, undefined and false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    assert.equal(
      html`<p>${inner}${[html`<br>`, '<x>', 3]}${null}${undefined}${false}</p>`.text,
      '<p><b>&lt;i&gt;</b><br>&lt;x&gt;3</p>',
    );
    assert.equal(html`${trusted('<svg></svg>')}`.text, '<svg></svg>');
    assert.equal(join(['a<', html`<hr>`], ', ').text, 'a&lt;, <hr>');
  });

  it('lets only http and https URLs into links', () => {
    assert.equal(safeHref('https://example.com/a?b=1'), 'https://example.com/a?b=1');
    assert.equal(safeHref('http://example.com'), 'http://example.com/');
    for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,x', 'vbscript:x', '/relative', ''])
      assert.equal(safeHref(bad), '#', bad);
  });
});
