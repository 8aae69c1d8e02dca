import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyScanProfileSettings,
  defaultScanProfileSettings,
  invalidLoginSelector,
  invalidProfileSettings,
  isSettingsUrl,
  settingsFromStore,
  type ScanProfileSettings,
} from './scan-profile-settings.ts';

describe('profile settings extensions', () => {
  it('reads the settings of a profile stored before the extensions as their defaults', () => {
    const old = { blacklisted_paths: ['/admin'], crawl_subdomains: true } as Partial<ScanProfileSettings>;
    const settings = settingsFromStore(old);
    assert.deepEqual(settings.start_urls, []);
    assert.equal(settings.render_javascript, false);
    assert.equal(settings.login, null);
    assert.deepEqual(settings.blacklisted_paths, ['/admin']);
  });

  it('accepts root-relative paths with a query and absolute http(s) URLs as start URLs', () => {
    for (const url of ['/', '/app/menu?tab=1&x=%20', 'http://127.0.0.1:8080/a?b', 'HTTPS://shop.example.com'])
      assert.ok(isSettingsUrl(url), url);
    for (const url of ['app', '//evil.example/', '/a#frag', '/a b', 'ftp://x/', 'http://', `/${'a'.repeat(2048)}`, 7])
      assert.ok(!isSettingsUrl(url), String(url));
  });

  it('applies the extensions: start URLs once, empty indicators as null, null removes the login', () => {
    const login = {
      url: '/login',
      fields: [{ name: 'user', value: 'admin' }],
      logged_in_text: '',
      logged_out_text: 'Sign in',
    };
    const next = applyScanProfileSettings(defaultScanProfileSettings, {
      start_urls: ['/a', '/a', '/b'],
      render_javascript: true,
      login,
    });
    assert.deepEqual(next.start_urls, ['/a', '/b']);
    assert.equal(next.render_javascript, true);
    assert.deepEqual(next.login, {
      url: '/login',
      fields: [{ name: 'user', value: 'admin' }],
      logged_in_text: null,
      logged_in_selector: null,
      logged_out_text: 'Sign in',
      logged_out_selector: null,
    });
    assert.equal(applyScanProfileSettings(next, {}).login?.url, '/login');
    assert.equal(applyScanProfileSettings(next, { login: null }).login, null);
  });

  it('names the bad part of a login, and a selector the scanner cannot match', () => {
    const error = (login: unknown) => invalidProfileSettings({ login }, new Set(['login'])).parameters;
    assert.deepEqual(
      error({
        url: '/l',
        fields: [
          { name: 'u', value: 'x' },
          { name: '', value: 'y' },
        ],
      }),
      ['login.fields[1].name'],
    );
    assert.deepEqual(error({ url: 'l', fields: [] }), ['login.url']);
    const compiles = (selector: string) => !selector.includes(':');
    const input = { login: { url: '/l', fields: [{ name: 'u', value: 'x' }], logged_out_selector: 'a:hover' } };
    assert.deepEqual(invalidLoginSelector(input, compiles)?.parameters, ['login.logged_out_selector']);
    assert.equal(invalidLoginSelector({ login: null }, compiles), undefined);
  });
});
