import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scanCoverage } from './scan-coverage.ts';

describe('scanCoverage', () => {
  const covers = scanCoverage([
    'http://h:80/',
    'http://h:80/search',
    'http://h:80/api/items/42',
    'https://h:443/a/b/c',
  ]);

  it('covers a location whose origin and path were answered, whatever its query or point', () => {
    assert.equal(covers('http://h:80/search?q='), true);
    assert.equal(covers('http://h:80/?cookie=sid&flag=secure'), true);
    assert.equal(covers('http://h:80/search'), true);
  });

  it('does not cover another path, another port or another scheme', () => {
    assert.equal(covers('http://h:80/.git/HEAD'), false);
    assert.equal(covers('http://h:8080/search?q='), false);
    assert.equal(covers('https://h:443/search?q='), false);
  });

  it('matches path patterns against the answered paths of the origin', () => {
    assert.equal(covers('http://h:80/api/items/{id}'), true);
    assert.equal(covers('https://h:443/a/b/{}'), true);
    assert.equal(covers('http://h:80/api/users/{id}'), false);
    assert.equal(covers('https://h:443/a/{}'), false, 'one segment, not two');
  });

  it('covers a location of no origin/path form (patched as before locations were kept)', () => {
    assert.equal(covers('not a url'), true);
  });

  it('covers nothing with no answered request', () => {
    assert.equal(scanCoverage([])('http://h:80/'), false);
  });
});
