import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OperatorError } from '../../src/core/teams/team.service.ts';
import { createHarness, type Harness } from '../support/harness.ts';

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
    await assert.rejects(h.admin('team', 'create', 'cli-team'), (e: unknown) => e instanceof OperatorError && /exists already/.test(e.message));
    await assert.rejects(h.admin('team', 'create', 'x', '--plan', 'gold'), /unknown plan "gold"/);
    await assert.rejects(h.admin('key', 'create', '--team', 'cli-team', '--permission', 'root'), /unknown endpoint group/);
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
    await assert.rejects(h.admin('asset', 'verify', 'shared.example'), /several teams own "shared.example" \(team-a, team-b\)/);
    assert.deepEqual(JSON.parse(await h.admin('asset', 'verify', 'shared.example', '--team', 'team-b', '--json')).status, 'verified');
    assert.match(await h.admin('asset', 'verify', 'only-a.example'), /only-a.example is verified/);
    const list = (await h.send('GET', '/rest/v2/assets/', { key: a.key })).json();
    assert.deepEqual(list.assets.map((x: { name: string; status: string }) => [x.name, x.status]), [['shared.example', 'unverified'], ['only-a.example', 'verified']]);
    await assert.rejects(h.admin('asset', 'verify', 'nowhere.example'), /no asset named "nowhere.example"/);
  });
});
