import assert from 'node:assert/strict';
import { spawnOwned } from '../support/child-processes.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../src/cli/args.ts';
import { hashKey } from '../../src/core/teams/api-key.service.ts';
import { keyUsageOf } from '../../src/core/teams/key-usage.service.ts';
import { OperatorError } from '../../src/core/errors/operator-error.ts';
import { createHarness, type Harness } from '../support/harness.ts';

interface ListedKey {
  id: string;
  hint: string;
  kind: string;
  permissions: string[] | string;
  signing: boolean;
  created: string;
  last_used: string | null;
  revoked: string | null;
}

/** Runs the real `perimeter` command (a process of its own, on a SQLite store in dataDir). */
function perimeter(
  dataDir: string,
  ...argv: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnOwned(process.execPath, ['bin/perimeter.js', ...argv], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('perimeter admin', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness({ egressAllow: [] });
  });
  after(async () => h.close());

  it('creates a team with the limits and groups of its plan', async () => {
    const team = JSON.parse(await h.admin('team', 'create', 'cli-team', '--plan', 'starter', '--json'));
    assert.equal(team.name, 'cli-team');
    assert.equal(team.plan, 'starter');
    assert.deepEqual(team.limits, { monitored_domains: 3, scan_profiles: 3 });
    assert.match(team.token, /^[0-9a-f]{32}$/);
    assert.match(team.verification_code, /^[0-9a-f]{24}$/);
  });

  it('refuses a duplicate team, an unknown plan and an unknown permission', async () => {
    await assert.rejects(
      h.admin('team', 'create', 'cli-team'),
      (e: unknown) => e instanceof OperatorError && /exists already/.test(e.message),
    );
    await assert.rejects(h.admin('team', 'create', 'x', '--plan', 'gold'), /unknown plan "gold"/);
    await assert.rejects(
      h.admin('key', 'create', '--team', 'cli-team', '--permission', 'root'),
      /unknown endpoint group/,
    );
  });

  it('creates keys (a secret only with --signing), lists them by hint and revokes them', async () => {
    const plain = JSON.parse(await h.admin('key', 'create', '--team', 'cli-team', '--json'));
    assert.deepEqual(Object.keys(plain), ['key']);
    const signed = JSON.parse(await h.admin('key', 'create', '--team', 'cli-team', '--signing', '--v3', '--json'));
    assert.deepEqual(Object.keys(signed), ['key', 'secret']);
    assert.equal(Buffer.from(signed.secret, 'base64').length, 32);
    const listed = JSON.parse(await h.admin('key', 'list', '--team', 'cli-team', '--json'));
    assert.equal(listed.length, 2);
    assert.equal(listed[0].hint, `${plain.key.slice(0, 6)}…`);
    assert.equal(listed[1].kind, 'v3');
    assert.equal(JSON.stringify(listed).includes(plain.key), false, 'a listing never shows a key');
    await h.admin('key', 'revoke', plain.key);
    const res = await h.send('GET', '/rest/v2/assets/', { key: plain.key });
    assert.equal(res.statusCode, 401);
    await assert.rejects(h.admin('key', 'revoke', 'ffffffffffffffffffffffffffffffff'), /no such key/);
  });

  it('lists each key with a public id, its kind, permissions, signing, creation, last use and revocation', async () => {
    await h.admin('team', 'create', 'list-team');
    const plain = await h.key('list-team');
    const signed = await h.key(
      'list-team',
      '--v3',
      '--signing',
      '--permission',
      'assets',
      '--permission',
      'vulnerabilities',
    );
    const listed = JSON.parse(await h.admin('key', 'list', '--team', 'list-team', '--json')) as ListedKey[];
    assert.deepEqual(
      listed.map((k) => Object.keys(k)),
      [0, 1].map(() => ['id', 'hint', 'kind', 'permissions', 'signing', 'created', 'last_used', 'revoked']),
    );
    const [a, b] = listed as [ListedKey, ListedKey];
    assert.match(a.id, /^key_[0-9a-hjkmnp-tv-z]{10}$/);
    assert.notEqual(a.id, b.id);
    for (const secret of [plain.key, signed.key, hashKey(plain.key), hashKey(signed.key)]) {
      assert.equal(
        a.id.includes(secret.slice(0, 6)) || b.id.includes(secret.slice(0, 6)),
        false,
        'an id shows nothing of a key or its hash',
      );
    }
    assert.deepEqual(
      { ...a, id: '', created: '' },
      {
        id: '',
        hint: `${plain.key.slice(0, 6)}…`,
        kind: 'v2',
        permissions: 'all of the plan',
        signing: false,
        created: '',
        last_used: null,
        revoked: null,
      },
    );
    assert.deepEqual(
      { ...b, id: '', created: '' },
      {
        id: '',
        hint: `${signed.key.slice(0, 6)}…`,
        kind: 'v3',
        permissions: ['assets', 'vulnerabilities'],
        signing: true,
        created: '',
        last_used: null,
        revoked: null,
      },
    );
    assert.ok(Math.abs(Date.parse(a.created) - Date.now()) < 60_000);
    const table = (await h.admin('key', 'list', '--team', 'list-team')).split('\n');
    assert.match(table[0]!, /^ID +HINT +KIND +PERMISSIONS +SIGNING +CREATED +LAST USED +REVOKED$/);
    assert.match(
      table[1]!,
      new RegExp(
        `^${a.id} +${plain.key.slice(0, 6)}… +v2 +all of the plan +no +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ +never +no$`,
      ),
    );
    assert.match(table[2]!, new RegExp(`^${b.id} +${signed.key.slice(0, 6)}… +v3 +assets,vulnerabilities +yes +`));
    assert.equal(table.length, 3);
    assert.equal(
      await h.admin('team', 'create', 'keyless'),
      'created team keyless (plan professional, verification code ' +
        (await h.runtime.store.teams.findByName('keyless'))!.verificationCode +
        ')',
    );
    assert.equal(await h.admin('key', 'list', '--team', 'keyless'), 'team keyless has no keys');
    assert.deepEqual(JSON.parse(await h.admin('key', 'list', '--team', 'keyless', '--json')), []);
  });

  it('shows when a key last authenticated a request, for that key only; never for a key not used', async () => {
    await h.admin('team', 'create', 'use-a');
    await h.admin('team', 'create', 'use-b');
    const used = await h.key('use-a');
    const signed = await h.key('use-a', '--signing');
    await h.key('use-a');
    await h.key('use-b');
    const before = Date.now();
    assert.equal((await h.send('GET', '/rest/v2/assets/', { key: used.key })).statusCode, 200);
    assert.equal(
      (await h.send('GET', '/rest/v2/assets/', { key: signed.key, secret: 'AAAA' + signed.secret!.slice(4) }))
        .statusCode,
      401,
      'a bad signature is no use',
    );
    await keyUsageOf(h.runtime.store)!.flush();
    const afterFirst = JSON.parse(await h.admin('key', 'list', '--team', 'use-a', '--json')) as ListedKey[];
    const usedAt = Date.parse(afterFirst[0]!.last_used!);
    assert.ok(usedAt >= before && usedAt <= Date.now(), `last used ${afterFirst[0]!.last_used}`);
    assert.deepEqual(
      afterFirst.slice(1).map((k) => k.last_used),
      [null, null],
    );
    assert.match((await h.admin('key', 'list', '--team', 'use-a')).split('\n')[3]!, / never +no$/);
    assert.equal(
      (await h.send('GET', '/rest/v2/assets/', { key: signed.key, secret: signed.secret! })).statusCode,
      200,
    );
    await keyUsageOf(h.runtime.store)!.flush();
    const afterSigned = JSON.parse(await h.admin('key', 'list', '--team', 'use-a', '--json')) as ListedKey[];
    assert.notEqual(afterSigned[1]!.last_used, null, 'a signed key counts once its signature is verified');
    assert.deepEqual(
      (JSON.parse(await h.admin('key', 'list', '--team', 'use-b', '--json')) as ListedKey[]).map((k) => k.last_used),
      [null],
      "another team's key is untouched",
    );
  });

  it('writes a last use only when none was written within the interval, and never moves it back', async () => {
    await h.admin('team', 'create', 'use-store');
    const { key } = await h.key('use-store');
    const record = (await h.runtime.store.keys.findByHash(hashKey(key)))!;
    const t = Date.UTC(2030, 0, 1);
    const lastUse = async () => (await h.runtime.store.keys.findByHash(hashKey(key)))!.lastUsed?.getTime();
    await h.runtime.store.keys.recordUse(record.id, new Date(t), new Date(t - 60_000));
    assert.equal(await lastUse(), t);
    await h.runtime.store.keys.recordUse(record.id, new Date(t + 30_000), new Date(t - 30_000));
    assert.equal(await lastUse(), t, 'another process wrote within the minute');
    await h.runtime.store.keys.recordUse(record.id, new Date(t - 120_000), new Date(t - 180_000));
    assert.equal(await lastUse(), t, 'an older use never replaces a newer one');
    await h.runtime.store.keys.recordUse(record.id, new Date(t + 61_000), new Date(t + 1000));
    assert.equal(await lastUse(), t + 61_000);
  });

  it('revokes a key by its id or by the key, of any team, saying which key of which team', async () => {
    await h.admin('team', 'create', 'revoke-team');
    const byId = await h.key('revoke-team');
    const byKey = await h.key('revoke-team', '--v3');
    const [first, second] = JSON.parse(await h.admin('key', 'list', '--team', 'revoke-team', '--json')) as [
      ListedKey,
      ListedKey,
    ];
    assert.equal(await h.admin('key', 'revoke', first.id), `revoked key ${first.id} (v2, team revoke-team)`);
    assert.equal((await h.send('GET', '/rest/v2/assets/', { key: byId.key })).statusCode, 401);
    const revoked = JSON.parse(await h.admin('key', 'revoke', byKey.key, '--json'));
    assert.deepEqual(
      { ...revoked, revoked: '' },
      { id: second.id, kind: 'v3', teams: ['revoke-team'], revoked: '', was_revoked: false },
    );
    assert.ok(Math.abs(Date.parse(revoked.revoked) - Date.now()) < 60_000);
    const listed = JSON.parse(await h.admin('key', 'list', '--team', 'revoke-team', '--json')) as ListedKey[];
    assert.equal(listed[1]!.revoked, revoked.revoked);
    assert.notEqual(listed[0]!.revoked, null);
    assert.match(
      (await h.admin('key', 'list', '--team', 'revoke-team')).split('\n')[1]!,
      / never +\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/,
    );
    // Revoking again changes nothing and says so.
    const again = await h.admin('key', 'revoke', first.id);
    assert.match(
      again,
      new RegExp(
        `^key ${first.id} \\(v2, team revoke-team\\) was revoked already, at ${listed[0]!.revoked!.slice(0, 19).replace('T', ' ')}Z$`,
      ),
    );
  });

  it('refuses an unknown id, an unknown key and anything else with a clear message', async () => {
    await assert.rejects(
      h.admin('key', 'revoke', 'key_0000000000'),
      (e: unknown) => e instanceof OperatorError && e.message === 'no key with id key_0000000000',
    );
    await assert.rejects(
      h.admin('key', 'revoke', 'f'.repeat(32)),
      (e: unknown) => e instanceof OperatorError && e.message === 'no such key',
    );
    await assert.rejects(
      h.admin('key', 'revoke', 'key_123'),
      (e: unknown) =>
        e instanceof OperatorError &&
        /^give a key id \(key_ and 10 characters, see key list\) or a key/.test(e.message),
    );
    await assert.rejects(
      h.admin('key', 'revoke'),
      (e: unknown) => e instanceof OperatorError && /needs the key ID/.test(e.message),
    );
  });

  it('prints the usage when asked for help, and for an area or command it does not know', async () => {
    const all = await h.admin('--help');
    assert.match(all, /^usage:\n {2}perimeter admin team create NAME/);
    assert.match(all, /perimeter admin key revoke ID\|KEY/);
    assert.equal(await h.admin('help'), all);
    await assert.rejects(
      h.admin(),
      (e: unknown) => e instanceof UsageError && e.message === `perimeter admin: which command?\n${all}`,
    );
    const keyHelp = await h.admin('key', '--help');
    assert.deepEqual(
      keyHelp
        .split('\n')
        .slice(1)
        .map((l) => l.split(' ').slice(0, 6).join(' ')),
      ['  perimeter admin key create', '  perimeter admin key list', '  perimeter admin key revoke'],
    );
    await assert.rejects(
      h.admin('key'),
      (e: unknown) => e instanceof UsageError && e.message.startsWith(`perimeter admin key: which action?\n${keyHelp}`),
    );
    await assert.rejects(
      h.admin('frob', 'nicate'),
      (e: unknown) =>
        e instanceof UsageError && e.message.startsWith('unknown command: perimeter admin frob nicate\nusage:'),
    );
  });

  it('answers help, usage mistakes and unknown keys from the command line without a stack trace', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-cli-'));
    try {
      const [top, admin, area, missing, unknown] = await Promise.all([
        perimeter(dataDir, '--help'),
        perimeter(dataDir, 'admin', '--help'),
        perimeter(dataDir, 'admin', 'key'),
        perimeter(dataDir, 'admin', 'key', 'list', '--team'),
        perimeter(dataDir, 'admin', 'key', 'revoke', 'key_0000000000'),
      ]);
      assert.deepEqual([top.code, top.stderr], [0, '']);
      // The top-level help (the client's, bin/perimeter.js) lists the client commands, then the server's.
      assert.match(top.stdout, /^usage: perimeter <command> \[options\]\n/);
      assert.match(top.stdout, /\nServer commands \(run where the store is\):\n {2}serve .*\n {2}migrate\n {2}admin /);
      assert.deepEqual([admin.code, admin.stderr], [0, '']);
      assert.match(admin.stdout, /perimeter admin key list --team NAME/);
      assert.deepEqual([area.code, area.stdout], [2, '']);
      assert.match(area.stderr, /^perimeter admin key: which action\?\nusage:\n {2}perimeter admin key create/);
      assert.deepEqual([missing.code, missing.stderr], [2, '--team needs a value\n']);
      assert.deepEqual([unknown.code, unknown.stderr], [1, 'no key with id key_0000000000\n']);
      for (const run of [top, admin, area, missing, unknown])
        assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses an option or a word a command does not take, and a command line naming no command (exit 2, nothing done)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-cli-'));
    try {
      const [none, typo, extra, serveTypo, serveExtra, migrateTypo] = await Promise.all([
        perimeter(dataDir, 'admin'),
        perimeter(dataDir, 'admin', 'team', 'create', 'acme', '--plna', 'starter'),
        perimeter(dataDir, 'admin', 'team', 'create', 'acme', 'extra'),
        perimeter(dataDir, 'serve', '--prot', '18399'),
        perimeter(dataDir, 'serve', 'extra'),
        perimeter(dataDir, 'migrate', '--bogus', '1'),
      ]);
      assert.deepEqual([none.code, none.stdout], [2, '']);
      assert.match(none.stderr, /^perimeter admin: which command\?\nusage:/);
      assert.equal(typo.code, 2);
      assert.match(
        typo.stderr,
        /^perimeter admin team create: unknown option --plna\nusage:\n {2}perimeter admin team create NAME/,
      );
      assert.equal(extra.code, 2);
      assert.match(extra.stderr, /^perimeter admin team create: unexpected "extra"\n/);
      assert.deepEqual(
        [serveTypo.code, serveTypo.stderr.split('\n')[0]],
        [2, 'perimeter serve: unknown option --prot'],
      );
      assert.deepEqual([serveExtra.code, serveExtra.stderr.split('\n')[0]], [2, 'perimeter serve: unexpected "extra"']);
      assert.deepEqual(
        [migrateTypo.code, migrateTypo.stderr.split('\n')[0]],
        [2, 'perimeter migrate: unknown option --bogus'],
      );
      // Options of the configuration stay accepted by every command.
      const listed = await perimeter(
        dataDir,
        'admin',
        'team',
        'create',
        'acme',
        '--plan',
        'starter',
        '--log-level',
        'warn',
        '--json',
      );
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(JSON.parse(listed.stdout).plan, 'starter');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('says in one line, without a stack trace, why the store cannot be opened or the port cannot be bound (exit 1)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-cli-'));
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const [store, listen, database] = await Promise.all([
        perimeter('/dev/null/perimeter', 'admin', 'key', 'list', '--team', 'x'),
        perimeter(dataDir, 'serve', '--port', String(port), '--host', '127.0.0.1', '--roles', 'api'),
        perimeter(dataDir, 'migrate', '--database-url', 'postgres://u:s3cretpw@127.0.0.1:1/x?password=s3cretpw'),
      ]);
      assert.equal(database.code, 1);
      assert.match(
        database.stderr,
        /^cannot open the database postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x\?password=\*\*\*: .+\n$/,
      );
      assert.doesNotMatch(database.stdout + database.stderr, /s3cretpw/);
      assert.equal(store.code, 1);
      assert.match(store.stderr, /^cannot open the embedded store in \/dev\/null\/perimeter: .*\n$/);
      assert.equal(listen.code, 1, listen.stderr);
      assert.match(listen.stderr, new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*\\n$`));
      for (const run of [store, listen, database]) assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stores keys hashed and signing secrets encrypted', async () => {
    const signed = JSON.parse(await h.admin('key', 'create', '--team', 'cli-team', '--signing', '--json'));
    const rows = await h.runtime.database.db.selectFrom('api_keys').selectAll().execute();
    const dump = JSON.stringify(rows);
    assert.equal(dump.includes(signed.key), false);
    assert.equal(dump.includes(signed.secret), false);
  });

  it('marks an asset verified, asking for --team only when several teams own the name', async () => {
    const a = await h.team('team-a');
    const b = await h.team('team-b');
    await h.send('POST', '/rest/v2/assets/', { key: a.key, body: { name: 'shared.example' } });
    await h.send('POST', '/rest/v2/assets/', { key: b.key, body: { name: 'shared.example' } });
    await h.send('POST', '/rest/v2/assets/', { key: a.key, body: { name: 'only-a.example' } });
    await assert.rejects(
      h.admin('asset', 'verify', 'shared.example'),
      /several teams own "shared.example" \(team-a, team-b\)/,
    );
    assert.deepEqual(
      JSON.parse(await h.admin('asset', 'verify', 'shared.example', '--team', 'team-b', '--json')).status,
      'verified',
    );
    assert.match(await h.admin('asset', 'verify', 'only-a.example'), /only-a.example is verified/);
    const list = (await h.send('GET', '/rest/v2/assets/', { key: a.key })).json();
    assert.deepEqual(
      list.assets.map((x: { name: string; status: string }) => [x.name, x.status]),
      [
        ['shared.example', 'unverified'],
        ['only-a.example', 'verified'],
      ],
    );
    await assert.rejects(h.admin('asset', 'verify', 'nowhere.example'), /no asset named "nowhere.example"/);
  });
});
