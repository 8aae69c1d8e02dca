import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cvss2,
  cvss2BaseScore,
  cvss30,
  cvss30BaseScore,
  cvss31,
  cvss31BaseScore,
  roundUp30,
  roundUp31,
  severityOfScore,
  withDerivedScores,
} from './cvss.ts';

// Base scores published with the specifications: FIRST's CVSS v3.0 and v3.1 examples documents
// (phpMyAdmin XSS CVE-2013-1937 6.1, Heartbleed CVE-2014-0160 7.5, Shellshock CVE-2014-6271 9.8,
// VMware CVE-2012-1516 9.9, Tomcat CVE-2009-0783 4.2) and scores shown by FIRST's calculators.
const published: Array<[string, number]> = [
  ['AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1],
  ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', 7.5],
  ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8],
  ['AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H', 9.9],
  ['AV:L/AC:L/PR:H/UI:N/S:U/C:L/I:L/A:L', 4.2],
  ['AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10],
  ['AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', 5.3],
  ['AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N', 4.3],
  ['AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N', 3.1],
  ['AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.8],
  ['AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H', 8.8],
  ['AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0],
];

describe('cvss31BaseScore', () => {
  for (const [vector, score] of published) {
    it(`scores ${vector} as ${score}`, () => {
      assert.equal(cvss31BaseScore(vector), score);
      assert.equal(cvss31BaseScore(`CVSS:3.1/${vector}`), score);
    });
  }

  it('rejects a vector that lacks a metric or holds an unknown value', () => {
    assert.throws(() => cvss31BaseScore('AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L'), /lacks A/);
    assert.throws(() => cvss31BaseScore('AV:X/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N'), /invalid value/);
  });

  it('rates scores as the specification does and prefixes the vector', () => {
    assert.deepEqual(cvss31('AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N'), {
      score: 6.1,
      severity: 'medium',
      vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
    });
    assert.deepEqual([0, 0.1, 3.9, 4, 6.9, 7, 8.9, 9, 10].map(severityOfScore), [
      'information',
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'high',
      'critical',
      'critical',
    ]);
  });
});

describe('cvss30BaseScore', () => {
  for (const [vector, score] of published) {
    it(`scores ${vector} as ${score}`, () => {
      assert.equal(cvss30BaseScore(vector), score);
      assert.equal(cvss30BaseScore(`CVSS:3.0/${vector}`), score);
    });
  }

  it('rounds up as each version says: 3.0 takes the ceiling of the float, 3.1 forgives float error', () => {
    // 3.1 specification, Appendix A: a result a hair above a tenth because of float arithmetic
    // (0.1 × 3 is 0.30000000000000004 in binary floating point) is that tenth in 3.1, the next
    // one in 3.0's plain ceiling.
    assert.equal(roundUp31(0.1 * 3), 0.3);
    assert.equal(roundUp30(0.1 * 3), 0.4);
    assert.equal(roundUp31(4.000000000000001), 4);
    assert.equal(roundUp30(4.000000000000001), 4.1);
    assert.deepEqual([4, 4.02, 4.1, 9.99].map(roundUp30), [4, 4.1, 4.1, 10]);
    assert.deepEqual([4, 4.02, 4.1, 9.99].map(roundUp31), [4, 4.1, 4.1, 10]);
  });

  it('gives the 3.1 base score for every base vector (the roundings part only on temporal and environmental results)', () => {
    const values = { AV: 'NALP', AC: 'LH', PR: 'NLH', UI: 'NR', S: 'UC', C: 'HLN', I: 'HLN', A: 'HLN' };
    let vectors = [''];
    for (const [metric, options] of Object.entries(values))
      vectors = vectors.flatMap((v) => [...options].map((o) => `${v}${v === '' ? '' : '/'}${metric}:${o}`));
    assert.equal(vectors.length, 2592);
    const differing = vectors.filter((v) => cvss30BaseScore(v) !== cvss31BaseScore(v));
    assert.deepEqual(differing, []);
  });

  it('prefixes the vector with CVSS:3.0', () => {
    assert.deepEqual(cvss30('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'), {
      score: 9.8,
      severity: 'critical',
      vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    });
    assert.deepEqual(cvss30('AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N'), {
      score: 0,
      severity: 'information',
      vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N',
    });
  });
});

describe('cvss2BaseScore', () => {
  // The CVSS v2 guide's examples (section 3.3): CVE-2002-0392 7.8, CVE-2003-0818 10.0,
  // CVE-2003-0062 6.2; and NVD's usual vector of a remote SQL injection, 7.5.
  const known: Array<[string, number]> = [
    ['AV:N/AC:L/Au:N/C:N/I:N/A:C', 7.8],
    ['AV:N/AC:L/Au:N/C:C/I:C/A:C', 10],
    ['AV:L/AC:H/Au:N/C:C/I:C/A:C', 6.2],
    ['AV:N/AC:L/Au:N/C:P/I:P/A:P', 7.5],
    ['AV:N/AC:L/Au:N/C:P/I:N/A:N', 5],
    ['AV:N/AC:M/Au:N/C:N/I:P/A:N', 4.3],
    ['AV:N/AC:L/Au:N/C:N/I:N/A:N', 0],
  ];
  for (const [vector, score] of known) {
    it(`scores ${vector} as ${score}`, () => assert.equal(cvss2BaseScore(vector), score));
  }

  it('rejects a vector of another version or with an unknown value', () => {
    assert.throws(() => cvss2BaseScore('AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'), /lacks Au/);
    assert.throws(() => cvss2BaseScore('AV:N/AC:L/Au:N/C:H/I:P/A:P'), /invalid value/);
  });

  it('rates with NVD v2 ranges (low below 4, medium below 7, high from 7) and keeps the vector bare', () => {
    assert.deepEqual(cvss2('AV:N/AC:L/Au:N/C:P/I:P/A:P'), {
      score: 7.5,
      severity: 'high',
      vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
    });
    assert.deepEqual(
      [
        'AV:N/AC:L/Au:N/C:N/I:N/A:N',
        'AV:L/AC:H/Au:M/C:P/I:N/A:N',
        'AV:N/AC:M/Au:N/C:N/I:P/A:N',
        'AV:N/AC:L/Au:N/C:C/I:C/A:C',
      ].map((v) => cvss2(v).severity),
      ['low', 'low', 'medium', 'high'],
    );
  });
});

describe('withDerivedScores', () => {
  const v31 = cvss31('AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N');

  it('adds the 3.0 score of a 3.1 vector, in the order of the specification', () => {
    const scores = withDerivedScores({ cvss_3_1: v31 });
    assert.deepEqual(scores, {
      cvss_3_0: { score: 6.1, severity: 'medium', vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' },
      cvss_3_1: v31,
    });
    assert.deepEqual(Object.keys(withDerivedScores({ cvss_3_1: v31, cvss_2_0: cvss2('AV:N/AC:L/Au:N/C:P/I:P/A:P') })), [
      'cvss_2_0',
      'cvss_3_0',
      'cvss_3_1',
    ]);
  });

  it('keeps a 3.0 score the finding states, and derives nothing from a vector it cannot read', () => {
    const stated = { score: 6, severity: 'medium' as const, vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' };
    assert.deepEqual(withDerivedScores({ cvss_3_0: stated, cvss_3_1: v31 }), { cvss_3_0: stated, cvss_3_1: v31 });
    const unreadable = { score: 5, severity: 'medium' as const, vector: 'vendor-specific' };
    assert.deepEqual(withDerivedScores({ cvss_3_1: unreadable }), { cvss_3_1: unreadable });
    assert.deepEqual(withDerivedScores(undefined), {});
  });
});
