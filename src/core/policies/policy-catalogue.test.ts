import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  evaluatePolicies,
  policies,
  policyById,
  policySeverities,
  type PolicyPort,
  type PolicyTechnology,
} from './policy-catalogue.ts';

const port = (domainName: string, p: number, service: string, extra: Partial<PolicyPort> = {}): PolicyPort => ({
  ipAddress: '192.0.2.1',
  port: p,
  domainName,
  service,
  isTls: false,
  isHttp: false,
  ...extra,
});
const tech = (
  domainName: string,
  name: string,
  categories: string[],
  version: string | null = null,
): PolicyTechnology => ({ domainName, port: 443, name, version, categories });
const breached = (ports: PolicyPort[], technologies: PolicyTechnology[] = []) =>
  evaluatePolicies({ ports, technologies }).map((b) => `${b.policyId} ${b.assetName}`);

describe('the policy catalogue', () => {
  it('has unique ids, names and known severities', () => {
    assert.equal(new Set(policies.map((p) => p.id)).size, policies.length);
    assert.equal(new Set(policies.map((p) => p.name)).size, policies.length);
    for (const policy of policies) assert.ok(policySeverities.includes(policy.severity), policy.id);
    assert.equal(policyById.get('database-exposed')?.severity, 'HIGH');
  });

  it('breaches a host once per policy, whatever number of ports breach it', () => {
    assert.deepEqual(
      breached([
        port('db.example', 3306, 'mysql'),
        port('db.example', 5432, 'postgresql'),
        port('cache.example', 6379, 'redis'),
      ]),
      ['database-exposed cache.example', 'database-exposed db.example'],
    );
  });

  it('trusts the identified service over the port number', () => {
    assert.deepEqual(breached([port('web.example', 3306, 'http', { isHttp: true })]), [
      'cleartext-web-service web.example',
    ]);
    assert.deepEqual(breached([port('odd.example', 2222, 'ssh')]), ['ssh-exposed odd.example']);
    assert.deepEqual(breached([port('odd.example', 3389, 'unknown'), port('odd.example', 22, 'tls')]), [
      'remote-desktop-exposed odd.example',
      'ssh-exposed odd.example',
    ]);
    assert.deepEqual(breached([port('quiet.example', 8443, 'unknown')]), []);
  });

  it('tells clear-text FTP and web from the same services over TLS', () => {
    assert.deepEqual(breached([port('f.example', 21, 'ftp')]), ['cleartext-file-transfer-exposed f.example']);
    assert.deepEqual(breached([port('f.example', 990, 'ftp', { isTls: true })]), []);
    assert.deepEqual(breached([port('w.example', 443, 'http', { isTls: true, isHttp: true })]), []);
  });

  it('reads technologies by category, and versions only of server-side software', () => {
    assert.deepEqual(
      breached(
        [],
        [
          tech('a.example', 'phpMyAdmin', ['Database managers']),
          tech('b.example', 'nginx', ['Web servers', 'Reverse proxies'], '1.24.0'),
        ],
      ),
      ['administration-interface-exposed a.example', 'software-version-disclosed b.example'],
    );
    assert.deepEqual(
      breached(
        [],
        [tech('b.example', 'nginx', ['Web servers']), tech('c.example', 'jQuery', ['JavaScript libraries'], '3.7.1')],
      ),
      [],
    );
  });

  it('finds nothing in an empty inventory', () => {
    assert.deepEqual(evaluatePolicies({ ports: [], technologies: [] }), []);
  });
});
