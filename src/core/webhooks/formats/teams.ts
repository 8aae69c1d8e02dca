import { contextLine, summarizeEvent, truncate } from './event-summary.ts';
import type { ChatFormatter } from './format.types.ts';

/**
 * The Microsoft Teams format: the body a Teams workflow ("Post to a channel when a webhook
 * request is received") accepts, a message carrying one Adaptive Card 1.4: the sentence as a
 * bold TextBlock, the facts as a FactSet, the team/webhook/time line, and an Action.OpenUrl to
 * the page when there is one. Values are cut so that a card stays far below Teams' 28 KB.
 */

/** The sizes this format cuts at. */
export const teamsLimits = { title: 300, factTitle: 100, factValue: 500, facts: 20 } as const;

/**
 * Escapes with a backslash the characters Adaptive Card markdown reads as emphasis or a link
 * (`\\`, `*`, `_`, `[`, `]`, `` ` ``), so that a scanned value (a page title, a host) cannot
 * make a link or bold text in the card, and line breaks become spaces (a card reads single
 * newlines as nothing, and a value should stay one line).
 */
export function teamsEscape(value: string): string {
  return value.replace(/[\r\n]+/g, ' ').replace(/([\\*_[\]`])/g, '\\$1');
}

/** The workflow body of an event. */
export const teamsMessage: ChatFormatter = (event, context) => {
  const summary = summarizeEvent(event, context);
  const body: unknown[] = [
    {
      type: 'TextBlock',
      text: teamsEscape(truncate(summary.title, teamsLimits.title)),
      weight: 'Bolder',
      size: 'Medium',
      wrap: true,
      ...(summary.severity === 'critical' || summary.severity === 'high' ? { color: 'Attention' } : {}),
    },
  ];
  if (summary.facts.length > 0) {
    body.push({
      type: 'FactSet',
      facts: summary.facts.slice(0, teamsLimits.facts).map((f) => ({
        title: teamsEscape(truncate(f.label, teamsLimits.factTitle)),
        value: teamsEscape(truncate(f.value, teamsLimits.factValue)),
      })),
    });
  }
  body.push({
    type: 'TextBlock',
    text: teamsEscape(contextLine(event, context)),
    isSubtle: true,
    size: 'Small',
    wrap: true,
  });
  const actions =
    summary.link === undefined ? [] : [{ type: 'Action.OpenUrl', title: summary.link.label, url: summary.link.url }];
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions,
        },
      },
    ],
  };
};
