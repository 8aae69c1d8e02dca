import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseZone, type ZoneRecord } from '../../src/engine/dns/zone-parser.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { runBindTool, startBind, type BindServer } from '../support/bind-server.ts';
import { createHarness, v2Error, type Harness, type TestKey } from '../support/harness.ts';
import { waitUntil } from '../support/test-jobs.ts';

const zoneText = `$ORIGIN example.test.
$TTL 1h
@       IN SOA ns1 hostmaster 2026112201 7200 3600 1209600 300
        IN NS  ns1
        IN NS  ns.provider.net.
ns1     IN A   192.0.2.53
www     IN A   192.0.2.10
        IN AAAA 2001:db8::10
api     IN CNAME www
deep.sub IN TXT "v=spf1 -all"
mail    IN MX  10 mx.provider.net.
`;
const indexedNames = [
  'example.test',
  'ns1.example.test',
  'www.example.test',
  'api.example.test',
  'deep.sub.example.test',
  'mail.example.test',
];

describe('DNS zones', () => {
  let h: Harness;
  let bind: BindServer;
  let owner: TestKey;
  let rootToken = '';

  before(async () => {
    bind = await startBind([
      { name: 'example.test', text: zoneText },
      {
        name: 'closed.test',
        text: '$TTL 300\n@ IN SOA ns1 hm 1 2 3 4 5\n@ IN NS ns1\nns1 IN A 192.0.2.1\n',
        allowTransfer: [],
      },
    ]);
    h = await createHarness({ dnsResolvers: [bind.address], egressAllow: ['127.0.0.0/8'] });
    owner = await h.team('zones');
    rootToken = (await h.send('POST', '/rest/v2/assets/', { key: owner.key, body: { name: 'example.test' } })).json()
      .token;
    await h.admin('asset', 'verify', 'example.test');
  });
  after(async () => {
    await h.close();
    await bind.stop();
  });

  const subdomains = async () => {
    const res = await h.send('GET', `/rest/v2/assets/${rootToken}/subdomains/?pageSize=1000`, { key: owner.key });
    return res.json().assets as Array<{ name: string; added_by: string[]; status: string; monitored: boolean }>;
  };

  /** Every stored zone-file record of the team's names, as [type, ttl, data]. */
  const storedRecords = async () => {
    const rows = await h.runtime.database.db
      .selectFrom('dns_names')
      .select('records_zone_file')
      .orderBy('rname')
      .execute();
    return rows.flatMap((r) =>
      r.records_zone_file === null ? [] : (JSON.parse(r.records_zone_file) as Array<[string, number, string]>),
    );
  };

  describe('zone file upload', () => {
    it("indexes the names under the team's assets, read as raw text whatever the Content-Type", async () => {
      const res = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', {
        key: owner.key,
        body: zoneText,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { indexed: indexedNames.length });
      const subs = await subdomains();
      assert.deepEqual(subs.map((s) => s.name).sort(), indexedNames.slice(1).sort());
      for (const s of subs) assert.deepEqual([s.added_by, s.status, s.monitored], [['zone-file'], 'verified', false]);
      const records = await storedRecords();
      assert.ok(records.some(([type, , data]) => type === 'AAAA' && data === '2001:db8::10'));
      assert.equal(
        records.some(([type, , data]) => data.includes('provider.net') && type === 'A'),
        false,
      );
    });

    it('refreshes on a second upload without twins', async () => {
      const before = await storedRecords();
      const res = await h.send('POST', '/rest/v2/zone/file/?origin=example.test.', { key: owner.key, body: zoneText });
      assert.deepEqual(res.json(), { indexed: indexedNames.length });
      assert.deepEqual(await storedRecords(), before);
      assert.equal((await subdomains()).length, indexedNames.length - 1);
    });

    it("adds the zone as an asset of a team without it, and leaves this team's names alone (see zone-adds-apex.test.ts)", async () => {
      const before = await subdomains();
      const stranger = await h.team('zones-stranger');
      const res = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', {
        key: stranger.key,
        body: zoneText,
      });
      assert.deepEqual(res.json(), { indexed: indexedNames.length });
      assert.deepEqual(await subdomains(), before);
    });

    it('answers 2421 naming the line, and indexes nothing of a file that fails late', async () => {
      const bad = `$ORIGIN example.test.\n$TTL 1h\nlate1 IN A 192.0.2.1\nlate2 IN A 192.0.2.2\nlate3 IN A 999.1.1.1\n`;
      const res = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', { key: owner.key, body: bad });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 2421);
      assert.match(res.json().message, /^Zone file malformed: line 5: /);
      assert.equal(
        (await subdomains()).some((s) => s.name.startsWith('late')),
        false,
        'atomic: nothing of the file was kept',
      );
    });

    it('refuses $INCLUDE with 2421', async () => {
      const res = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', {
        key: owner.key,
        body: '$INCLUDE /etc/passwd\n',
      });
      assert.equal(res.json().code, 2421);
      assert.match(res.json().message, /line 1/);
    });

    it('answers 2411 for a malformed origin and assumes the root zone without one', async () => {
      const res = await h.send('POST', '/rest/v2/zone/file/?origin=not%20a%20zone', { key: owner.key, body: zoneText });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res.json(),
        v2Error(2411, 'Zone origin malformed: "not a zone" is not a domain name', ['origin']),
      );
      const absolute = await h.send('POST', '/rest/v2/zone/file/', {
        key: owner.key,
        body: 'rootless.example.test. 300 IN A 192.0.2.9\n',
      });
      assert.deepEqual(absolute.json(), { indexed: 1 });
    });

    it('answers 1050 to an upload of no bytes, and indexes a file of comments alone as an empty zone', async () => {
      const before = (await subdomains()).length;
      const empty = await h.send('POST', '/rest/v2/zone/file/?origin=empty.example.test', {
        key: owner.key,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(empty.statusCode, 400);
      assert.deepEqual(empty.json(), v2Error(1050, 'Request body missing: send the zone file as the request body'));
      const lookup = await h.send('POST', '/rest/v2/zone/lookup/file/', { key: owner.key });
      assert.deepEqual(
        [lookup.statusCode, lookup.json()],
        [400, v2Error(1050, 'Request body missing: send the names, one per line, as the request body')],
      );
      assert.equal((await subdomains()).length, before, 'nothing indexed, no apex added');
      const comments = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', {
        key: owner.key,
        body: '; nothing here\n',
      });
      assert.deepEqual(comments.json(), { indexed: 0 });
    });

    it("expands $GENERATE as BIND does: the names and records indexed are named-compilezone's", async () => {
      const zone = 'gen.example.test';
      const text = [
        '$TTL 300',
        '@ SOA ns1 hostmaster 1 7200 3600 1209600 300',
        '@ NS ns1',
        'ns1 A 192.0.2.53',
        '$GENERATE 1-20 host$ A 192.0.2.$',
        '$GENERATE 1-9/4 mx${0,2} 60 IN MX "10 host$"',
        '$GENERATE 250-251 ${0,3,n}.v6 IN 120 PTR host${-249}.gen.example.test.',
        '$GENERATE 1-2 txt$ TXT "\\"v ${0,3,x}\\" \\$"',
        '',
      ].join('\n');
      const res = await h.send('POST', `/rest/v2/zone/file/?origin=${zone}`, { key: owner.key, body: text });
      assert.equal(res.statusCode, 200, res.body);
      // BIND's expansion, read back by the parser into canonical text.
      const dir = mkdtempSync(join(tmpdir(), 'perimeter-generate-'));
      const file = join(dir, 'gen.zone');
      writeFileSync(file, text);
      const compiled = runBindTool('named-compilezone', ['-k', 'ignore', '-i', 'none', '-q', '-o', '-', zone, file]);
      rmSync(dir, { recursive: true });
      assert.equal(compiled.status, 0, compiled.stderr);
      const bind: ZoneRecord[] = [];
      for await (const record of parseZone([compiled.stdout], { origin: zone })) bind.push(record);
      const expected = new Map<string, string[]>();
      for (const r of bind)
        expected.set(r.name, [...(expected.get(r.name) ?? []), JSON.stringify([r.type, r.ttl, r.data])]);
      assert.equal(expected.size, 29, [...expected.keys()].join(' '));
      assert.deepEqual(res.json(), { indexed: expected.size });
      const rows = await h.runtime.database.db.selectFrom('dns_names').select(['rname', 'records_zone_file']).execute();
      const stored = new Map<string, string[]>();
      for (const row of rows) {
        const name = row.rname.split('.').reverse().join('.');
        if (name === zone || name.endsWith(`.${zone}`))
          stored.set(
            name,
            (JSON.parse(row.records_zone_file ?? '[]') as unknown[]).map((r) => JSON.stringify(r)).sort(),
          );
      }
      assert.deepEqual(
        new Map([...stored].sort()),
        new Map([...expected].map(([name, records]) => [name, records.sort()] as const).sort()),
      );
    });

    it('counts $GENERATE records toward the record limit of a zone file: a range past it is 2421 naming the line, and nothing is indexed', async () => {
      const text = '$TTL 300\nover1 A 192.0.2.1\nover2 A 192.0.2.2\n$GENERATE 1-999999 over-$ A 192.0.2.3\n';
      const res = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', { key: owner.key, body: text });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res.json(),
        v2Error(
          2421,
          'Zone file malformed: line 4: the zone file holds more than 1000000 records, the most one zone file may hold (this $GENERATE adds 999999)',
        ),
      );
      assert.equal(
        (await subdomains()).some((s) => s.name.startsWith('over')),
        false,
      );
    });

    it('answers 1052 past 5 MB', async () => {
      const res = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', {
        key: owner.key,
        body: `;${'x'.repeat(5 * 1024 * 1024)}\n`,
      });
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().code, 1052);
    });

    it('checks the signature over the streamed bytes and keeps nothing when it does not match', async () => {
      const signed = await h.key('zones', '--signing');
      const good = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', {
        key: signed.key,
        secret: signed.secret!,
        body: 'signed 300 IN A 192.0.2.77\n',
      });
      assert.deepEqual(good.json(), { indexed: 1 });
      const forged = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', {
        key: signed.key,
        body: 'forged IN A 192.0.2.78\n', // malformed too (no TTL): the bad signature still wins
        headers: { 'x-service-timestamp': String(Math.floor(Date.now() / 1000)), 'x-service-signature': 'AAAA' },
      });
      assert.deepEqual(forged.json(), v2Error(1003, 'Request signature invalid'));
      assert.equal(
        (await subdomains()).some((s) => s.name === 'forged.example.test'),
        false,
      );
    });
  });

  describe('zone transfer', () => {
    it('transfers a zone over AXFR and indexes it like a zone file, body or query', async () => {
      let res = await h.send('POST', '/rest/v2/zone/transfer/', {
        key: owner.key,
        body: { nameServer: bind.address, zone: 'example.test' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { indexed: indexedNames.length });
      res = await h.send('POST', `/rest/v2/zone/transfer/?nameServer=${bind.address}&zone=example.test`, {
        key: owner.key,
        headers: { 'content-type': 'application/json' },
      });
      assert.deepEqual(res.json(), { indexed: indexedNames.length });
      const www = (await subdomains()).find((s) => s.name === 'www.example.test');
      assert.deepEqual(www?.added_by, ['zone-file', 'zone-transfer']);
    });

    it('answers 2412 and 2413 for a malformed server or zone', async () => {
      let res = await h.send('POST', '/rest/v2/zone/transfer/', {
        key: owner.key,
        body: { nameServer: 'not a server', zone: 'example.test' },
      });
      assert.deepEqual(
        res.json(),
        v2Error(2412, 'Zone server malformed: "not a server" is not a host name or IP address with an optional :port', [
          'nameServer',
        ]),
      );
      res = await h.send('POST', '/rest/v2/zone/transfer/', {
        key: owner.key,
        body: { nameServer: bind.address, zone: 'bad zone!' },
      });
      assert.deepEqual(res.json(), v2Error(2413, 'Zone name malformed: "bad zone!" is not a domain name', ['zone']));
      res = await h.send('POST', '/rest/v2/zone/transfer/', { key: owner.key, body: { zone: 'example.test' } });
      assert.equal(res.json().code, 2412);
    });

    it('answers 2412 (400) saying why when the server refuses the transfer (see zone-transfer-failures.test.ts)', async () => {
      const res = await h.send('POST', '/rest/v2/zone/transfer/', {
        key: owner.key,
        body: { nameServer: bind.address, zone: 'closed.test' },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 2412);
      assert.deepEqual(res.json().parameters, ['nameServer']);
      assert.match(
        res.json().message,
        /^Zone transfer of closed\.test from 127\.0\.0\.1:\d+ failed: the name server refused the transfer/,
      );
    });
  });

  describe('zone lookup jobs', () => {
    it('answers a job UUID at once, then resolves through the worker from queued to done', async () => {
      const list = [
        'www.example.test',
        'ns1.example.test',
        'missing.example.test',
        'www.example.test',
        'outside.org',
        '192.0.2.1',
        '',
        'bad name',
      ].join('\n');
      const res = await h.send('POST', '/rest/v2/zone/lookup/file/', {
        key: owner.key,
        body: list,
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(res.statusCode, 202);
      const uuid = res.json().lookup_job_uuid as string;
      const status = await h.send('GET', `/rest/v2/zone/lookup/${uuid}/`, { key: owner.key });
      assert.deepEqual(status.json(), { uuid, status: 'queued', total: 7, succeeded: 0, failed: 0 });
      await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 100 });
      const done = await waitUntil('the lookup to finish', async () => {
        const body = (await h.send('GET', `/rest/v2/zone/lookup/${uuid}/`, { key: owner.key })).json();
        return body.status === 'done' ? body : undefined;
      });
      assert.deepEqual(done, { uuid, status: 'done', total: 7, succeeded: 2, failed: 5 });
      const www = (await subdomains()).find((s) => s.name === 'www.example.test');
      assert.ok(www?.added_by.includes('zone-lookup'));
    });

    it("answers 6001, 6002 and hides another team's job", async () => {
      let res = await h.send('GET', '/rest/v2/zone/lookup/not-a-uuid/', { key: owner.key });
      assert.deepEqual(res.json(), v2Error(6001, 'Lookup job UUID malformed: expected a UUID', ['lookupJobUUID']));
      res = await h.send('GET', '/rest/v2/zone/lookup/0f8fad5b-d9cb-469f-a165-70867728950e/', { key: owner.key });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(
        res.json(),
        v2Error(6002, 'Lookup job does not exist (unknown, or its status expired 10 days after upload)', [
          'lookupJobUUID',
        ]),
      );
      const mine = (
        await h.send('POST', '/rest/v2/zone/lookup/file/', { key: owner.key, body: 'www.example.test\n' })
      ).json().lookup_job_uuid;
      const other = await h.team('zones-other');
      res = await h.send('GET', `/rest/v2/zone/lookup/${mine}/`, { key: other.key });
      assert.equal(res.json().code, 6002);
    });
  });
});
