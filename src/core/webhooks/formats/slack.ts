import { contextLine, summarizeEvent, truncate, type SummaryFact } from './event-summary.ts';
import type { ChatFormatter } from './format.types.ts';

/**
 * The Slack format: a Block Kit message for an incoming webhook (POST to the hooks.slack.com URL
 * the workspace issued). Slack's limits are kept with truncation: a header's text at most 150
 * characters, a section at most 10 fields of at most 2,000 characters and a text of at most
 * 3,000, a button's text at most 75 and its URL at most 3,000, at most 50 blocks.
 */

/** Slack's Block Kit limits this format keeps. */
export const slackLimits = {
  headerText: 150,
  sectionText: 3000,
  fieldText: 2000,
  fields: 10,
  blocks: 50,
  buttonText: 75,
  buttonUrl: 3000,
  fallbackText: 3000,
} as const;

/** Escapes text for Slack's mrkdwn: &, < and > as Slack requires (nothing else is special to it). */
export function slackEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An escaped mrkdwn text cut to `max` characters after escaping (an entity is never split). */
function mrkdwn(value: string, max: number): string {
  return cutEscaped(slackEscape(value), max);
}

/** Cuts escaped text to `max` characters, dropping an entity the cut would split. */
function cutEscaped(escaped: string, max: number): string {
  return escaped.length <= max ? escaped : truncate(escaped, max).replace(/&[a-z]{0,3}…$/, '…');
}

function factField(fact: SummaryFact): { type: 'mrkdwn'; text: string } {
  const label = `*${slackEscape(truncate(fact.label, 100))}*\n`;
  return { type: 'mrkdwn', text: label + mrkdwn(fact.value, slackLimits.fieldText - label.length) };
}

/** The facts as sections: the first ten as fields, any further as one text (a list). */
function factBlocks(facts: readonly SummaryFact[]): unknown[] {
  if (facts.length === 0) return [];
  const blocks: unknown[] = [{ type: 'section', fields: facts.slice(0, slackLimits.fields).map(factField) }];
  const rest = facts.slice(slackLimits.fields);
  if (rest.length > 0) {
    const lines = rest.map((f) => `*${slackEscape(f.label)}*: ${slackEscape(f.value)}`).join('\n');
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cutEscaped(lines, slackLimits.sectionText) } });
  }
  return blocks;
}

/** The Block Kit message of an event. */
export const slackMessage: ChatFormatter = (event, context) => {
  const summary = summarizeEvent(event, context);
  const blocks: unknown[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: truncate(summary.title, slackLimits.headerText), emoji: false },
    },
    ...factBlocks(summary.facts),
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: mrkdwn(contextLine(event, context), slackLimits.sectionText) }],
    },
  ];
  const link = summary.link;
  if (link !== undefined && link.url.length <= slackLimits.buttonUrl) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: truncate(link.label, slackLimits.buttonText) },
          url: link.url,
          action_id: 'open',
        },
      ],
    });
  }
  return { text: mrkdwn(summary.title, slackLimits.fallbackText), blocks: blocks.slice(0, slackLimits.blocks) };
};
