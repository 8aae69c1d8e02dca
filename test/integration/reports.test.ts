// Reports of a scan and of an asset (GET /rest/v3/reports/scans/{t} and /reports/assets/{t}):
// three scans of one profile recorded through the ingestion path with their findings linked as
// the scan runner links them, the HTML checked for its counts, its severity groups, its changes
// since the previous scan and its escaping of evidence, and the PDF printed by the server's
// Chromium read back with poppler (pdftotext for its text, pdftoppm for its first page).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inflateSync } from 'node:zlib';
import { defaultScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { Scan, ScanProfile } from '../../src/core/scans/scan.types.ts';
import { ScanIngestion } from '../../src/core/vulnerabilities/ingestion.service.ts';
import type { FindingInput, Severity } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { finding, scanTarget, type ScanTarget } from '../support/findings.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';

const T1 = new Date('2026-05-04T08:00:00Z');
const T2 = new Date('2026-05-11T08:00:00Z');
const T3 = new Date('2026-05-18T08:00:00Z');
const xss = '<script>alert("report")</script>';

/** A finding with the parts a report shows: CWE, CVSS, evidence, remediation. */
function rich(checkId: string, severity: Severity, title: string, extra: Partial<FindingInput> = {}): FindingInput {
  return finding(checkId, {
    host: 'shop.example.com',
    location: `https://shop.example.com/${checkId}`,
    title,
    severity,
    cwe: 79,
    cvss: { cvss_3_1: { score: 6.1, severity, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' } },
    definition: {
      title,
      description: `Description of ${title}.`,
      risk: `Risk of ${title}.`,
      module_version: '1',
      module_release: new Date(Date.UTC(2026, 0, 1)),
      is_crowdsourced: false,
    },
    request: {
      method: 'GET',
      url: `https://shop.example.com/${checkId}?q=1`,
      body: '',
      headers: [{ name: 'accept', value: '*/*' }],
    },
    details: {
      markdown: [{ topic: 'Remediation', highlights: [], value: `**Fix** ${checkId}`, fallback: `Fix ${checkId} now` }],
    },
    ...extra,
  });
}

const findingA = rich('a', 'high', 'Outdated TLS configuration');
const findingB = rich('b', 'medium', 'Missing security headers');
const findingC = rich('c', 'low', 'Cookie without Secure flag');
const findingD = rich('d', 'critical', 'Reflected cross-site scripting', {
  cwe: 79,
  response: { status_code: 200, headers: [{ name: 'content-type', value: 'text/html' }], body: `<p>${xss}</p>` },
});
const findingE = rich('e', 'information', 'Server banner');
const findingF = rich('f', 'low', 'Directory listing');

/** A profile of the asset, written to the store as its creation would leave it. */
async function addProfile(h: Harness, target: ScanTarget, name: string): Promise<ScanProfile> {
  const now = new Date();
  return h.runtime.store.scanProfiles.insert({
    teamId: target.team.id,
    assetId: target.asset.id,
    token: randomBytes(16).toString('hex'),
    name,
    endpoint: `https://${target.asset.name}`,
    endpointKey: `https://${target.asset.name}:443:${name}`,
    scheme: 'https',
    port: 443,
    settings: { ...defaultScanProfileSettings },
    isActive: true,
    schedule: { frequency: 'never', first: null, next: null },
    created: now,
    updated: now,
  });
}

/** One scan of the profile at `at`: its findings ingested and linked to it, as the runner does, then ended. */
async function runScan(
  h: Harness,
  target: ScanTarget,
  profile: ScanProfile,
  findings: FindingInput[],
  at: Date,
  isEnded = true,
): Promise<Scan> {
  const store = h.runtime.store;
  const scan = (await store.scans.insertLive({
    teamId: target.team.id,
    profileId: profile.id,
    token: randomBytes(16).toString('hex'),
    trigger: 'api',
    endpoint: profile.endpoint,
    profileName: profile.name,
    created: at,
  }))!;
  if (!isEnded) return scan;
  const ingestion = new ScanIngestion(
    store,
    {
      teamId: target.team.id,
      asset: { id: target.asset.id, token: target.asset.token, name: target.asset.name },
      scanSource: 'application-scanning',
      scanProfileToken: profile.token,
      scannedAt: at,
    },
    { detailsPageBase: 'http://perimeter.test' },
    undefined,
    (tx, written) => tx.scans.linkFindings(scan.id, written),
  );
  for (const f of findings) await ingestion.add(f);
  await ingestion.finish(true);
  await store.scans.markRunning(scan.id, 'test', at);
  await store.scans.finish(scan.id, { status: 'completed', error: null, progress: scan.progress, ended: at });
  await store.scans.tallyFindings(scan.id);
  return scan;
}

/** The summary's count of a severity band (the counts table). */
function countOf(page: string, label: string): number {
  const match = new RegExp(`</span>${label}</td><td class="n">(\\d+)</td>`).exec(page);
  assert.ok(match !== null, `the summary counts ${label}`);
  return Number(match[1]);
}

/** The count of a change box (New, Regressed, Patched) and the titles it lists. */
function changeOf(page: string, cls: string): { count: number; titles: string[] } {
  const match = new RegExp(
    `<div class="change ${cls}"><h3>[A-Za-z]+ <span class="count">(\\d+)</span></h3>(.*?)</div>`,
    's',
  ).exec(page);
  assert.ok(match !== null, `the changes list ${cls}`);
  const titles = [...match[2]!.matchAll(/<\/span> (.*?) <span class="muted">/g)].map((m) => m[1]!);
  return { count: Number(match[1]), titles };
}

/** The finding titles under each severity heading of the findings section, in order. */
function groups(page: string): Array<{ band: string; titles: string[] }> {
  const section = page.slice(page.indexOf('<section class="findings">'));
  return section
    .split('<h2 class="band-title')
    .slice(1)
    .map((part) => ({
      band: /">([A-Za-z]+) <span/.exec(part)![1]!,
      titles: [...part.matchAll(/<span class="num">\d+\.<\/span> (.*?)<\/h3>/g)].map((m) => m[1]!),
    }));
}

/** Decodes an 8-bit RGB or RGBA PNG (what pdftoppm writes) to its pixels. */
function decodePng(file: Buffer): { width: number; height: number; channels: number; pixels: Buffer } {
  assert.equal(file.subarray(1, 4).toString(), 'PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 3;
  const data: Buffer[] = [];
  while (offset < file.length) {
    const length = file.readUInt32BE(offset);
    const type = file.subarray(offset + 4, offset + 8).toString();
    const body = file.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      assert.equal(body[8], 8, '8 bits per sample');
      channels = ({ 0: 1, 2: 3, 6: 4 } as Record<number, number>)[body[9]!]!;
    } else if (type === 'IDAT') data.push(body);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const upLeft = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      pixels[y * stride + x] = (line[x]! + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

describe(`reports of scans and assets (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  let v2Key: string;
  let target: ScanTarget;
  let scans: Scan[];
  let live: Scan;
  let otherScan: Scan;
  let otherTarget: ScanTarget;
  let work: string;

  before(async () => {
    h = await createHarness();
    await h.team('acme');
    key = (await h.key('acme', '--v3')).key;
    v2Key = (await h.key('acme')).key;
    await h.team('rival');
    otherKey = (await h.key('rival', '--v3')).key;
    target = await scanTarget(h, 'acme', 'shop.example.com');
    const profile = await addProfile(h, target, 'Shop front');
    scans = [
      await runScan(h, target, profile, [findingA, findingB, findingC], T1),
      await runScan(h, target, profile, [findingA, findingD, findingE], T2),
      await runScan(h, target, profile, [findingA, findingD, findingC, findingF], T3),
    ];
    live = await runScan(h, target, await addProfile(h, target, 'Running'), [], new Date(), false);
    otherTarget = await scanTarget(h, 'rival', 'rival.example.org');
    otherScan = await runScan(h, otherTarget, await addProfile(h, otherTarget, 'Rival'), [findingA], T1);
    work = mkdtempSync(join(tmpdir(), 'perimeter-reports-'));
  });
  after(async () => {
    await h.close();
    rmSync(work, { recursive: true, force: true });
  });

  const get = (url: string, k = key) => h.send('GET', url, { key: k });

  it('answers a scan report as one self-contained HTML page with counts by severity and a chart', async () => {
    const res = await get(`/rest/v3/reports/scans/${scans[2]!.token}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(String(res.headers['content-disposition']), /^inline; filename="scan-report-[0-9a-f]{32}\.html"$/);
    const page = res.body;
    assert.match(page, /^<!DOCTYPE html>/);
    assert.match(page, /<h1>Scan report: shop\.example\.com<\/h1>/);
    assert.match(page, /<th>Team<\/th><td>acme<\/td>/);
    assert.match(page, /<th>Started<\/th><td>2026-05-18 08:00 UTC<\/td>/);
    // The third scan saw a (high), d (critical), c (low) and f (low).
    assert.deepEqual(
      ['Critical', 'High', 'Medium', 'Low', 'Information'].map((label) => countOf(page, label)),
      [1, 1, 0, 2, 0],
    );
    assert.match(page, /<tr class="total"><td>Total<\/td><td class="n">4<\/td>/);
    assert.match(
      page,
      /<svg class="chart"[^>]*aria-label="Findings by severity: Critical 1, High 1, Medium 0, Low 2, Information 0"/,
    );
    // Self-contained: no script, no stylesheet, image, frame or font fetched from anywhere.
    assert.doesNotMatch(page, /<script|<link|<img|<iframe|<object|@import|url\(/i);
    assert.doesNotMatch(page, /\bsrc=/i);
  });

  it('groups the findings by severity, most severe first, with CWE, CVSS and remediation', async () => {
    const page = (await get(`/rest/v3/reports/scans/${scans[2]!.token}`)).body;
    assert.deepEqual(groups(page), [
      { band: 'Critical', titles: ['Reflected cross-site scripting'] },
      { band: 'High', titles: ['Outdated TLS configuration'] },
      { band: 'Low', titles: ['Cookie without Secure flag', 'Directory listing'] },
    ]);
    assert.match(page, /<th>CWE<\/th><td>CWE-79<\/td>/);
    assert.match(page, /6\.1 \(CVSS 3\.1\) CVSS:3\.1\/AV:N\/AC:L\/PR:N\/UI:R\/S:C\/C:L\/I:L\/A:N/);
    assert.match(page, /<p class="remediation">Fix d now<\/p>/);
    assert.match(page, /<h4>Request<\/h4><pre>GET https:\/\/shop\.example\.com\/d\?q=1\naccept: \*\/\*<\/pre>/);
  });

  it('escapes the evidence: markup in a response prints as text', async () => {
    const page = (await get(`/rest/v3/reports/scans/${scans[2]!.token}`)).body;
    assert.ok(
      page.includes(
        '<h4>Response</h4><pre>HTTP 200\ncontent-type: text/html\n\n&lt;p&gt;&lt;script&gt;alert(&quot;report&quot;)&lt;/script&gt;&lt;/p&gt;</pre>',
      ),
      'the response excerpt is escaped',
    );
    assert.ok(!page.includes(xss));
  });

  it('tells what changed since the previous scan of the profile: new, regressed, patched', async () => {
    const third = (await get(`/rest/v3/reports/scans/${scans[2]!.token}`)).body;
    assert.deepEqual(changeOf(third, 'new'), { count: 1, titles: ['Directory listing'] });
    assert.deepEqual(changeOf(third, 'regressed'), { count: 1, titles: ['Cookie without Secure flag'] });
    assert.deepEqual(changeOf(third, 'patched'), { count: 1, titles: ['Server banner'] });
    const second = (await get(`/rest/v3/reports/scans/${scans[1]!.token}`)).body;
    assert.deepEqual(changeOf(second, 'new'), {
      count: 2,
      titles: ['Reflected cross-site scripting', 'Server banner'],
    });
    assert.deepEqual(changeOf(second, 'regressed'), { count: 0, titles: [] });
    assert.deepEqual(changeOf(second, 'patched'), {
      count: 2,
      titles: ['Missing security headers', 'Cookie without Secure flag'],
    });
    const first = (await get(`/rest/v3/reports/scans/${scans[0]!.token}`)).body;
    assert.match(first, /is the profile's first: every finding it saw is new/);
    assert.equal(changeOf(first, 'new').count, 3);
  });

  it("answers an asset report: the asset's open findings and the changes of its latest scan", async () => {
    const res = await get(`/rest/v3/reports/assets/${target.asset.token}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    const page = res.body;
    assert.match(page, /<h1>Asset report: shop\.example\.com<\/h1>/);
    // Open: a, d, c (regression) and f; b and e are patched.
    assert.deepEqual(
      ['Critical', 'High', 'Medium', 'Low', 'Information'].map((label) => countOf(page, label)),
      [1, 1, 0, 2, 0],
    );
    assert.match(page, /; 2 closed \(patched, accepted risk, false positive\) are not listed/);
    assert.deepEqual(groups(page)[2], { band: 'Low', titles: ['Cookie without Secure flag', 'Directory listing'] });
    assert.match(page, /<td>Regression<\/td>/);
    assert.deepEqual(changeOf(page, 'regressed'), { count: 1, titles: ['Cookie without Secure flag'] });
    assert.ok(!page.includes(xss));
  });

  it("answers 404 alike for an unknown, malformed or another team's token and a scan still running", async () => {
    const cases: Array<[string, string]> = [
      [`/rest/v3/reports/scans/${'0'.repeat(32)}`, 'No finished scan with this token'],
      ['/rest/v3/reports/scans/not-a-token', 'No finished scan with this token'],
      [`/rest/v3/reports/scans/${otherScan.token}`, 'No finished scan with this token'],
      [`/rest/v3/reports/scans/${live.token}`, 'No finished scan with this token'],
      [`/rest/v3/reports/assets/${'0'.repeat(32)}`, 'No asset with this token'],
      ['/rest/v3/reports/assets/x', 'No asset with this token'],
      [`/rest/v3/reports/assets/${otherTarget.asset.token}`, 'No asset with this token'],
    ];
    for (const [url, detail] of cases) {
      const res = await get(`${url}?format=pdf`);
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.deepEqual(res.json(), {
        type: '/problems/not-found',
        title: 'Not Found',
        status: 404,
        detail,
        instance: url,
      });
    }
    // The other team reads its own scan.
    assert.equal((await get(`/rest/v3/reports/scans/${otherScan.token}`, otherKey)).statusCode, 200);
  });

  it('refuses a malformed format, and callers without a v3 key', async () => {
    const url = `/rest/v3/reports/scans/${scans[2]!.token}`;
    const bad = await get(`${url}?format=docx`);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json(), {
      type: '/problems/4150',
      title: 'Bad Request',
      status: 400,
      detail: 'format must be html or pdf',
      instance: url,
    });
    assert.equal((await h.send('GET', url)).statusCode, 401);
    assert.equal((await get(url, v2Key)).statusCode, 401);
  });

  it('prints the report to an A4 PDF whose text and first page read back with poppler', async () => {
    const res = await get(`/rest/v3/reports/scans/${scans[2]!.token}?format=pdf`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="scan-report-[0-9a-f]{32}\.pdf"$/);
    const pdf = res.rawPayload;
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    const file = join(work, 'scan.pdf');
    writeFileSync(file, pdf);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    for (const part of [
      'Scan report: shop.example.com',
      'Summary',
      'Changes since the previous scan',
      'Findings by severity',
      'Reflected cross-site scripting',
      'Directory listing',
      'CWE-79',
      'Fix d now',
      xss,
      'Page 1 of',
    ])
      assert.ok(text.includes(part), `the PDF reads "${part}"`);
    // A4: 595 x 842 points.
    const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
    assert.match(info, /Page size:\s+595\.\d+ x 84[12]\.\d+ pts \(A4\)/);
    execFileSync('pdftoppm', ['-png', '-r', '50', '-f', '1', '-l', '1', '-singlefile', file, join(work, 'page1')]);
    const png = join(work, 'page1.png');
    assert.ok(existsSync(png), 'pdftoppm rendered the first page');
    const { width, height, channels, pixels } = decodePng(readFileSync(png));
    assert.ok(width > 400 && height > 560, `${width}x${height}`);
    let ink = 0;
    let coloured = 0;
    for (let i = 0; i < width * height; i++) {
      const [r, g, b] = [pixels[i * channels]!, pixels[i * channels + 1]!, pixels[i * channels + 2]!];
      if (r < 200 || g < 200 || b < 200) ink += 1;
      if (Math.max(r, g, b) - Math.min(r, g, b) > 80) coloured += 1;
    }
    const share = ink / (width * height);
    assert.ok(share > 0.01 && share < 0.6, `the first page is not blank (${(share * 100).toFixed(1)}% ink)`);
    assert.ok(coloured > 200, `the chart's bars are drawn in colour (${coloured} pixels)`);
  });

  it('prints the asset report too', async () => {
    const res = await get(`/rest/v3/reports/assets/${target.asset.token}?format=pdf`);
    assert.equal(res.statusCode, 200);
    const file = join(work, 'asset.pdf');
    writeFileSync(file, res.rawPayload);
    const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    assert.ok(text.includes('Asset report: shop.example.com'));
    assert.ok(text.includes('Cookie without Secure flag'));
  });

  it('answers a problem body saying so when no browser is installed to print the PDF', async () => {
    const saved = process.env['PERIMETER_SCAN_BROWSER'];
    process.env['PERIMETER_SCAN_BROWSER'] = join(work, 'no-such-chromium');
    try {
      const url = `/rest/v3/reports/scans/${scans[2]!.token}`;
      const res = await get(`${url}?format=pdf`);
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      const body = res.json();
      assert.equal(body.type, '/problems/1909');
      assert.equal(body.instance, url);
      assert.match(body.detail, /^No browser is installed to print PDF reports \(looked for .*no-such-chromium\)/);
      // The HTML report needs no browser.
      assert.equal((await get(url)).statusCode, 200);
    } finally {
      if (saved === undefined) delete process.env['PERIMETER_SCAN_BROWSER'];
      else process.env['PERIMETER_SCAN_BROWSER'] = saved;
    }
  });
});
