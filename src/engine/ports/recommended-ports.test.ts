import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRecommendedPorts, recommendedPortEntries, recommendedPortNumbers } from './recommended-ports.ts';

describe('recommended ports', () => {
  it('ships 190 distinct ports, ascending, each with a service, category and basis', () => {
    const ports = recommendedPortNumbers();
    assert.equal(ports.length, 190);
    assert.deepEqual(
      [...ports],
      [...ports].sort((a, b) => a - b),
    );
    assert.equal(new Set(ports).size, ports.length);
    for (const port of [22, 80, 443, 3306, 3389, 5432, 6379, 8080, 8443, 27017])
      assert.ok(ports.includes(port), String(port));
    assert.deepEqual(
      recommendedPortEntries().find((e) => e.port === 22),
      { port: 22, service: 'ssh', category: 'remote', basis: 'iana' },
    );
  });

  it('refuses a list out of order, out of range or without a basis', () => {
    const entry = (port: unknown, basis = 'iana') => ({ port, service: 'x', category: 'web', basis });
    assert.throws(
      () => parseRecommendedPorts(JSON.stringify({ ports: [entry(80), entry(22)] })),
      /not in ascending order/,
    );
    assert.throws(
      () => parseRecommendedPorts(JSON.stringify({ ports: [entry(80), entry(80)] })),
      /not in ascending order/,
    );
    assert.throws(() => parseRecommendedPorts(JSON.stringify({ ports: [entry(70000)] })), /invalid port/);
    assert.throws(
      () => parseRecommendedPorts(JSON.stringify({ ports: [entry(80, 'guess')] })),
      /lacks a service or basis/,
    );
  });
});
