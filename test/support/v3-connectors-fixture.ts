import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import { hashKey, newKeyId } from '../../src/core/teams/api-key.service.ts';
import { createHarness, type Harness } from './harness.ts';

/**
 * What the v3 connectors test files (test/integration/v3-connectors-*.test.ts) share: the wire
 * shape of a connector, the paths, a credential-based body, and a harness with three teams (acme
 * and globex on the enterprise plan, pro on the professional one), their v3 keys and a key tied to
 * both acme and globex. Each file calls `useConnectorsFixture()` once, inside its describe block.
 */

/** A connector as the wire carries it. */
export interface WireConnector {
  id: string;
  name: string;
  team_id: string;
  provider: string;
  created_at: string;
  updated_at: string;
  last_run: { status: string; error: string; completed_at: string | null } | null;
}

/** The last_run of a connector whose first run is queued (as every new one's is). */
export const queuedRun = { status: 'QUEUED', error: '', completed_at: null };

/** Options each provider accepts (connector-options.ts): fake values of the right shapes. */
export const validOptions: Record<string, Record<string, string>> = {
  CLOUD_A_ROLE_BASED: { role_arn: 'arn:aws:iam::123456789012:role/perimeter' },
  CLOUD_A_CRED_BASED: { access_key: 'AKIAIOSFODNN7EXAMPLE', secret_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  CLOUD_B: {
    tenant_id: '11111111-2222-4333-8444-555555555555',
    client_id: '22222222-3333-4444-8555-666666666666',
    client_secret: 'azure-secret',
    subscription_id: '33333333-4444-4555-8666-777777777777',
  },
  CLOUD_C: { service_account_key: '{"type": "service_account", "client_email": "a@b.iam.gserviceaccount.com"}' },
  CDN_D: { api_token: 'cf-token' },
  CLOUD_E: { token: 'do-token' },
  CLOUD_F: {
    tenancy_ocid: 'ocid1.tenancy.oc1..aaaa',
    user_ocid: 'ocid1.user.oc1..bbbb',
    fingerprint: '12:34:56:78:9a:bc:de:f0:12:34:56:78:9a:bc:de:f0',
    private_key: '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----',
    region: 'eu-frankfurt-1',
  },
  REGISTRAR_G: { api_key: 'gd-key', api_secret: 'gd-secret' },
  DNS_H: { api_key: 'ns1-key' },
};

export const path = '/rest/v3/connectors';
export const externalIdPath = '/rest/v3/connectors/external-id';
export const secretKey = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
export const credentials = { access_key: 'AKIAIOSFODNN7EXAMPLE', secret_key: secretKey };
/** A valid CLOUD_A_CRED_BASED body named `name`, with `extra` fields. */
export const credBased = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  provider: 'CLOUD_A_CRED_BASED',
  options: credentials,
  ...extra,
});

/** The harness, teams and keys of one test file; read `h` and `multi` once its `before` has run. */
export class ConnectorsFixture {
  h!: Harness;
  /** v3 keys by team: acme and globex are enterprise teams, pro a professional one. */
  readonly keys: Record<string, string> = {};
  readonly teams: Record<string, { id: number; token: string }> = {};
  /** A v3 key tied to acme and globex. */
  multi!: string;

  /** Adds a team on the plan, with a v3 key. */
  readonly openTeam = async (name: string, plan: string): Promise<void> => {
    await this.h.team(name, { plan });
    this.keys[name] = (await this.h.key(name, '--v3')).key;
    const row = (await this.h.runtime.store.teams.findByName(name))!;
    this.teams[name] = { id: row.id, token: row.token };
  };

  /** A v3 key tied to several teams (the CLI makes single-team keys only). */
  readonly multiTeamKey = async (teamIds: number[]): Promise<string> => {
    const key = randomBytes(16).toString('hex');
    await this.h.runtime.store.keys.insert({
      publicId: newKeyId(),
      keyHash: hashKey(key),
      kind: 'v3',
      hint: key.slice(0, 6),
      permissions: null,
      secretSealed: null,
      teamIds,
      created: new Date(),
      revoked: null,
    });
    return key;
  };

  /** POSTs the body to /connectors with the key (acme's by default). */
  readonly create = async (body: unknown, key = this.keys['acme']!) => this.h.send('POST', path, { key, body });

  /** Creates a connector, asserting 201, and returns it. */
  readonly created = async (body: unknown, key = this.keys['acme']!): Promise<WireConnector> => {
    const res = await this.create(body, key);
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as WireConnector;
  };
}

/** Opens the harness, the three teams and the multi-team key before the tests, closes it after. */
export function useConnectorsFixture(): ConnectorsFixture {
  const fx = new ConnectorsFixture();
  before(async () => {
    fx.h = await createHarness();
    await fx.openTeam('acme', 'enterprise');
    await fx.openTeam('globex', 'enterprise');
    await fx.openTeam('pro', 'professional');
    fx.multi = await fx.multiTeamKey([fx.teams['acme']!.id, fx.teams['globex']!.id]);
  });
  after(async () => fx.h.close());
  return fx;
}
