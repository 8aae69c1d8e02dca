import assert from 'node:assert/strict';
import type { Must, Seed } from './api-walk.ts';

/** The v3 resources of the API walk's seed (test/support/api-walk.ts): connectors, webhooks, Jira. */

/** Two cloud connectors. */
export async function seedConnectors(must: Must, tokens: Record<string, string>): Promise<void> {
  const credentials = { access_key: 'AKIAWALK', secret_key: 'walk-secret' };
  tokens['connector'] = String(
    (await must('POST', '/rest/v3/connectors', { name: 'walk', provider: 'CLOUD_A_CRED_BASED', options: credentials }))[
      'id'
    ],
  );
  tokens['connector2'] = String(
    (await must('POST', '/rest/v3/connectors', { name: 'gone', provider: 'CLOUD_B', options: credentials }))['id'],
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
