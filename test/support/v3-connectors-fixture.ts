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
  last_run: null;
}

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
