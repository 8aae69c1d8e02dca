import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backupEvidence, isSimilarBody } from './backup-files.check.ts';
import { findEnvFile } from './exposed-env-file.check.ts';
import { findSvnMetadata } from './exposed-svn.check.ts';
import { findPhpinfo } from './phpinfo.check.ts';
import { findServerStatus } from './server-status.check.ts';
import { findSourceMappingUrl, parseSourceMap } from './source-map.check.ts';

const SOFT_404 =
  '<!doctype html><html><head><title>Not found</title></head><body><p>KEY=VALUE pages are not here: /.env</p></body></html>';

describe('exposure detectors: files and pages', () => {
  it('recognises Subversion metadata, not a soft-404 or a bare SQLite file', () => {
    assert.deepEqual(findSvnMetadata('SQLite format 3\u0000\u0010...CREATE TABLE NODES (wc_id INTEGER)'), {
      value: 'SQLite format 3',
      offset: 0,
    });
    assert.equal(
      findSvnMetadata('10\n\ndir\n1234\nhttps://svn.example.com/repo/trunk\nhttps://svn.example.com/repo\n')?.value,
      'https://svn.example.com/repo/trunk',
    );
    assert.equal(
      findSvnMetadata(
        '<?xml version="1.0"?>\n<wc-entries\n   xmlns="svn:">\n<entry name="" kind="dir"/>',
      )?.value.startsWith('<wc-entries'),
      true,
    );
    assert.equal(findSvnMetadata('12\n')?.value, '12');
    assert.equal(
      findSvnMetadata('SQLite format 3\u0000CREATE TABLE users (id INTEGER)'),
      undefined,
      'another SQLite database',
    );
    assert.equal(findSvnMetadata(SOFT_404), undefined);
    assert.equal(findSvnMetadata('120\n'), undefined);
  });

  it('reads dotenv files, not HTML, prose, INI or code', () => {
    const env = findEnvFile(
      '# app\nAPP_ENV=production\nDB_HOST = db.internal\nDB_PASSWORD="hunter2"\n\nexport API_TOKEN=abc123\n',
    );
    assert.ok(env !== undefined);
    assert.deepEqual(env.keys, ['APP_ENV', 'DB_HOST', 'DB_PASSWORD', 'API_TOKEN']);
    assert.equal(env.value, 'DB_PASSWORD=', 'a credential line is the evidence');
    assert.deepEqual(
      env.masked.map((s) =>
        '# app\nAPP_ENV=production\nDB_HOST = db.internal\nDB_PASSWORD="hunter2"\n\nexport API_TOKEN=abc123\n'.slice(
          s.offset,
          s.offset + s.length,
        ),
      ),
      ['"hunter2"', 'abc123'],
    );
    assert.equal(
      findEnvFile('HOST = db\nPORT = 5432\n')?.value,
      'HOST',
      'spaces around =: the key alone is highlighted',
    );
    assert.equal(findEnvFile(SOFT_404), undefined);
    assert.equal(findEnvFile('<p>APP_ENV=production</p>\n<p>DB_HOST=db</p>'), undefined);
    assert.equal(findEnvFile('APP_ENV=production\n'), undefined, 'one line is not a file');
    assert.equal(findEnvFile('[database]\nhost=localhost\nuser=root\n'), undefined, 'INI with lower-case keys');
    assert.equal(findEnvFile('var A = 1;\nvar B = 2;\nfunction f() {}\n'), undefined);
    assert.equal(
      findEnvFile('Dear customer,\nA=1 and B=2 are the prices.\nThanks for your order.\nSee you soon.\n'),
      undefined,
    );
  });

  it('recognises phpinfo() output (HTML and CLI), not pages that mention it', () => {
    const html =
      '<h1 class="p">PHP Version 8.2.7</h1><table><tr><td class="e">System </td><td class="v">Linux</td></tr><tr><td class="e">Server API </td><td class="v">FPM/FastCGI</td></tr></table>';
    assert.deepEqual(findPhpinfo(html), { value: 'PHP Version 8.2.7', offset: html.indexOf('PHP Version') });
    assert.equal(
      findPhpinfo(
        'phpinfo()\nPHP Version => 7.4.3-4ubuntu2\n\nSystem => Linux web 5.4\nServer API => Command Line Interface\n',
      )?.value,
      'PHP Version => 7.4.3-4ubuntu2',
    );
    assert.equal(
      findPhpinfo('<p>Call phpinfo() to see the PHP Version 8.2.7 and the System and Server API rows.</p>'),
      undefined,
    );
    assert.equal(
      findPhpinfo('<h1>PHP Version 8.2.7</h1><td class="e">System </td>'),
      undefined,
      'one row is not the report',
    );
    assert.equal(findPhpinfo('<p>PHP Version information is shown to administrators only.</p>'), undefined);
  });

  it('recognises Apache server-status (HTML and ?auto) and server-info, not a 403 or an article', () => {
    assert.equal(
      findServerStatus('<h1>Apache Server Status for example.com (via 10.0.0.1)</h1><dt>Server uptime: 3 days</dt>')
        ?.title,
      'Apache server-status page exposed',
    );
    assert.equal(
      findServerStatus('ServerVersion: Apache/2.4.57\nTotal Accesses: 1200\nScoreboard: __W__K...\n')?.value,
      'ServerVersion: Apache/2.4.57',
    );
    assert.equal(
      findServerStatus(
        '<h1>Apache Server Information</h1><h2>Server Settings</h2><dt><strong>Server Version:</strong> Apache/2.4</dt>',
      )?.title,
      'Apache server-info page exposed',
    );
    assert.equal(
      findServerStatus("<h1>Forbidden</h1><p>You don't have permission to access /server-status on this server.</p>"),
      undefined,
    );
    assert.equal(findServerStatus('<p>The Apache Server Information page (mod_info) lists modules.</p>'), undefined);
    assert.equal(findServerStatus('<p>Apache Server Status for your site is available to admins.</p>'), undefined);
  });

  it('reads source maps and their comment, not other JSON or a soft-404', () => {
    const map = JSON.stringify({
      version: 3,
      sources: ['src/a.ts'],
      sourcesContent: ['const a = 1;'],
      mappings: 'AAAA',
    });
    assert.deepEqual(parseSourceMap(map), { sources: ['src/a.ts'], hasContent: true });
    assert.deepEqual(parseSourceMap(`)]}'\n${map}`)?.sources, ['src/a.ts']);
    assert.deepEqual(
      parseSourceMap(
        JSON.stringify({ version: 3, sections: [{ offset: { line: 0, column: 0 }, map: JSON.parse(map) }] }),
      )?.sources,
      ['src/a.ts'],
    );
    assert.equal(parseSourceMap(JSON.stringify({ version: 3, sources: [] })), undefined, 'no mappings');
    assert.equal(parseSourceMap(JSON.stringify({ mappings: 'AAAA', sources: [] })), undefined, 'no version');
    assert.equal(parseSourceMap(SOFT_404), undefined);
    assert.deepEqual(findSourceMappingUrl('x();\n//# sourceMappingURL=x.js.map\n'), {
      url: 'x.js.map',
      value: '//# sourceMappingURL=x.js.map',
      offset: 5,
    });
    assert.equal(findSourceMappingUrl('/*# sourceMappingURL=a.map */')?.url, 'a.map');
    assert.equal(findSourceMappingUrl('const s = "sourceMappingURL=";'), undefined);
  });

  it('compares backup answers with a soft-404 page up to request ids, and finds what to highlight', () => {
    const soft = (id: string): string =>
      `<html><body><h1>Sorry</h1><p>We looked everywhere but it is not here.</p><p>Request id ${id}</p><a href="/">Back to the shop</a></body></html>`;
    assert.equal(isSimilarBody(soft('a1b2c3'), soft('ffee00')), true);
    assert.equal(isSimilarBody(soft('a1b2c3'), '<?php $db = new PDO("mysql:host=db", "shop", "pass");'), false);
    assert.equal(isSimilarBody('', ''), true);
    assert.equal(isSimilarBody('', 'x'), false);
    assert.deepEqual(backupEvidence('\n<?php echo 1;'), { value: '<?php', offset: 1 });
    assert.equal(backupEvidence('b0VIM 8.2\u0000\u0000root').value, 'b0VIM 8.2');
    assert.deepEqual(backupEvidence('  plain copy of the page\nsecond line'), {
      value: 'plain copy of the page',
      offset: 2,
    });
  });
});
