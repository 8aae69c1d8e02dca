import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { exportBatchSize } from '../../src/core/exports/vulnerability-export.ts';
import { finding, scan, scanTarget, type ScanTarget } from '../support/findings.ts';
import { openV3ListTeam, type V3ListTeam } from '../support/v3-list-contract.ts';

/** The official SARIF 2.1.0 schema (OASIS), as @microsoft/jest-sarif ships it (draft-04: read as draft-07 by ajv; its language pattern is no valid Unicode regular expression, so patterns are compiled without the u flag). */
function sarifValidator() {
  const path = createRequire(import.meta.url).resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
  const schema = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  delete schema['$schema'];
  delete schema['id'];
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
  addFormats(ajv);
  return ajv.compile(schema);
}

const csvLines = (body: string) => body.split('\r\n').filter((l) => l !== '');

/** Parses RFC 4180 text into records (quoted fields, doubled quotes, CRLF inside quotes). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  return records;
}

describe('v3 exports', () => {
  let team: V3ListTeam;
  let other: V3ListTeam['v3'];
  let target: ScanTarget;
  const bulk = exportBatchSize * 2 + 321;

  const get = (url: string, headers: Record<string, string> = {}, key = team.v3) =>
    team.h.send('GET', url, { key, headers });

  before(async () => {
    team = await openV3ListTeam('acme', ['example.com']);
    target = await scanTarget(team.h, 'acme', 'example.com');
    await team.h.team('rival');
    other = (await team.h.key('rival', '--v3')).key;
    await scan(team.h, target, [
      finding('formula', { title: '=HYPERLINK("http://evil")', severity: 'high', cwe: 79 }),
      finding('quoted', { title: 'Says "hi", then\r\nbreaks', severity: 'low' }),
      finding('plus', { title: '+1 dial', severity: 'critical', cwe: 89 }),
      finding('at', { title: '@SUM(A1)', severity: 'information' }),
      finding('minus', { title: '-2', severity: 'medium' }),
    ]);
    const many = Array.from({ length: bulk }, (_, i) =>
      // One check at many locations: one kind, one rule.
      finding(`bulk-${String(i).padStart(5, '0')}`, {
        title: `Bulk ${i}`,
        severity: 'low',
        definition: { ...finding('bulk').definition, title: 'Bulk check' },
      }),
    );
    await scan(team.h, target, many, { profile: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' });
    await team.h.runtime.store.ipAddresses.insertMany(
      [1, 2, 3].map((i) => ({
        teamId: team.teamId,
        assetId: target.asset.id,
        ipAddress: `10.0.0.${i}`,
        ipVersion: 'IPv4' as const,
        domainName: 'example.com',
        at: new Date(Date.UTC(2026, 0, i)),
        enrichment: undefined,
      })),
    );
    await team.h.runtime.store.ipAddresses.bumpVersion(team.teamId);
  });
  after(() => team.h.close());

  it('streams CSV per RFC 4180 with a header row and guards formulas', async () => {
    const res = await get(
      '/rest/v3/exports/vulnerabilities?format=csv&scan_profile_token[]=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="perimeter-vulnerabilities-.*\.csv"$/,
    );
    const records = parseCsv(res.body);
    assert.equal(records[0]![0], 'uuid');
    assert.equal(records[0]!.length, 16);
    assert.equal(records.length, 6);
    const titles = records.slice(1).map((r) => r[1]);
    assert.deepEqual(titles, [
      '\'=HYPERLINK("http://evil")',
      'Says "hi", then\r\nbreaks',
      "'+1 dial",
      "'@SUM(A1)",
      "'-2",
    ]);
    assert.ok(res.body.includes('"\'=HYPERLINK(""http://evil"")"'), 'quotes doubled inside a quoted field');
    for (const r of records) assert.equal(r.length, 16);
  });

  it('writes NDJSON, chosen by Accept when format is absent, and honours the filters', async () => {
    const res = await get('/rest/v3/exports/vulnerabilities?severity[]=high&severity[]=critical', {
      accept: 'application/x-ndjson',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
    const rows = res.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      rows.map((r) => r['severity']),
      ['high', 'critical'],
    );
    assert.equal(rows[0]!['asset_token'], target.asset.token);
    assert.match(String(rows[0]!['created_at']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const byStatus = await get('/rest/v3/exports/vulnerabilities?format=ndjson&status[]=patched');
    assert.equal(byStatus.body, '');
  });

  it(`streams ${bulk} rows across several batches in order`, async () => {
    const res = await get(
      '/rest/v3/exports/vulnerabilities?format=ndjson&scan_profile_token[]=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    );
    assert.equal(res.statusCode, 200);
    const titles = res.body
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { title: string }).title);
    assert.equal(titles.length, bulk);
    assert.deepEqual(
      titles,
      Array.from({ length: bulk }, (_, i) => `Bulk ${i}`),
    );
    const all = await get('/rest/v3/exports/vulnerabilities', { accept: 'text/csv' });
    assert.equal(parseCsv(all.body).length, bulk + 5 + 1);
  });

  it('writes SARIF 2.1.0 that validates against the official schema', async () => {
    const res = await get(
      '/rest/v3/exports/vulnerabilities?format=sarif&scan_profile_token[]=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/sarif\+json/);
    const log = JSON.parse(res.body) as {
      version: string;
      runs: Array<{
        tool: { driver: { name: string; rules: Array<{ id: string; properties: { tags: string[] }; help: unknown }> } };
        results: Array<{
          ruleId: string;
          level: string;
          locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }>;
          partialFingerprints: Record<string, string>;
        }>;
      }>;
    };
    const validate = sarifValidator();
    assert.ok(validate(log), JSON.stringify(validate.errors, null, 2));
    assert.equal(log.version, '2.1.0');
    assert.equal(log.runs.length, 1);
    const run = log.runs[0]!;
    assert.equal(run.tool.driver.name, 'perimeter');
    assert.equal(run.results.length, 5);
    assert.deepEqual(
      run.results.map((r) => r.level),
      ['error', 'note', 'error', 'note', 'warning'],
    );
    const rule = run.tool.driver.rules.find((r) => r.id === run.results[0]!.ruleId)!;
    assert.ok(rule.properties.tags.includes('external/cwe/cwe-79'));
    assert.ok(rule.help !== undefined);
    assert.equal(
      run.results[0]!.locations[0]!.physicalLocation.artifactLocation.uri,
      'https://app.example.com/formula',
    );
    assert.match(Object.values(run.results[0]!.partialFingerprints)[0]!, /^[0-9a-f]{40}$/);
    const big = await get('/rest/v3/exports/vulnerabilities?format=sarif');
    const whole = JSON.parse(big.body) as typeof log;
    assert.ok(validate(whole), JSON.stringify(validate.errors, null, 2));
    assert.equal(whole.runs[0]!.results.length, bulk + 5);
    assert.equal(whole.runs[0]!.tool.driver.rules.length, 6, 'one rule per kind of finding');
  });

  it('exports the inventories as CSV and NDJSON with their filters', async () => {
    const csv = await get('/rest/v3/exports/ips?format=csv');
    assert.equal(csv.statusCode, 200, csv.body);
    const records = parseCsv(csv.body);
    assert.equal(records[0]![1], 'ip_address');
    assert.ok(records[0]!.includes('autonomous_system.name'));
    assert.deepEqual(
      records.slice(1).map((r) => r[1]),
      ['10.0.0.1', '10.0.0.2', '10.0.0.3'],
    );
    const filtered = await get('/rest/v3/exports/ips?format=ndjson&first_seen_after=2026-01-01T12:00:00Z');
    assert.deepEqual(
      filtered.body
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { ip_address: string }).ip_address),
      ['10.0.0.2', '10.0.0.3'],
    );
    for (const name of ['ports', 'technologies', 'breaches']) {
      const res = await get(`/rest/v3/exports/${name}?format=csv`);
      assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
      assert.equal(csvLines(res.body).length, 1, `${name}: the header row`);
      const nd = await get(`/rest/v3/exports/${name}`, { accept: 'application/x-ndjson' });
      assert.equal(nd.statusCode, 200);
      assert.equal(nd.body, '');
    }
    const bad = await get('/rest/v3/exports/ports?status=AJAR');
    assert.equal(bad.statusCode, 400);
  });

  it('answers an unknown format with the malformed-parameter problem naming format', async () => {
    for (const url of ['/rest/v3/exports/vulnerabilities?format=xlsx', '/rest/v3/exports/ips?format=sarif']) {
      const res = await get(url);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const body = JSON.parse(res.body) as { type: string; detail: string };
      assert.equal(body.type, '/problems/4150');
      assert.match(body.detail, /format/);
    }
    const bad = await get('/rest/v3/exports/vulnerabilities?severity[]=huge');
    assert.equal(bad.statusCode, 400);
  });

  it('needs the list: a plan without the inventory lists exports none of them', async () => {
    await team.h.team('small', { plan: 'starter' });
    const small = (await team.h.key('small', '--v3')).key;
    const ips = await get('/rest/v3/exports/ips?format=csv', {}, small);
    assert.equal(ips.statusCode, 403, ips.body);
    assert.equal((JSON.parse(ips.body) as { type: string }).type, '/problems/1009');
    const vulns = await get('/rest/v3/exports/vulnerabilities?format=csv', {}, small);
    assert.equal(vulns.statusCode, 200);
    assert.equal(parseCsv(vulns.body).length, 1);
  });

  it("shows another team's key nothing", async () => {
    const res = await get('/rest/v3/exports/vulnerabilities?format=ndjson', {}, other);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, '');
    const ips = await get('/rest/v3/exports/ips?format=ndjson', {}, other);
    assert.equal(ips.body, '');
    const byAsset = await get(
      `/rest/v3/exports/vulnerabilities?format=ndjson&asset_token[]=${target.asset.token}`,
      {},
      other,
    );
    assert.equal(byAsset.body, '');
  });
});
