import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import { sqlInjectionKind } from './sql-injection.check.ts';

const facts = {
  location: 'https://app.example.com/item?id=1',
  host: 'app.example.com',
  observation: 'seen',
  exchange: {
    request: { method: 'GET', url: new URL('https://app.example.com/item?id=1%27'), headers: [] },
    status: 500,
    headers: [],
    body: 'error',
    isTruncated: false,
  },
};

describe('buildFinding: CVSS scores of a kind', () => {
  it('states cvss_3_1 from the kind vector, and cvss_2_0 only where the kind fixes a 2.0 vector', () => {
    const kind: FindingKind = { ...sqlInjectionKind };
    delete kind.cvss2Vector;
    assert.deepEqual(buildFinding(kind, facts).cvss, {
      cvss_3_1: { score: 9.8, severity: 'critical', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
    });
  });

  it("gives SQL injection NVD's 2.0 vector of a remote unauthenticated injection, 7.5 high, beside 3.1 9.8", () => {
    assert.deepEqual(buildFinding(sqlInjectionKind, facts).cvss, {
      cvss_2_0: { score: 7.5, severity: 'high', vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
      cvss_3_1: { score: 9.8, severity: 'critical', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
    });
    assert.equal(
      sqlInjectionKind.severity,
      'high',
      'the 2.0-style severity the list filters on agrees with the 2.0 score',
    );
  });
});
