import assert from 'node:assert/strict';
import { evaluateBreaches } from '../../src/core/policies/breach.service.ts';
import { PortInventoryService } from '../../src/core/surface/port-inventory.service.ts';
import { TechnologyInventoryService } from '../../src/core/surface/technology-inventory.service.ts';
import type { Harness } from './harness.ts';
import type { Must, Seed } from './api-walk.ts';

/** The v3 resources of the API walk's seed (test/support/api-walk.ts): inventory, connectors, webhooks, an import, Jira. */

/** Two cloud connectors. */
export async function seedConnectors(must: Must, tokens: Record<string, string>): Promise<void> {
  const credentials = { access_key: 'AKIAWALK00000000', secret_key: 'walk-secret' };
  tokens['connector'] = String(
    (await must('POST', '/rest/v3/connectors', { name: 'walk', provider: 'CLOUD_A_CRED_BASED', options: credentials }))[
      'id'
    ],
  );
  tokens['connector2'] = String(
    (
      await must('POST', '/rest/v3/connectors', { name: 'gone', provider: 'CLOUD_E', options: { token: 'walk-token' } })
    )['id'],
  );
}

/** Two webhooks (to a closed loopback port: their deliveries fail) and a delivery of the first (its test event). */
export async function seedWebhooks(must: Must, tokens: Record<string, string>): Promise<void> {
  const body = { url: 'http://127.0.0.1:9/hook', events: ['scan.completed'] };
  tokens['webhook'] = String((await must('POST', '/rest/v3/webhooks', { name: 'walk', ...body }))['id']);
  tokens['webhook2'] = String((await must('POST', '/rest/v3/webhooks', { name: 'gone', ...body }))['id']);
  tokens['delivery'] = String((await must('POST', `/rest/v3/webhooks/${tokens['webhook']}/test`))['id']);
}

/**
 * A Jira connection (to a closed loopback port: its syncs fail) and a link of the first
 * vulnerability to an issue; again after the walk deleted them.
 */
export async function seedJira({ h, v3, tokens }: Seed): Promise<void> {
  const res = await h.send('PUT', '/rest/v3/integrations/jira', { key: v3, body: jiraBody });
  assert.equal(res.statusCode, 200, res.body);
  const teamId = (await h.runtime.store.teams.findByName('walk'))!.id;
  const vulnerability = (await h.runtime.store.vulnerabilities.findByUuid(teamId, tokens['vuln']!))!;
  await h.runtime.store.jira.saveIssue({
    teamId,
    fingerprint: vulnerability.fingerprint,
    vulnerabilityUuid: tokens['vuln']!,
    issueId: '10001',
    issueKey: 'SEC-1',
    state: 'open',
    updated: new Date(),
  });
}

/** The Jira connection of the walk. */
export const jiraBody = {
  base_url: 'http://127.0.0.1:9',
  account_email: 'walk@example.com',
  api_token: 'walk-token',
  project_key: 'SEC',
};

/** A nuclei line the walk's import uploads (one finding on the seed's example.com). */
export const walkNucleiLine =
  JSON.stringify({
    'template-id': 'walk-check',
    info: { name: 'Walk check', severity: 'low' },
    host: 'https://example.com',
    'matched-at': 'https://example.com/walk',
    type: 'http',
    timestamp: '2026-11-29T00:00:00Z',
  }) + '\n';

/** An import of the walk (its id for GET /imports/{id}). */
export async function seedImport({ h, v3, tokens }: Pick<Seed, 'h' | 'v3' | 'tokens'>): Promise<void> {
  const res = await h.send('POST', '/rest/v3/imports?format=nuclei', {
    key: v3,
    body: walkNucleiLine,
    headers: { 'content-type': 'application/x-ndjson' },
  });
  assert.equal(res.statusCode, 202, res.body);
  tokens['import'] = String((res.json() as { id: string }).id);
}

/** When the walk's inventory was seen (1 January 2026, noon UTC). */
const inventoryAt = Date.UTC(2026, 0, 1, 12);

/** The v3 inventory of example.com: a port, a technology, an address and the breaches they open. */
export async function seedInventory(h: Harness, teamId: number): Promise<void> {
  const assetId = (await h.runtime.store.assets.findByName(teamId, 'example.com'))!.id;
  const service = {
    name: 'ssh',
    isTls: false,
    isHttp: false,
    banner: 'SSH-2.0-OpenSSH_9.2p1',
    product: 'OpenSSH',
    version: '9.2p1',
  };
  await new PortInventoryService(h.runtime.store).recordRun({
    teamId,
    assetId,
    at: inventoryAt,
    open: [{ address: '192.0.2.10', port: 22, domainName: 'www.example.com', service }],
  });
  await new TechnologyInventoryService(h.runtime.store).recordRun({
    teamId,
    assetId,
    at: inventoryAt,
    seen: [
      {
        domainName: 'www.example.com',
        port: 443,
        serviceProtocol: 'https',
        name: 'Nginx',
        version: '1.25.3',
        categories: ['Web servers'],
      },
    ],
  });
  await h.runtime.ipInventory.recordRun({
    teamId,
    assetId,
    at: inventoryAt,
    seen: [{ name: 'www.example.com', address: '192.0.2.10' }],
  });
  await evaluateBreaches(h.runtime.store, { teamId, assetId, at: inventoryAt });
}
