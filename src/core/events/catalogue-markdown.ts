import { eventCatalogue } from './event-catalogue.ts';

/**
 * docs/events.md, generated from the catalogue (npm run openapi writes it, npm run openapi:check
 * fails when the committed file differs), so the published catalogue is always the one the code
 * writes.
 */
export function catalogueMarkdown(): string {
  const lines = [
    '# Events',
    '',
    '<!-- Generated from src/core/events/event-catalogue.ts by `npm run openapi`: edit the catalogue, not this file. -->',
    '',
    'Every team has an append-only event log. Each change below is appended in the same transaction as the change itself, so an event exists',
    'exactly when its change was committed, and it never changes afterwards. Read the log with `GET /rest/v3/events` (an extension of',
    'perimeter: cursor paging oldest first, `kind` and `occurred_after`/`occurred_before` filters; see openapi/v3.json), or subscribe to it',
    'with a webhook (docs/webhooks.md) or the Jira integration (docs/integrations.md).',
    '',
    'Every event has the same envelope, the payload shape of the Standard Webhooks specification:',
    '',
    '| Field | Meaning |',
    '|---|---|',
    '| `id` | The event id (a UUID). Every delivery of the event carries it as `webhook-id`: deduplicate on it. |',
    '| `type` | The kind, below. |',
    '| `timestamp` | When the change happened (ISO 8601, UTC, whole seconds). |',
    '| `data` | The fields of the kind, as they were when it happened. Every field listed is always present. |',
    '',
    '## Kinds',
    '',
    '| Kind | Written when |',
    '|---|---|',
    ...eventCatalogue.map((d) => `| [\`${d.kind}\`](#${d.kind.replace(/[._]/g, '')}) | ${d.when} |`),
    '',
  ];
  for (const doc of eventCatalogue) {
    lines.push(`### ${doc.kind}`, '', doc.when, '', '| Field | Meaning |', '|---|---|');
    for (const [name, meaning] of Object.entries(doc.fields)) lines.push(`| \`${name}\` | ${meaning} |`);
    const example = {
      id: '2b0f7c4e-9d1a-4e8b-a6f3-5c2d1e0b9a87',
      type: doc.kind,
      timestamp: '2026-11-29T08:04:12Z',
      data: doc.example,
    };
    lines.push('', '```json', JSON.stringify(example, null, 2), '```', '');
  }
  return lines.join('\n');
}
