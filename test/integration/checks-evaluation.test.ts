import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { pathOf, scanTwins, summary, type FixtureScan } from '../support/fixture-scan.ts';
import { deserializationModule } from '../support/vulnerable-site/deserialization.ts';
import { evaluationModule } from '../support/vulnerable-site/evaluation.ts';
import type { VulnerableSites } from '../support/vulnerable-site/index.ts';

const myChecks = new Set(['code-evaluation', 'insecure-deserialization']);
const mine = (findings: FindingInput[]): FindingInput[] => findings.filter((f) => myChecks.has(f.checkId));
const textOf = (finding: FindingInput | undefined): string => finding?.details?.text?.[0]?.value ?? '';

describe('code evaluation and insecure deserialisation on the vulnerable fixture site', () => {
  let sites: VulnerableSites;
  let vulnerable: FixtureScan;
  let safe: FixtureScan;
  const spots = [...evaluationModule.spots, ...deserializationModule.spots];
  const at = (checkId: string, location: string): FindingInput[] =>
    vulnerable.findings.filter((f) => f.checkId === checkId && pathOf(f.location) === location);

  before(async () => {
    ({ sites, vulnerable, safe } = await scanTwins());
  });
  after(() => sites.stop());

  it('finds every spot once, with CWE, CVSS 3.1 and 2.0, OWASP 2021, and nothing else', () => {
    assert.equal(vulnerable.status, 'completed');
    for (const spot of spots) {
      const found = at(spot.checkId, spot.location);
      assert.equal(found.length, 1, `${spot.id} (found: ${summary(mine(vulnerable.findings)).join(', ')})`);
      const finding = found[0]!;
      assert.equal(finding.cwe, spot.checkId === 'code-evaluation' ? 95 : 502);
      assert.ok(finding.cvss?.cvss_3_1 !== undefined && finding.cvss.cvss_2_0 !== undefined, spot.id);
      assert.ok(finding.request !== undefined && finding.response !== undefined, spot.id);
    }
    const expected = new Set(spots.map((s) => `${s.checkId} ${s.location}`));
    assert.deepEqual(
      summary(mine(vulnerable.findings)).filter((s) => !expected.has(s)),
      [],
    );
  });

  it('shows code evaluation by a computed product, confirmed with a second one', () => {
    for (const spot of evaluationModule.spots) {
      const finding = at('code-evaluation', spot.location)[0];
      assert.equal(finding?.severity, 'critical');
      assert.deepEqual(finding?.owasp, [{ classification: 'A03:2021-Injection', year: 2021 }]);
      assert.match(textOf(finding), /shows 81252187 .* it shows 81378377/);
      const highlight = finding?.details?.text?.[0]?.highlights.find((h) => h.field === 'response.body');
      assert.equal(finding?.response?.body.slice(highlight!.offset, highlight!.offset + highlight!.length), '81252187');
    }
    assert.match(textOf(at('code-evaluation', '/eval/greeting?name=')[0]), /closing a single-quoted string/);
    assert.match(textOf(at('code-evaluation', '/eval/label.php?title=')[0]), /closing a PHP string/);
    assert.match(textOf(at('code-evaluation', '/eval/calc?expr=')[0]), /alone in place of the value/);
  });

  it('names the serializer, medium, as a signature rather than an exploit', () => {
    const texts = deserializationModule.spots.map((s) => textOf(at('insecure-deserialization', s.location)[0]));
    assert.match(texts[0]!, /node-serialize.*\(base64\)/);
    assert.match(texts[1]!, /PHP serialize\(\) object \(raw\)/);
    assert.match(texts[2]!, /Java serialization stream.*\(base64\)/);
    for (const spot of deserializationModule.spots) {
      const finding = at('insecure-deserialization', spot.location)[0];
      assert.equal(finding?.severity, 'medium');
      assert.deepEqual(finding?.owasp, [
        { classification: 'A08:2021-Software and Data Integrity Failures', year: 2021 },
      ]);
      assert.match(textOf(finding), /not an exploit/);
    }
  });

  it('reports nothing on the safe twin (echoed expressions, signed JSON)', () => {
    assert.equal(safe.status, 'completed');
    assert.deepEqual(summary(mine(safe.findings)), []);
  });
});
