import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cvss31, cvss31BaseScore, severityOfScore } from './cvss.ts';

describe('cvss31BaseScore', () => {
  const known: Array<[string, number]> = [
    ['AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1],
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8],
    ['AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10],
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', 7.5],
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', 5.3],
    ['AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N', 4.3],
    ['AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N', 3.1],
    ['AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.8],
    ['AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H', 8.8],
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0],
  ];
  for (const [vector, score] of known) {
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
    assert.deepEqual(cvss31('AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N'), { score: 6.1, severity: 'medium', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' });
    assert.deepEqual([0, 0.1, 3.9, 4, 6.9, 7, 8.9, 9, 10].map(severityOfScore), ['information', 'low', 'low', 'medium', 'medium', 'high', 'high', 'critical', 'critical']);
  });
});
