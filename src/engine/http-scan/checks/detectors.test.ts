import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { missingCookieFlags } from './cookie-flags.check.ts';
import { findDirectoryListing } from './directory-listing.check.ts';
import { findGitHead } from './exposed-git.check.ts';

describe('detectors', () => {
  it('recognises Apache/nginx, python and IIS auto-indexes, not ordinary pages', () => {
    assert.equal(
      findDirectoryListing(
        '<html><head><title>Index of /pub</title></head><body><a href="a.txt">a.txt</a></body></html>',
      )?.value,
      'Index of /pub',
    );
    assert.equal(
      findDirectoryListing('<title>Directory listing for /x/</title><ul><li><a href="f">f</a></li></ul>')?.value,
      'Directory listing for /x/',
    );
    assert.equal(
      findDirectoryListing('<title>host - /docs/</title><a href="/">[To Parent Directory]</a>')?.value,
      '[To Parent Directory]',
    );
    assert.equal(findDirectoryListing('<title>Index of products</title><a href="/p">p</a>'), undefined);
    assert.equal(findDirectoryListing('<title>Index of /empty</title>'), undefined);
  });

  it('accepts only real git HEAD bodies', () => {
    assert.deepEqual(findGitHead('ref: refs/heads/main\n'), { value: 'ref: refs/heads/main', offset: 0 });
    assert.equal(findGitHead(`${'a1'.repeat(20)}\n`)?.value, 'a1'.repeat(20));
    assert.equal(findGitHead('<html><body>ref: refs/heads/main</body></html>'), undefined);
    assert.equal(findGitHead('Not found'), undefined);
  });

  it('lists the missing cookie flags, Secure only on HTTPS', () => {
    assert.deepEqual(missingCookieFlags('s=1; Path=/', true), ['secure', 'httponly', 'samesite']);
    assert.deepEqual(missingCookieFlags('s=1; Path=/', false), ['httponly', 'samesite']);
    assert.deepEqual(missingCookieFlags('s=1; Secure; HttpOnly; SameSite=Lax', true), []);
    // The cookie's own name=value pair never counts as an attribute.
    assert.deepEqual(missingCookieFlags('httponly=1; Path=/', false), ['httponly', 'samesite']);
  });
});
