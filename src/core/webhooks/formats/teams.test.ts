import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventCatalogue } from '../../events/event-catalogue.ts';
import type { FormatEvent } from './format.types.ts';
import { teamsEscape, teamsLimits, teamsMessage } from './teams.ts';

const context = { teamName: 'Acme', webhookName: 'SOC', consoleBase: 'https://perimeter.example.net' };

interface Card {
  $schema: string;
  type: string;
  version: string;
  body: Array<{ type: string; text?: string; facts?: Array<{ title: string; value: string }>; color?: string }>;
  actions: Array<{ type: string; title: string; url: string }>;
}
interface Body {
  type: string;
  attachments: Array<{ contentType: string; contentUrl: null; content: Card }>;
}

function render(type: string, data: Record<string, unknown>): Body {
  const event: FormatEvent = { id: 'evt-1', type, timestamp: '2026-11-29T08:00:00Z', data };
  return teamsMessage(event, context) as Body;
}

const vulnerability = eventCatalogue.find((d) => d.kind === 'vulnerability.new')?.example ?? {};

describe('teamsMessage', () => {
  it('renders every catalogue example as a workflow message with one Adaptive Card 1.4', () => {
    for (const doc of eventCatalogue) {
      const body = render(doc.kind, doc.example);
      assert.equal(body.type, 'message');
      assert.equal(body.attachments.length, 1);
      const attachment = body.attachments[0];
      assert.equal(attachment?.contentType, 'application/vnd.microsoft.card.adaptive');
      assert.equal(attachment?.contentUrl, null);
      const card = attachment?.content;
      assert.equal(card?.$schema, 'http://adaptivecards.io/schemas/adaptive-card.json');
      assert.equal(card?.type, 'AdaptiveCard');
      assert.equal(card?.version, '1.4');
      assert.deepEqual(
        card?.body.map((b) => b.type),
        ['TextBlock', 'FactSet', 'TextBlock'],
        doc.kind,
      );
      assert.equal(card?.actions.length, doc.kind.startsWith('webhook.') ? 0 : 1, doc.kind);
      assert.ok(JSON.stringify(body).length < 28_000, doc.kind);
    }
  });

  it('says the event, lists the facts and opens the vulnerability page', () => {
    const card = render('vulnerability.new', vulnerability).attachments[0]?.content;
    assert.equal(card?.body[0]?.text, 'New high vulnerability: SQL injection on shop.example.com');
    assert.equal(card?.body[0]?.color, 'Attention');
    assert.deepEqual(card?.body[1]?.facts?.[0], { title: 'Severity', value: 'high' });
    assert.deepEqual(card?.actions[0], {
      type: 'Action.OpenUrl',
      title: 'Open the vulnerability',
      url: vulnerability['details_page'],
    });
    assert.equal(card?.body[2]?.text, 'Team Acme · webhook SOC · 2026-11-29T08:00:00Z');
  });

  it('escapes markdown so that a value cannot make a link or emphasis', () => {
    const card = render('vulnerability.new', { ...vulnerability, title: '[click](https://evil.example) *now*_x_' })
      .attachments[0]?.content;
    assert.equal(
      card?.body[0]?.text,
      'New high vulnerability: \\[click\\](https://evil.example) \\*now\\*\\_x\\_ on shop.example.com',
    );
    assert.equal(teamsEscape('a\\b`c`\r\nd'), 'a\\\\b\\`c\\` d');
  });

  it('cuts long values and keeps at most the configured number of facts', () => {
    const data: Record<string, unknown> = {};
    for (let i = 0; i < 30; i += 1) data[`field_${i}`] = 'v'.repeat(2000);
    const card = render('future.kind', data).attachments[0]?.content;
    const facts = card?.body[1]?.facts ?? [];
    assert.equal(facts.length, teamsLimits.facts);
    for (const fact of facts) assert.ok(fact.value.length <= teamsLimits.factValue);
    const long = render('vulnerability.new', { ...vulnerability, title: 'T'.repeat(1000) }).attachments[0]?.content;
    assert.equal(long?.body[0]?.text?.length, teamsLimits.title);
  });
});
