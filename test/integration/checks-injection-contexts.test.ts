import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { injectionChecks, pathOf, scanTwins, summary } from '../support/fixture-scan.ts';
import type { VulnerableSites } from '../support/vulnerable-site/index.ts';
import { injectionContextsModule } from '../support/vulnerable-site/injection-contexts.ts';

const evidenceText = (finding: FindingInput | undefined): string => finding?.details?.text?.[0]?.value ?? '';

/** How each spot of the module must say it was confirmed. */
const confirmations: Record<string, RegExp> = {
  'xss-attribute-double':
    /double-quoted value of the value attribute of a <input> element.*a new onmouseover attribute/,
  'xss-attribute-single': /single-quoted value of the class attribute of a <div> element.*a new onmouseover attribute/,
  'xss-script-string': /single-quoted string in a <script> block.*as script code, outside any string/,
  'xss-url-attribute': /URL attribute href of a <a> element.*a javascript: URL/,
  'xss-post-field': /form field message.*the HTML text of a <blockquote> element.*a new <prmtr[0-9a-f]+> element/,
  'sqli-time-postgres': /Confirmed time-based \(PostgreSQL, string context\) by timing, twice/,
  'sqli-json-field': /JSON field filter\.category.*Confirmed error-based.*MySQL/,
  'sqli-header': /request header User-Agent.*Confirmed error-based.*Microsoft SQL Server/,
  'sqli-cookie': /cookie lang.*Confirmed error-based.*SQLite/,
};

describe('injection checks in every context, point and technique', () => {
  let sites: VulnerableSites;
  let vulnerable: { status: string; findings: FindingInput[] };
  let safe: { status: string; findings: FindingInput[] };
  before(async () => {
    ({ sites, vulnerable, safe } = await scanTwins());
  });
  after(() => sites.stop());

  it('finds every spot of the module once, saying the context or technique that confirmed it', () => {
    assert.equal(vulnerable.status, 'completed');
    for (const spot of injectionContextsModule.spots) {
      const found = vulnerable.findings.filter(
        (f) => f.checkId === spot.checkId && pathOf(f.location) === spot.location,
      );
      assert.equal(
        found.length,
        1,
        `${spot.id}: ${spot.checkId} at ${spot.location} (found: ${summary(vulnerable.findings).join(', ')})`,
      );
      assert.match(evidenceText(found[0]), confirmations[spot.id]!, spot.id);
      assert.ok(found[0]!.request !== undefined && found[0]!.response !== undefined, spot.id);
    }
    const expected = new Set(injectionContextsModule.spots.map((s) => `${s.checkId} ${s.location}`));
    assert.deepEqual(
      summary(
        vulnerable.findings.filter((f) => pathOf(f.location).startsWith('/ctx/') && injectionChecks.has(f.checkId)),
      ).filter((s) => !expected.has(s)),
      [],
    );
  });

  it('posts the JSON body of the fetch() call it read in the page script, with the payload in the nested field', () => {
    const finding = vulnerable.findings.find(
      (f) => f.checkId === 'sql-injection' && pathOf(f.location) === '/ctx/api/search?json=filter.category',
    )!;
    assert.equal(finding.request?.method, 'POST');
    assert.deepEqual(JSON.parse(finding.request?.body ?? ''), { filter: { category: "shoes'" }, limit: 10 });
    assert.ok(finding.request?.headers.some((h) => h.name === 'content-type' && h.value === 'application/json'));
    const posts = sites.vulnerable.requests.filter((r) => r.method === 'POST');
    assert.ok(
      posts.some((r) => r.path === '/ctx/api/stats' && r.headers['content-type'] === 'application/json'),
      'the call in the external script was posted too',
    );
    assert.ok(!posts.some((r) => r.path === '/ctx/api/save'), 'a call whose body is a variable is never posted');
  });

  it('highlights the breakout payload in the recorded answer', () => {
    for (const spot of injectionContextsModule.spots.filter((s) => s.checkId === 'reflected-xss')) {
      const finding = vulnerable.findings.find(
        (f) => f.checkId === 'reflected-xss' && pathOf(f.location) === spot.location,
      )!;
      const highlight = finding.details?.text?.[0]?.highlights[0];
      assert.ok(highlight !== undefined, spot.id);
      assert.equal(
        finding.response?.body.slice(highlight.offset, highlight.offset + highlight.length),
        highlight.value,
        spot.id,
      );
      assert.match(highlight.value, /prmtr[0-9a-f]+/, spot.id);
    }
  });

  it('reports nothing on the safe twin, though every context was probed there', () => {
    assert.equal(safe.status, 'completed');
    assert.deepEqual(
      summary(safe.findings.filter((f) => injectionChecks.has(f.checkId) || pathOf(f.location).startsWith('/ctx/'))),
      [],
    );
    const sent = (path: string, name: string): string[] =>
      sites.safe.requests
        .map((r) => new URL(r.path, 'http://fixture.invalid/'))
        .filter((u) => u.pathname === path)
        .map((u) => u.searchParams.get(name) ?? '');
    assert.ok(
      sent('/ctx/xss/link', 'url').some((v) => v.startsWith('javascript:prmtr')),
      'the URL breakout was tried',
    );
    assert.ok(
      sent('/ctx/xss/script', 'user').some((v) => v.startsWith('"-prmtr')),
      'the script string breakout was tried',
    );
    assert.ok(
      sent('/ctx/xss/encoded', 'term').some((v) => v.startsWith('" onmouseover="prmtr')),
      'the attribute breakout was tried on the encoded attribute',
    );
    assert.ok(
      sites.safe.requests.some((r) => r.path === '/ctx/prefs/banner' && /lang=en'/.test(r.headers.cookie ?? '')),
      'the site cookie was tested',
    );
    assert.ok(
      sites.safe.requests.some((r) => r.path === '/ctx/sqli/visit' && (r.headers['user-agent'] ?? '').endsWith("'")),
      'the User-Agent was tested',
    );
  });

  it('reports nothing on the route that HTML-encodes inside attributes, on the vulnerable site too', () => {
    assert.deepEqual(summary(vulnerable.findings.filter((f) => pathOf(f.location).startsWith('/ctx/xss/encoded'))), []);
  });
});
