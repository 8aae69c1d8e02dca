import assert from 'node:assert/strict';
import type { Asset } from '../../src/core/assets/asset.types.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { TestDnsServer } from './dns-server.ts';
import { finding, scan, type ScanTarget } from './findings.ts';
import { createHarness, type Harness } from './harness.ts';
import { ClientError, decode, type ClientFindingT } from './legacy-client.ts';
import { startTargetSite, type TargetSites } from './target-site.ts';

// The setup the older v2 endpoint tests (test/integration/legacy-v2-*.test.ts) share: an
// enterprise team `legacy` with a verified 127.0.0.1 asset, the domain example.com with the
// subdomain asset app.example.com, and findings on both recorded at three known times (T1–T3).

export const T1 = '2026-03-01T10:00:00Z';
export const T2 = '2026-03-01T11:00:00Z';
export const T3 = '2026-03-01T12:00:00Z';

/** An ISO time as Unix seconds. */
export const second = (iso: string) => Date.parse(iso) / 1000;
/** The titles of findings, in order. */
export const titles = (list: ClientFindingT[]) => list.map((f) => f.title);

/** A finding with every part an old finding maps: CVSS, OWASP, references, details of several kinds. */
function richFinding(checkId: string, severity: FindingInput['severity'], score: number, host: string): FindingInput {
  return finding(checkId, {
    host,
    location: `https://${host}/${checkId}`,
    severity,
    cwe: 79,
    cvss: { cvss_3_1: { score, severity, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' } },
    owasp: [{ classification: 'A03', year: 2021 }],
    references: [{ link: 'https://owasp.org/Top10/A03_2021-Injection/', name: 'OWASP A03', source: 'owasp' }],
    request: {
      method: 'GET',
      url: `https://${host}/${checkId}?q=1`,
      body: '',
      headers: [{ name: 'accept', value: '*/*' }],
    },
    details: {
      text: [{ topic: 'Evidence', highlights: [], value: `evidence of ${checkId}` }],
      markdown: [{ topic: 'Remediation', highlights: [], value: '**Encode** output', fallback: 'Encode output' }],
    },
  });
}

/**
 * The server, team, assets and findings of the older v2 tests. Its fields are set by open() (call
 * it in a `before`); send, get and error are bound, so a test file can destructure them at once.
 */
export class LegacyV2Fixture {
  h!: Harness;
  key!: string;
  sites!: TargetSites;
  readonly dns = new TestDnsServer();
  /** The token of the verified 127.0.0.1 asset. */
  ipAsset!: string;
  example!: Asset;
  sub!: Asset;

  send = (method: string, url: string, body?: unknown) =>
    this.h.send(method, url, body === undefined ? { key: this.key } : { key: this.key, body });

  get = async (url: string, status = 200) => {
    const res = await this.send('GET', url);
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    return res.body;
  };

  error = async (url: string, status: number, expected: Record<string, unknown>) => {
    const res = await this.send('GET', url);
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    assert.deepEqual(decode(ClientError, res.body), expected);
  };

  async open(): Promise<void> {
    const { dns, send } = this;
    // Ownership checks of the names added here ask this local server (NXDOMAIN), never the network.
    await dns.start();
    const h = (this.h = await createHarness({ endpointValidationTimeoutMs: 3000, dnsResolvers: [dns.address] }));
    this.key = (await h.team('legacy', { plan: 'enterprise' })).key;
    this.sites = await startTargetSite();
    this.ipAsset = (await send('POST', '/rest/v2/assets/', { name: '127.0.0.1' })).json().token;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'legacy');
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });

    // A domain with a subdomain asset, and findings on both recorded at three known times.
    const team = (await h.runtime.store.teams.findByName('legacy'))!;
    assert.equal((await send('POST', '/rest/v2/assets/', { name: 'example.com' })).statusCode, 200);
    assert.equal((await send('POST', '/rest/v2/assets/', { name: 'app.example.com' })).statusCode, 202);
    this.example = (await h.runtime.store.assets.findByName(team.id, 'example.com'))!;
    this.sub = (await h.runtime.store.assets.findByName(team.id, 'app.example.com'))!;
    const onRoot: ScanTarget = { team, asset: this.example };
    const onSub: ScanTarget = { team, asset: this.sub };
    await scan(h, onRoot, [richFinding('header', 'low', 3.1, 'example.com')], { at: new Date(T1) });
    await scan(
      h,
      onSub,
      [richFinding('xss', 'medium', 6.1, 'app.example.com'), richFinding('rce', 'critical', 9.8, 'app.example.com')],
      { at: new Date(T2) },
    );
    // A complete scan of the root that no longer sees `header`: it reads patched.
    await scan(h, onRoot, [richFinding('git', 'high', 7.5, 'example.com')], { at: new Date(T3) });
  }

  async close(): Promise<void> {
    await this.h.close();
    await this.sites.stop();
    await this.dns.stop();
  }
}
