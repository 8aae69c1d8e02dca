import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { olderSettingsBody } from '../support/asset-settings-bodies.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { createHarness, testStore, v2Error, type Harness, type SendOptions, type TestKey } from '../support/harness.ts';
import {
  ClientDomain,
  ClientError,
  ClientFinding,
  ClientFindingPage,
  ClientFullReport,
  ClientReport,
  ClientScanStatus,
  ClientSubdomain,
  ClientUuid,
  decode,
  decodeArray,
} from '../support/legacy-client.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { startTargetSite, type TargetSites } from '../support/target-site.ts';
import { waitUntil } from '../support/test-jobs.ts';

/**
 * The older v2 flows driven the way existing scripts and integrations drive them: signed
 * requests, paths with and without the trailing slash, `Content-Type: application/json` on
 * requests without a body, zone text labelled JSON, and a second team that must see nothing.
 */
describe(`compatibility with existing clients (${testStore})`, () => {
  let h: Harness;
  let acme: TestKey;
  let signed: TestKey;
  let rival: TestKey;
  let sites: TargetSites;
  const dns = new TestDnsServer();
  let ipDomain: string;
  let zoneDomain: string;
  let rivalDomain: string;
  let profile: string;
  let report: string;
  let findingUuid: string;

  /** A script's request: the signing key, the body as JSON text when given, the JSON content type always. */
  const script = (method: string, url: string, body?: unknown, options: SendOptions = {}) =>
    h.send(method, url, {
      key: signed.key,
      secret: signed.secret!,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...options,
    });
  const read = async (url: string, key: TestKey = signed) => {
    const res = await h.send(
      'GET',
      url,
      key.secret === undefined ? { key: key.key } : { key: key.key, secret: key.secret },
    );
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.body;
  };

  before(async () => {
    // Ownership checks of the names added here ask this local server (NXDOMAIN), never the network.
    await dns.start();
    h = await createHarness({ endpointValidationTimeoutMs: 3000, dnsResolvers: [dns.address] });
    acme = await h.team('acme', { plan: 'enterprise' });
    signed = await h.key('acme', '--signing');
    rival = await h.team('rival');
    sites = await startTargetSite();
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
    rivalDomain = decode(
      ClientDomain,
      (await h.send('POST', '/rest/v2/domains/', { key: rival.key, body: { name: 'rival.example' } })).body,
    ).token;
  });
  after(async () => {
    await h.close();
    await sites.stop();
    await dns.stop();
  });

  it('runs a release gate as a signed script, without trailing slashes, with JSON content type on empty bodies', async () => {
    const added = await script('POST', '/rest/v2/domains', { name: '127.0.0.1' });
    assert.equal(added.statusCode, 200, added.body);
    ipDomain = decode(ClientDomain, added.body).token;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'acme');
    const created = await script('POST', '/rest/v2/profiles', {
      domain_token: ipDomain,
      endpoint: `http://127.0.0.1:${sites.vulnerable.port}`,
      name: 'release gate',
      unique: true,
    });
    assert.equal(created.statusCode, 200, created.body);
    profile = created.json().token;

    const started = await script('POST', `/rest/v2/scans/${profile}`);
    assert.equal(started.statusCode, 202, started.body);
    await waitUntil(
      'the scan to read stopped',
      async () =>
        decode(ClientScanStatus, await read(`/rest/v2/scans/${profile}`)).state === 'stopped' ? true : undefined,
      30_000,
    );

    const full = decode(ClientFullReport, await read(`/rest/v2/fullreports/${profile}/latest`));
    const threshold = 7.0;
    assert.ok(full.cvss >= threshold, `the gate fails the release: cvss ${full.cvss}`);
    assert.ok(full.findings.length > 0);
    report = full.token;
    findingUuid = full.findings[0]!.uuid;
    // The same report read with the plain key through HTTP Basic, as curl -u key: sends it.
    const basic = await h.send('GET', `/rest/v2/fullreports/${profile}/latest/`, {
      headers: { authorization: `Basic ${Buffer.from(`${acme.key}:`).toString('base64')}` },
    });
    assert.equal(basic.statusCode, 200);
    assert.deepEqual(decode(ClientFullReport, basic.body), full);
  });

  it('answers every older read the same with and without the trailing slash', async () => {
    const reads = [
      '/rest/v2/domains/',
      `/rest/v2/domains/${ipDomain}/subdomains/`,
      `/rest/v2/domains/${ipDomain}/findings/`,
      `/rest/v2/domains/${ipDomain}/findings/paginated/`,
      `/rest/v2/domains/${ipDomain}/findings/${findingUuid}/`,
      `/rest/v2/domains/${ipDomain}/findinguuids/`,
      `/rest/v2/fullreports/${profile}/latest/`,
      `/rest/v2/reports/${profile}/latest/`,
      `/rest/v2/reports/${profile}/`,
      `/rest/v2/findings/${profile}/`,
      `/rest/v2/findings/${profile}/${report}/${findingUuid}/`,
    ];
    for (const url of reads) {
      const withSlash = await read(url);
      assert.equal(await read(url.slice(0, -1)), withSlash, url);
      assert.equal(await read(`${url.slice(0, -1)}?`), withSlash, `${url} with an empty query`);
    }
    decodeArray(ClientDomain, await read('/rest/v2/domains'));
    decodeArray(ClientSubdomain, await read(`/rest/v2/domains/${ipDomain}/subdomains`));
    decodeArray(ClientFinding, await read(`/rest/v2/domains/${ipDomain}/findings`));
    decode(ClientFindingPage, await read(`/rest/v2/domains/${ipDomain}/findings/paginated`));
    decode(ClientFinding, await read(`/rest/v2/domains/${ipDomain}/findings/${findingUuid}`));
    decodeArray(ClientUuid, await read(`/rest/v2/domains/${ipDomain}/findinguuids`));
    decode(ClientReport, await read(`/rest/v2/reports/${profile}/latest`));
    decodeArray(ClientReport, await read(`/rest/v2/reports/${profile}`));
    decodeArray(ClientFinding, await read(`/rest/v2/findings/${profile}`));
    decode(ClientFinding, await read(`/rest/v2/findings/${profile}/${report}/${findingUuid}`));
  });

  it('treats Content-Type: application/json with an empty body as no body', async () => {
    for (const method of ['GET', 'DELETE', 'POST'] as const) {
      const res = await script(method, `/rest/v2/scans/${profile}/`);
      if (method === 'GET') assert.equal(res.statusCode, 200);
      if (method === 'DELETE')
        assert.deepEqual(
          decode(ClientError, res.body),
          v2Error(5004, 'No scan running on the scan profile', ['scanProfileToken']),
        );
      if (method === 'POST') assert.equal(res.statusCode, 202, 'a rescan starts');
    }
    await waitUntil(
      'the rescan to read stopped',
      async () =>
        decode(ClientScanStatus, await read(`/rest/v2/scans/${profile}/`)).state === 'stopped' ? true : undefined,
      30_000,
    );
    const reads = await script('GET', `/rest/v2/reports/${profile}/`);
    assert.equal(decodeArray(ClientReport, reads.body).length, 2);
    const missing = await script('POST', '/rest/v2/domains/');
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(
      decode(ClientError, missing.body),
      v2Error(1050, 'Request body missing: this operation needs a JSON body'),
    );
  });

  it('checks the signature over the path exactly as sent', async () => {
    const slashSigned = await h.send('GET', '/rest/v2/domains', {
      key: signed.key,
      secret: signed.secret!,
      signedPath: '/v2/domains/',
    });
    assert.equal(slashSigned.statusCode, 401);
    assert.deepEqual(decode(ClientError, slashSigned.body), v2Error(1003, 'Request signature invalid'));
    const unsigned = await h.send('GET', '/rest/v2/reports/' + profile + '/', { key: signed.key });
    assert.equal(decode(ClientError, unsigned.body).code, 1003);
  });

  it('accepts the relative URL of the Python 3 example and the bugcrowd integration: /v2/… after /rest', async () => {
    // detectify-python3.py and the bugcrowd integration sign `/v2/domains/`, `/v2/scans/{t}/` and post JSON text.
    const body = JSON.stringify({ name: 'python3-form.example' });
    const added = await h.send('POST', '/rest/v2/domains/', {
      key: signed.key,
      secret: signed.secret!,
      body,
      signedPath: '/v2/domains/',
    });
    assert.equal(added.statusCode, 200, added.body);
    const status = await h.send('GET', `/rest/v2/scans/${profile}/`, {
      key: signed.key,
      secret: signed.secret!,
      signedPath: `/v2/scans/${profile}/`,
    });
    assert.equal(status.statusCode, 200, status.body);
  });

  it('accepts the relative URL of the Node and Python 2 examples: the path after /rest/v2', async () => {
    // detectify.js, detectify.py and detectify-2.7.py call ENDPOINT = …/rest/v2 and sign `/scans/{t}/`.
    const status = await h.send('GET', `/rest/v2/scans/${profile}/`, {
      key: signed.key,
      secret: signed.secret!,
      signedPath: `/scans/${profile}/`,
    });
    assert.equal(status.statusCode, 200, status.body);
    const body = JSON.stringify({ name: 'node-form.example' });
    const added = await h.send('POST', '/rest/v2/domains/', {
      key: signed.key,
      secret: signed.secret!,
      body,
      signedPath: '/domains/',
    });
    assert.equal(added.statusCode, 200, added.body);
    const otherPath = await h.send('GET', `/rest/v2/scans/${profile}/`, {
      key: signed.key,
      secret: signed.secret!,
      signedPath: '/domains/',
    });
    assert.deepEqual(decode(ClientError, otherPath.body), v2Error(1003, 'Request signature invalid'));
  });

  it('covers the query: a signature over the path alone is refused once a query is added', async () => {
    const withQuery = await h.send('GET', '/rest/v2/assets/?pageSize=1', { key: signed.key, secret: signed.secret! });
    assert.equal(withQuery.statusCode, 200, withQuery.body);
    const underBase = await h.send('GET', '/rest/v2/assets/?pageSize=1', {
      key: signed.key,
      secret: signed.secret!,
      signedPath: '/assets/?pageSize=1',
    });
    assert.equal(underBase.statusCode, 200, underBase.body);
    for (const signedPath of ['/v2/assets/', '/assets/', '/v2/assets/?pageSize=2', '/v2/assets/?pagesize=1']) {
      const res = await h.send('GET', '/rest/v2/assets/?pageSize=1', {
        key: signed.key,
        secret: signed.secret!,
        signedPath,
      });
      assert.equal(res.statusCode, 401, signedPath);
      assert.deepEqual(decode(ClientError, res.body), v2Error(1003, 'Request signature invalid'));
    }
  });

  it('refuses a captured zone write whose query is changed to another origin or name server', async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const body = '$TTL 3600\nwww IN A 192.0.2.9\n';
    const captured = {
      key: signed.key,
      secret: signed.secret!,
      timestamp,
      body,
      signedPath: '/v2/zone/file/?origin=captured.example',
    };
    const sent = await h.send('POST', '/rest/v2/zone/file/?origin=captured.example', captured);
    assert.equal(sent.statusCode, 200, sent.body);
    const replayed = await h.send('POST', '/rest/v2/zone/file/?origin=other.example', captured);
    assert.equal(replayed.statusCode, 401);
    assert.deepEqual(decode(ClientError, replayed.body), v2Error(1003, 'Request signature invalid'));
    const transfer = {
      key: signed.key,
      secret: signed.secret!,
      timestamp,
      signedPath: '/v2/zone/transfer/?nameServer=127.0.0.1&zone=captured.example',
    };
    const redirected = await h.send(
      'POST',
      '/rest/v2/zone/transfer/?nameServer=127.0.0.2&zone=captured.example',
      transfer,
    );
    assert.equal(redirected.statusCode, 401);
    assert.deepEqual(decode(ClientError, redirected.body), v2Error(1003, 'Request signature invalid'));
  });

  it('reads zone text labelled JSON and lists its names through the older subdomains read', async () => {
    zoneDomain = decode(ClientDomain, (await script('POST', '/rest/v2/domains/', { name: 'zone.example' })).body).token;
    const zone =
      '$ORIGIN zone.example.\n$TTL 3600\n@ IN SOA ns1 hostmaster 1 7200 3600 1209600 3600\n@ IN NS ns1\nns1 IN A 192.0.2.1\nwww IN A 192.0.2.2\napi IN CNAME www\n';
    const upload = await h.send('POST', '/rest/v2/zone/file/?origin=zone.example', {
      key: acme.key,
      body: zone,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(upload.statusCode, 200, upload.body);
    const names = decodeArray(ClientSubdomain, await read(`/rest/v2/domains/${zoneDomain}/subdomains`))
      .map((s) => s.name)
      .sort();
    assert.deepEqual(names, ['api.zone.example', 'ns1.zone.example', 'www.zone.example']);
  });

  it('adds the apex of a zone uploaded for a domain the team does not have, then lists it as a domain', async () => {
    const zone =
      '$ORIGIN fresh.example.\n$TTL 3600\n@ IN SOA ns1 hostmaster 1 7200 3600 1209600 3600\n@ IN NS ns1\nns1 IN A 192.0.2.1\nshop IN A 192.0.2.3\n';
    const upload = await script('POST', '/rest/v2/zone/file?origin=fresh.example', undefined, { body: zone });
    assert.equal(upload.statusCode, 200, upload.body);
    const fresh = decodeArray(ClientDomain, await read('/rest/v2/domains')).find((d) => d.name === 'fresh.example');
    assert.ok(fresh !== undefined, 'the apex is a domain of the team now');
    assert.equal(fresh.status, 'unverified');
    const names = decodeArray(ClientSubdomain, await read(`/rest/v2/domains/${fresh.token}/subdomains/`))
      .map((s) => s.name)
      .sort();
    assert.deepEqual(names, ['ns1.fresh.example', 'shop.fresh.example']);
  });

  it('updates asset settings with the 14-field body of scripts older than port scanning', async () => {
    const before = await script('GET', `/rest/v2/domains/${zoneDomain}/settings/`);
    assert.equal(before.statusCode, 200, before.body);
    const current = JSON.parse(before.body) as Record<string, unknown>;
    // A Go client's nil map and an unlimited rate, the values such scripts send.
    const older = { ...olderSettingsBody, custom_headers: null, requests_per_second: 0 };
    const updated = await script('PUT', `/rest/v2/domains/${zoneDomain}/settings`, older);
    assert.equal(updated.statusCode, 200, updated.body);
    const after = JSON.parse(updated.body) as Record<string, unknown>;
    assert.equal(after['requests_per_second'], 0);
    assert.deepEqual(after['custom_headers'], {});
    for (const field of [
      'enable_port_scanning',
      'port_scanning_avoid_list',
      'port_scanning_force_list',
      'port_scanning_include_recommended_ports',
    ]) {
      assert.deepEqual(after[field], current[field], `${field} keeps its value`);
    }
    const { brute_force: _, ...missingOne } = older;
    const refused = await script('PUT', `/rest/v2/domains/${zoneDomain}/settings/`, missingOne);
    assert.equal(refused.statusCode, 400);
    assert.equal(decode(ClientError, refused.body).code, 2422);
  });

  it('answers another team 404 for every token of this one, exactly as for tokens that do not exist', async () => {
    const other = { key: rival.key };
    const unknownToken = 'f'.repeat(32);
    const domainReads = [
      'subdomains/',
      'findings/',
      'findings/paginated/',
      `findings/${findingUuid}/`,
      'findinguuids/',
    ];
    for (const path of domainReads) {
      for (const token of [ipDomain, zoneDomain, unknownToken]) {
        const res = await h.send('GET', `/rest/v2/domains/${token}/${path}`, other);
        assert.equal(res.statusCode, 404, `${path}: ${res.body}`);
        assert.deepEqual(decode(ClientError, res.body), v2Error(2014, 'Asset does not exist', ['token']));
      }
    }
    const reportReads = [
      '/rest/v2/fullreports/{t}/latest/',
      '/rest/v2/reports/{t}/latest/',
      '/rest/v2/reports/{t}/',
      '/rest/v2/findings/{t}/',
      `/rest/v2/findings/{t}/${report}/${findingUuid}/`,
    ];
    for (const path of reportReads) {
      for (const token of [profile, unknownToken]) {
        const res = await h.send('GET', path.replace('{t}', token), other);
        assert.equal(res.statusCode, 404, `${path}: ${res.body}`);
        assert.deepEqual(
          decode(ClientError, res.body),
          v2Error(2604, 'Scan profile does not exist', ['scanProfileToken']),
        );
      }
    }
    // Through its own domain, the other team cannot read this team's finding either, nor page with its marker.
    const own = await h.send('GET', `/rest/v2/domains/${rivalDomain}/findings/${findingUuid}/`, other);
    assert.deepEqual(
      decode(ClientError, own.body),
      v2Error(1900, `Vulnerability ${findingUuid} does not exist`, ['uuid']),
    );
    const page = decode(ClientFindingPage, await read(`/rest/v2/domains/${ipDomain}/findings/paginated/?pageSize=1`));
    assert.ok(page.next_marker !== undefined);
    const foreign = await h.send(
      'GET',
      `/rest/v2/domains/${rivalDomain}/findings/paginated/?marker=${encodeURIComponent(page.next_marker)}`,
      other,
    );
    assert.deepEqual(
      decode(ClientError, foreign.body),
      v2Error(4150, 'marker is not a marker of this listing', ['marker']),
    );
    assert.deepEqual(
      decodeArray(ClientDomain, await read('/rest/v2/domains/', rival)).map((d) => d.name),
      ['rival.example'],
    );
    assert.deepEqual(
      decodeArray(ClientDomain, await read('/rest/v2/domains/', await h.team('newcomer'))),
      [],
      'a team without assets reads an empty array',
    );
    assert.deepEqual(decodeArray(ClientFinding, await read(`/rest/v2/domains/${rivalDomain}/findings/`, rival)), []);
  });
});
