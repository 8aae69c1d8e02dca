import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { v3Problem } from '../support/v3-list-contract.ts';
import { credBased, externalIdPath, useConnectorsFixture } from '../support/v3-connectors-fixture.ts';

/**
 * v3 connectors: the team's external ID (GET /connectors/external-id: one stable random value per
 * team, the team_id parameter), and removing a team, which takes its connectors and external ID.
 */

describe('v3 connectors', () => {
  const fx = useConnectorsFixture();
  const { keys, teams, openTeam, created } = fx;

  describe('GET /connectors/external-id', () => {
    const externalIdOf = async (key: string, query = '') => {
      const res = await fx.h.send('GET', `${externalIdPath}${query}`, { key });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { external_id: string; team_id: string };
    };

    it('answers one random id per team, stable across calls, never taken for a connector id', async () => {
      const first = await externalIdOf(keys['acme']!);
      assert.deepEqual(Object.keys(first).sort(), ['external_id', 'team_id']);
      assert.match(first.external_id, /^[0-9a-f]{32}$/);
      assert.equal(first.team_id, teams['acme']!.token);
      assert.deepEqual(await externalIdOf(keys['acme']!), first);
      assert.deepEqual(await externalIdOf(keys['acme']!, `?team_id=${teams['acme']!.token}`), first);
      assert.deepEqual(await externalIdOf(keys['acme']!, '?team_id='), first);
      const globex = await externalIdOf(keys['globex']!);
      assert.notEqual(globex.external_id, first.external_id);
      assert.equal(globex.team_id, teams['globex']!.token);
      assert.deepEqual(await externalIdOf(fx.multi, `?team_id=${teams['globex']!.token}`), globex);
      const del = await fx.h.send('DELETE', externalIdPath, { key: keys['acme']! });
      assert.equal(del.statusCode, 404);
      assert.deepEqual(await externalIdOf(keys['acme']!), first);
    });

    it('answers the same value to concurrent first requests', async () => {
      await openTeam('racing', 'enterprise');
      const answers = await Promise.all(Array.from({ length: 8 }, () => externalIdOf(keys['racing']!)));
      assert.equal(new Set(answers.map((a) => a.external_id)).size, 1);
    });

    it('answers a 400 problem naming team_id: foreign, unknown, repeated, or missing for a multi-team key', async () => {
      const cases: Array<[key: string, query: string, detail: string]> = [
        [keys['acme']!, `?team_id=${teams['globex']!.token}`, 'team_id is not a team of this API key'],
        [keys['acme']!, `?team_id=${randomBytes(16).toString('hex')}`, 'team_id is not a team of this API key'],
        [keys['acme']!, `?team_id=a&team_id=b`, 'team_id given more than once'],
        [fx.multi, '', 'team_id is required: this API key is tied to several teams'],
      ];
      for (const [key, query, detail] of cases) {
        const res = await fx.h.send('GET', `${externalIdPath}${query}`, { key });
        assert.equal(res.statusCode, 400, query);
        assert.deepEqual(res.json(), v3Problem(externalIdPath, 400, 4150, detail));
      }
    });
  });

  describe('team removal', () => {
    it("cascades to the team's connectors and external ID", async () => {
      await openTeam('doomed', 'enterprise');
      await created(credBased('doomed connector'), keys['doomed']!);
      await externalIdOf(keys['doomed']!);
      const db = fx.h.runtime.database.db;
      await db.deleteFrom('api_key_teams').where('team_id', '=', teams['doomed']!.id).execute();
      await db.deleteFrom('teams').where('id', '=', teams['doomed']!.id).execute();
      assert.equal(
        (await db.selectFrom('connectors').select('id').where('team_id', '=', teams['doomed']!.id).execute()).length,
        0,
      );
      assert.equal(
        (
          await db
            .selectFrom('connector_external_ids')
            .select('team_id')
            .where('team_id', '=', teams['doomed']!.id)
            .execute()
        ).length,
        0,
      );
    });

    async function externalIdOf(key: string) {
      const res = await fx.h.send('GET', externalIdPath, { key });
      assert.equal(res.statusCode, 200, res.body);
    }
  });
});
