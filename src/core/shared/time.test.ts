import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { parseTimeParameter, toWireTime } from './time.ts';

describe('parseTimeParameter', () => {
  it('accepts the three forms of the spec', () => {
    assert.equal(parseTimeParameter('t', '2024-03-01T10:00:00Z').toISOString(), '2024-03-01T10:00:00.000Z');
    assert.equal(parseTimeParameter('t', '2024-03-01T12:00:00+0200').toISOString(), '2024-03-01T10:00:00.000Z');
    assert.equal(parseTimeParameter('t', '2024-03-01T05:00:00-0500').toISOString(), '2024-03-01T10:00:00.000Z');
    assert.equal(parseTimeParameter('t', '1709287200').toISOString(), '2024-03-01T10:00:00.000Z');
  });

  it('takes back a + that the query string decoded as a space', () => {
    assert.equal(parseTimeParameter('t', '2024-03-01T12:00:00 0200').toISOString(), '2024-03-01T10:00:00.000Z');
  });

  it('rejects anything else with 1085 naming the parameter', () => {
    for (const bad of [
      'yesterday',
      '2024-03-01',
      '2024-13-01T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '',
      '2024-03-01T10:00:00',
    ]) {
      assert.throws(
        () => parseTimeParameter('from', bad),
        (err: unknown) => err instanceof AppError && err.code === 1085 && err.parameters?.[0] === 'from',
      );
    }
  });

  it('formats as ISO 8601 UTC without fractions', () => {
    assert.equal(toWireTime(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), '2024-01-02T03:04:05Z');
  });
});
