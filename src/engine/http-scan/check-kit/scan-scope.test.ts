import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultScanProfileSettings, type ScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import { dedupKey, normaliseUrl, ScanScope } from './scan-scope.ts';

const target = { scheme: 'https' as const, host: 'www.example.com', port: 443, scopeName: 'example.com' };
const scope = (overrides: Partial<ScanProfileSettings>): ScanScope =>
  new ScanScope(target, { ...defaultScanProfileSettings, ...overrides });

describe('ScanScope', () => {
  it('keeps to the target host unless crawl_subdomains, and never leaves the scope name', () => {
    assert.equal(scope({}).isHostAllowed('www.example.com'), true);
    assert.equal(scope({}).isHostAllowed('api.example.com'), false);
    const subs = scope({ crawl_subdomains: true, blacklisted_subdomains: ['admin'] });
    assert.equal(subs.isHostAllowed('api.example.com'), true);
    assert.equal(subs.isHostAllowed('admin.example.com'), false);
    assert.equal(subs.isHostAllowed('x.admin.example.com'), false);
    assert.equal(subs.isHostAllowed('evilexample.com'), false);
    assert.equal(subs.isHostAllowed('example.org'), false);
  });

  it('matches blacklisted paths by prefix and whitelisted paths by segment, start page always in', () => {
    const s = scope({ blacklisted_paths: ['/admin'], whitelisted_paths: ['/app'] });
    assert.equal(s.isPathAllowed('/'), true);
    assert.equal(s.isPathAllowed('/app'), true);
    assert.equal(s.isPathAllowed('/app/page'), true);
    assert.equal(s.isPathAllowed('/apple'), false);
    assert.equal(s.isPathAllowed('/other'), false);
    assert.equal(scope({ blacklisted_paths: ['/admin'] }).isPathAllowed('/admin/x'), false);
    assert.equal(scope({ blacklisted_paths: ['/admin'] }).isPathAllowed('/about'), true);
  });

  it('admits the target port, defaults and whitelisted or common ports, minus blacklisted ones', () => {
    assert.equal(scope({}).isPortAllowed(8080), false);
    assert.equal(scope({ whitelisted_ports: [8080] }).isPortAllowed(8080), true);
    assert.equal(scope({ scan_common_ports: true }).isPortAllowed(3000), true);
    assert.equal(scope({ scan_common_ports: true, blacklisted_ports: [3000] }).isPortAllowed(3000), false);
    assert.deepEqual(
      scope({ scan_common_ports: true, blacklisted_ports: [80] }).extraPorts(),
      [3000, 8000, 8080, 8443],
    );
    assert.equal(scope({}).isUrlAllowed(new URL('ftp://www.example.com/')), false);
  });
});

describe('URL identity', () => {
  it('drops the fragment, sorts parameters, and counts the same parameter names once', () => {
    assert.equal(normaliseUrl(new URL('http://h/p?b=2&a=1#x')).href, 'http://h/p?a=1&b=2');
    assert.equal(dedupKey(new URL('http://h/p?a=1&b=2')), dedupKey(new URL('http://h/p?b=9&a=7')));
    assert.notEqual(dedupKey(new URL('http://h/p?a=1')), dedupKey(new URL('http://h/p?c=1')));
    assert.equal(dedupKey(new URL('http://h/dir/')), dedupKey(new URL('http://h/dir')));
    assert.notEqual(dedupKey(new URL('http://h/')), dedupKey(new URL('http://h/dir')));
  });
});
