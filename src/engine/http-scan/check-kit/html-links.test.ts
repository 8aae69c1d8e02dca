import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractPageLinks, formSubmissionUrl } from './html-links.ts';

const page = `<!doctype html><html><head><title> Index of /files </title>
<link rel="stylesheet" href="/style.css"><script src="/app.js"></script></head>
<body><a href="/a?x=1#top">A</a><A HREF="b.html">B</A><a>none</a><iframe src="/frame"></iframe>
<form action="/search" method="GET"><input name="q"><input type="email" name="contact"><input type="hidden" name="lang" value="en">
<select name="sort"><option value="date">Date</option><option value="name">Name</option></select><textarea name="note"></textarea>
<input type="submit" name="go" value="Go"></form>
<form action="/login" method="post"><input name="user"></form></body></html>`;

describe('extractPageLinks', () => {
  it('collects anchors, scripts, stylesheets, frames and the title', () => {
    const links = extractPageLinks(page);
    assert.deepEqual(links.links, ['/style.css', '/app.js', '/a?x=1#top', 'b.html', '/frame']);
    assert.equal(links.title, 'Index of /files');
  });

  it('fills GET forms with sensible values and skips other methods', () => {
    const { forms } = extractPageLinks(page);
    assert.equal(forms.length, 2);
    const base = new URL('http://127.0.0.1/dir/page');
    const url = formSubmissionUrl(forms[0]!, base);
    assert.equal(
      url?.href,
      'http://127.0.0.1/search?q=perimeter&contact=scanner%40example.com&lang=en&sort=date&note=perimeter',
    );
    assert.equal(formSubmissionUrl(forms[1]!, base), undefined);
  });
});
