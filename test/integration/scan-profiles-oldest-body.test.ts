import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, testStore, v2Error, type Harness } from '../support/harness.ts';
import { TestDnsServer } from '../support/dns-server.ts';

/**
 * The oldest profile body, `{endpoint, unique}` with no asset token, as the original service's
 * public Python 3 example sends it right after adding the domain: the asset is inferred from the
 * endpoint, the profile is created without the ownership and reachability checks, and scans wait
 * for the asset to be verified (2021).
 */
describe(`v2 scan profiles: the oldest body, without an asset token (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let stranger: string;
  // Ownership checks of the names added here ask this loopback server (NXDOMAIN); nothing reaches the network.
  const dns = new TestDnsServer();
  const assets: Record<string, string> = {};

  before(async () => {
    await dns.start();
    h = await createHarness({ endpointValidationTimeoutMs: 1500, dnsResolvers: [dns.address] });
    key = (await h.team('pythonists')).key;
    stranger = (await h.team('strangers')).key;
  });
  after(async () => {
    await h.close();
    await dns.stop();
  });

  const create = (body: unknown, k = key) => h.send('POST', '/rest/v2/profiles/', { key: k, body });
  const addDomain = async (name: string, k = key) => {
    const res = await h.send('POST', '/rest/v2/domains/', { key: k, body: { name } });
    assert.equal(res.statusCode, 200, res.body);
    assets[name] = res.json().token;
    return res.json().token as string;
  };
  const profilesOf = async (assetToken: string, k = key) =>
    (await h.send('GET', `/rest/v2/profiles/${assetToken}/`, { key: k })).json().map((p: { token: string }) => p.token);

  it('runs the Python 3 example: add_domain, add_scan_profile {endpoint, unique}, start_scan 2021 until the asset is verified', async () => {
    const domain = await addDomain('abcd.example');
    const created = await create({ endpoint: 'my.abcd.example', unique: true });
    assert.equal(created.statusCode, 200, created.body);
    const token = created.json().token;
    assert.match(token, /^[0-9a-f]{32}$/);
    assert.equal(created.json().endpoint, 'my.abcd.example');
    assert.equal(created.json().name, 'my.abcd.example');
    assert.deepEqual(await profilesOf(domain), [token]);
    // Nothing was asked of the endpoint: no DNS query for its name.
    assert.ok(!dns.queries.some((q) => q.includes('my.abcd.example')), dns.queries.join(', '));
    // No validation: the scan starts from https on the default port (the scheme and port the endpoint names otherwise).
    const team = (await h.runtime.store.teams.findByName('pythonists'))!;
    const stored = await h.runtime.store.scanProfiles.findByToken(team.id, token);
    assert.deepEqual([stored?.scheme, stored?.port], ['https', 443]);
    // The example runs again: unique answers the same profile.
    assert.equal((await create({ endpoint: 'my.abcd.example', unique: true })).json().token, token);

    const refused = await h.send('POST', `/rest/v2/scans/${token}/`, { key });
    assert.equal(refused.statusCode, 423);
    assert.deepEqual(
      refused.json(),
      v2Error(2021, 'Asset not verified: only verified assets can be scanned, and abcd.example is not verified', [
        'scanProfileToken',
      ]),
    );

    await h.runtime.verification.settle();
    await h.admin('asset', 'verify', 'abcd.example', '--team', 'pythonists');
    const started = await h.send('POST', `/rest/v2/scans/${token}/`, { key });
    assert.equal(started.statusCode, 202, started.body);
    assert.equal(started.json().scan_profile_token, token);
  });

  it('infers the longest matching root asset; an IP endpoint matches its IP asset', async () => {
    // Added subdomain first, so both are root assets.
    const sub = await addDomain('sub.longest.example');
    const apex = await addDomain('longest.example');
    const ip = await addDomain('192.0.2.7');
    const deep = await create({ endpoint: 'https://a.sub.longest.example', unique: false });
    assert.equal(deep.statusCode, 200, deep.body);
    const exact = await create({ endpoint: 'SUB.longest.example.', unique: true });
    assert.equal(exact.statusCode, 200, exact.body);
    assert.equal(exact.json().endpoint, 'sub.longest.example');
    const shallow = await create({ endpoint: 'b.longest.example:8443', unique: true });
    assert.equal(shallow.statusCode, 200, shallow.body);
    const address = await create({ endpoint: 'http://192.0.2.7:8080', unique: true });
    assert.equal(address.statusCode, 200, address.body);
    assert.deepEqual(await profilesOf(sub), [deep.json().token, exact.json().token]);
    assert.deepEqual(await profilesOf(apex), [shallow.json().token]);
    assert.deepEqual(await profilesOf(ip), [address.json().token]);
    const team = (await h.runtime.store.teams.findByName('pythonists'))!;
    const stored = await h.runtime.store.scanProfiles.findByToken(team.id, address.json().token);
    assert.deepEqual([stored?.scheme, stored?.port], ['http', 8080]);
    // unique: false keeps the older meaning: a second profile for the endpoint is 2605.
    const twice = await create({ endpoint: 'https://a.sub.longest.example', unique: false });
    assert.equal(twice.statusCode, 409);
    assert.equal(twice.json().code, 2605);
  });

  it('answers 2607 when no root asset of the team holds the host, and 2606 for a malformed endpoint', async () => {
    const none = await create({ endpoint: 'nowhere.example', unique: true });
    assert.equal(none.statusCode, 400);
    assert.deepEqual(
      none.json(),
      v2Error(
        2607,
        'Endpoint does not match the associated asset name: nowhere.example is neither an asset of the team nor a subdomain of one',
        ['endpoint'],
      ),
    );
    const lookalike = await create({ endpoint: 'evillongest.example', unique: true });
    assert.deepEqual(
      lookalike.json(),
      v2Error(
        2607,
        'Endpoint does not match the associated asset name: evillongest.example is neither an asset of the team nor a subdomain of one',
        ['endpoint'],
      ),
    );
    const otherIp = await create({ endpoint: '192.0.2.8', unique: true });
    assert.equal(otherIp.json().code, 2607);
    for (const endpoint of ['ftp://my.abcd.example', 'my.abcd.example/path', 'my.abcd.example:0', 'bad host', '', 42]) {
      const res = await create({ endpoint, unique: true });
      assert.equal(res.statusCode, 400, String(endpoint));
      assert.equal(res.json().code, 2606, String(endpoint));
    }
    assert.equal((await create({ endpoint: 'my.abcd.example', unique: 'yes' })).json().code, 1051);
  });

  it("never infers another team's asset", async () => {
    const theirs = await addDomain('theirs.example', stranger);
    const res = await create({ endpoint: 'www.theirs.example', unique: true });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(
      res.json(),
      v2Error(
        2607,
        'Endpoint does not match the associated asset name: www.theirs.example is neither an asset of the team nor a subdomain of one',
        ['endpoint'],
      ),
    );
    // The other way round too: abcd.example belongs to pythonists only.
    const back = await create({ endpoint: 'my.abcd.example', unique: true }, stranger);
    assert.deepEqual(
      back.json(),
      v2Error(
        2607,
        'Endpoint does not match the associated asset name: my.abcd.example is neither an asset of the team nor a subdomain of one',
        ['endpoint'],
      ),
    );
    assert.deepEqual(await profilesOf(theirs, stranger), []);
    assert.deepEqual((await h.send('GET', '/rest/v2/profiles/', { key: stranger })).json(), []);
  });

  it('keeps every check of the bodies with a token; only {endpoint, unique} without one skips them', async () => {
    await addDomain('unchecked.example');
    assert.deepEqual(
      (await create({ endpoint: 'unchecked.example' })).json(),
      v2Error(1050, 'Request body missing asset_token (or the older domain_token): the asset to scan', ['asset_token']),
    );
    for (const field of ['asset_token', 'domain_token']) {
      const res = await create({ [field]: assets['unchecked.example'], endpoint: 'unchecked.example', unique: true });
      assert.equal(res.statusCode, 423, field);
      assert.equal(res.json().code, 2021, field);
    }
    assert.equal(
      (await create({ asset_token: 'nope', endpoint: 'unchecked.example', unique: true })).json().code,
      2011,
    );
    assert.deepEqual(await profilesOf(assets['unchecked.example']!), []);
    const oldest = await create({ endpoint: 'unchecked.example', unique: true });
    assert.equal(oldest.statusCode, 200, oldest.body);
    assert.deepEqual(await profilesOf(assets['unchecked.example']!), [oldest.json().token]);
  });
});
