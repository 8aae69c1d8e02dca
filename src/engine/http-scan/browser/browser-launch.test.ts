import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { confinedBrowserArgs, defaultBrowserPath, findBrowser } from './browser-launch.ts';

describe('findBrowser', () => {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-browser-'));
  const fake = join(dir, 'chromium-browser');
  writeFileSync(fake, '#!/bin/sh\n');
  chmodSync(fake, 0o755);
  const notExecutable = join(dir, 'google-chrome');
  writeFileSync(notExecutable, '');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the engine option or PERIMETER_SCAN_BROWSER as is: a missing file is no browser, never a fall-back', () => {
    assert.deepEqual(findBrowser(fake, {}), { path: fake, tried: fake });
    assert.deepEqual(findBrowser(undefined, { PERIMETER_SCAN_BROWSER: fake }), { path: fake, tried: fake });
    const missing = join(dir, 'missing');
    assert.deepEqual(findBrowser(missing, { PERIMETER_SCAN_BROWSER: fake }), { path: undefined, tried: missing });
    assert.equal(findBrowser(undefined, { PERIMETER_SCAN_BROWSER: notExecutable }).path, undefined);
  });

  it('else the default path, else the first browser name found on PATH', () => {
    const found = findBrowser(undefined, { PATH: dir });
    // The default path wins where the machine has Debian's chromium; PATH is looked at otherwise.
    assert.ok(found.path === defaultBrowserPath || found.path === fake, String(found.path));
    const none = findBrowser(undefined, { PATH: join(dir, 'nowhere') });
    assert.ok(none.path === defaultBrowserPath || (none.path === undefined && /on PATH/.test(none.tried)));
  });

  it('confines the browser: a closed loopback proxy that loopback does not bypass, and no name resolution', () => {
    assert.ok(confinedBrowserArgs.includes('--proxy-server=127.0.0.1:9'));
    assert.ok(confinedBrowserArgs.includes('--proxy-bypass-list=<-loopback>'));
    assert.ok(confinedBrowserArgs.some((a) => a.startsWith('--host-resolver-rules=MAP * ~NOTFOUND')));
  });
});
