import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventCatalogue } from '../../events/event-catalogue.ts';
import type { FormatEvent } from './format.types.ts';
import { slackEscape, slackLimits, slackMessage } from './slack.ts';

const context = { teamName: 'Acme & Co', webhookName: '<SOC>', consoleBase: 'https://perimeter.example.net' };

interface TextObject {
  type: string;
  text: string;
}
interface Block {
  type: string;
  text?: TextObject;
  fields?: TextObject[];
  elements?: Array<TextObject & { url?: string; text: TextObject | string }>;
}
interface Message {
  text: string;
  blocks: Block[];
}

function render(event: FormatEvent): Message {
  return slackMessage(event, context) as Message;
}

function event(type: string, data: Record<string, unknown>): FormatEvent {
  return { id: 'evt-1', type, timestamp: '2026-11-29T08:00:00Z', data };
}

const vulnerability = eventCatalogue.find((d) => d.kind === 'vulnerability.new')?.example ?? {};

/** Every limit of Block Kit this format promises. */
function assertWithinLimits(message: Message, label: string): void {
  assert.ok(message.text.length > 0 && message.text.length <= slackLimits.fallbackText, label);
  assert.ok(message.blocks.length <= slackLimits.blocks, label);
  for (const block of message.blocks) {
    if (block.type === 'header') assert.ok((block.text?.text.length ?? 0) <= slackLimits.headerText, label);
    if (block.type === 'section') {
      assert.ok((block.text?.text.length ?? 0) <= slackLimits.sectionText, label);
      assert.ok((block.fields ?? []).length <= slackLimits.fields, label);
      for (const field of block.fields ?? []) assert.ok(field.text.length <= slackLimits.fieldText, label);
    }
  }
}

describe('slackMessage', () => {
  it('renders every catalogue example as header, fields, context and (with a link) a button', () => {
    for (const doc of eventCatalogue) {
      const message = render(event(doc.kind, doc.example));
      assertWithinLimits(message, doc.kind);
      const types = message.blocks.map((b) => b.type);
      assert.equal(types[0], 'header', doc.kind);
      assert.equal(types[1], 'section', doc.kind);
      assert.ok(types.includes('context'), doc.kind);
      const hasLink = !doc.kind.startsWith('webhook.');
      assert.equal(types.includes('actions'), hasLink, doc.kind);
    }
  });

  it('says the event in the header and the fallback text, and links the vulnerability page', () => {
    const message = render(event('vulnerability.new', vulnerability));
    assert.equal(message.text, 'New high vulnerability: SQL injection on shop.example.com');
    assert.equal(message.blocks[0]?.text?.text, 'New high vulnerability: SQL injection on shop.example.com');
    assert.ok(message.blocks[1]?.fields?.some((f) => f.text === '*Severity*\nhigh'));
    const button = message.blocks.find((b) => b.type === 'actions')?.elements?.[0];
    assert.equal(button?.url, vulnerability['details_page']);
  });

  it('escapes &, < and > in every mrkdwn text (a value cannot make a link or a mention)', () => {
    const message = render(
      event('vulnerability.new', { ...vulnerability, title: '<https://evil.example|click> & <!channel>' }),
    );
    const mrkdwn = [
      message.text,
      ...message.blocks
        .flatMap((b) => [...(b.fields ?? []), ...(b.type === 'context' ? (b.elements ?? []) : [])])
        .map((t) => t.text),
    ].filter((t): t is string => typeof t === 'string');
    for (const text of mrkdwn) assert.doesNotMatch(text, /<|>|&(?!amp;|lt;|gt;)/, text);
    assert.equal(
      message.text,
      'New high vulnerability: &lt;https://evil.example|click&gt; &amp; &lt;!channel&gt; on shop.example.com',
    );
    const contextBlock = message.blocks.find((b) => b.type === 'context');
    assert.equal(contextBlock?.elements?.[0]?.text, 'Team Acme &amp; Co · webhook &lt;SOC&gt; · 2026-11-29T08:00:00Z');
    assert.equal(slackEscape('a&b<c>d'), 'a&amp;b&lt;c&gt;d');
  });

  it('truncates long values within the limits, never splitting an entity', () => {
    const long = `${'x'.repeat(1995)}&&&&&&&&&&`;
    const message = render(event('vulnerability.new', { ...vulnerability, title: 'T'.repeat(5000), url: long }));
    assertWithinLimits(message, 'long');
    assert.equal(message.blocks[0]?.text?.text.length, slackLimits.headerText);
    assert.ok(message.blocks[0]?.text?.text.endsWith('…'));
    const url = message.blocks[1]?.fields?.find((f) => f.text.startsWith('*URL*'));
    assert.ok(url?.text.endsWith('…'), url?.text.slice(-20));
    assert.doesNotMatch(url?.text ?? '', /&[a-z]{0,3}…$/);
  });

  it('puts facts beyond ten in a second section and drops a button whose URL is too long', () => {
    const data: Record<string, unknown> = {};
    for (let i = 0; i < 14; i += 1) data[`field_${i}`] = `value ${i}`;
    const message = render(event('future.kind', data));
    assertWithinLimits(message, 'many facts');
    assert.equal(message.blocks[1]?.fields?.length, 10);
    assert.equal(
      message.blocks[2]?.text?.text,
      '*field_10*: value 10\n*field_11*: value 11\n*field_12*: value 12\n*field_13*: value 13',
    );
    const longLink = render(
      event('vulnerability.new', { ...vulnerability, details_page: `https://x.example/${'a'.repeat(3000)}` }),
    );
    assert.equal(
      longLink.blocks.some((b) => b.type === 'actions'),
      false,
    );
  });
});
