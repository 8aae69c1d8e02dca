import type { EmailFormatter, FormatContext, FormatEvent } from './format.types.ts';
import { eventKinds } from '../../events/event.types.ts';
import {
  kindCount,
  severityRank,
  summarizeEvent,
  truncate,
  type EventSummary,
  type SummaryFact,
} from './event-summary.ts';

/**
 * The e-mail format: one event, or a digest of several, as a subject, a plain-text body and an
 * HTML body. A digest groups the events by kind, the group holding the most severe event first,
 * and its subject says how many events and of what kinds. The HTML uses inline styles only and no
 * image or other remote resource (mail clients block them and they would track the reader);
 * every value in it is HTML-escaped.
 */

/** The longest subject the format writes. */
export const subjectMax = 200;

interface Item {
  event: FormatEvent;
  summary: EventSummary;
}

interface Group {
  kind: string;
  items: Item[];
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** One line: control characters (CR, LF …) become spaces, so a subject cannot add a header. */
function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

function kindOrder(kind: string): number {
  const i = (eventKinds as readonly string[]).indexOf(kind);
  return i === -1 ? eventKinds.length : i;
}

function maxRank(group: Group): number {
  return Math.max(...group.items.map((i) => severityRank(i.summary.severity)));
}

/** The events grouped by kind: the group with the most severe event first, then catalogue order. */
function groupEvents(events: readonly FormatEvent[], context: FormatContext): Group[] {
  const byKind = new Map<string, Item[]>();
  for (const event of events) {
    const items = byKind.get(event.type) ?? [];
    items.push({ event, summary: summarizeEvent(event, context) });
    byKind.set(event.type, items);
  }
  const groups = [...byKind].map(([kind, items]) => ({
    kind,
    items: items.sort(
      (a, b) =>
        severityRank(b.summary.severity) - severityRank(a.summary.severity) ||
        a.event.timestamp.localeCompare(b.event.timestamp),
    ),
  }));
  return groups.sort((a, b) => maxRank(b) - maxRank(a) || kindOrder(a.kind) - kindOrder(b.kind));
}

function digestSubject(count: number, groups: readonly Group[], context: FormatContext): string {
  const head = `[perimeter] ${count} events for ${oneLine(context.teamName)}: `;
  const parts = groups.map((g) => kindCount(g.kind, g.items.length));
  for (let shown = parts.length; shown >= 1; shown -= 1) {
    const more = parts.length - shown;
    const subject = head + parts.slice(0, shown).join(', ') + (more > 0 ? ` and ${more} more kinds` : '');
    if (subject.length <= subjectMax) return subject;
  }
  return truncate(head + parts.join(', '), subjectMax);
}

function factLines(facts: readonly SummaryFact[], indent: string): string[] {
  return facts.map((f) => `${indent}${oneLine(f.label)}: ${oneLine(f.value)}`);
}

function itemText(item: Item, indent: string): string[] {
  const lines = factLines(item.summary.facts, indent);
  if (item.summary.link !== undefined) lines.push(`${indent}${item.summary.link.label}: ${item.summary.link.url}`);
  return lines;
}

function footerText(context: FormatContext): string[] {
  return [
    '-- ',
    `Sent by perimeter for team ${oneLine(context.teamName)} through the webhook ${oneLine(context.webhookName)}.`,
    `Console: ${context.consoleBase}`,
  ];
}

function singleText(item: Item, context: FormatContext): string {
  return [
    oneLine(item.summary.title),
    '',
    ...itemText(item, ''),
    `Time: ${item.event.timestamp}`,
    '',
    ...footerText(context),
  ].join('\n');
}

function digestText(count: number, groups: readonly Group[], context: FormatContext): string {
  const lines = [`${count} events for team ${oneLine(context.teamName)}.`];
  for (const group of groups) {
    lines.push('', `== ${kindCount(group.kind, group.items.length)} ==`);
    for (const item of group.items) {
      lines.push('', `* ${oneLine(item.summary.title)} (${item.event.timestamp})`, ...itemText(item, '  '));
    }
  }
  return [...lines, '', ...footerText(context)].join('\n');
}

const font = 'font-family:Arial,Helvetica,sans-serif;color:#1f2933;';
const severityColours: Record<string, string> = {
  critical: '#8b0000',
  high: '#c0392b',
  medium: '#d35400',
  low: '#b7950b',
  information: '#2e86c1',
};

function factRows(facts: readonly SummaryFact[]): string {
  return facts
    .map(
      (f) =>
        `<tr><td style="padding:2px 12px 2px 0;color:#52606d;vertical-align:top;white-space:nowrap;">${escapeHtml(f.label)}</td>` +
        `<td style="padding:2px 0;word-break:break-word;">${escapeHtml(f.value)}</td></tr>`,
    )
    .join('');
}

function itemHtml(item: Item, heading: 'h1' | 'h3'): string {
  const colour = severityColours[item.summary.severity ?? ''] ?? '#1f2933';
  const size = heading === 'h1' ? '20px' : '15px';
  const link = item.summary.link;
  const button =
    link === undefined
      ? ''
      : `<p style="margin:8px 0 0 0;"><a href="${escapeHtml(link.url)}" style="display:inline-block;padding:6px 12px;background:#1f4e79;color:#ffffff;text-decoration:none;border-radius:3px;">${escapeHtml(link.label)}</a></p>`;
  return (
    `<div style="margin:0 0 16px 0;padding:0 0 0 10px;border-left:4px solid ${colour};">` +
    `<${heading} style="margin:0 0 6px 0;font-size:${size};color:${colour};">${escapeHtml(item.summary.title)}</${heading}>` +
    `<table role="presentation" style="border-collapse:collapse;font-size:14px;">${factRows(item.summary.facts)}` +
    `<tr><td style="padding:2px 12px 2px 0;color:#52606d;">Time</td><td style="padding:2px 0;">${escapeHtml(item.event.timestamp)}</td></tr></table>` +
    `${button}</div>`
  );
}

function page(title: string, content: string, context: FormatContext): string {
  const footer =
    `<p style="margin:24px 0 0 0;font-size:12px;color:#7b8794;">Sent by perimeter for team ${escapeHtml(context.teamName)} ` +
    `through the webhook ${escapeHtml(context.webhookName)}.</p>`;
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body style="margin:0;padding:16px;${font}"><div style="max-width:680px;${font}">${content}${footer}</div></body></html>`
  );
}

function digestHtml(subject: string, count: number, groups: readonly Group[], context: FormatContext): string {
  const sections = groups.map(
    (g) =>
      `<h2 style="margin:24px 0 10px 0;font-size:17px;border-bottom:1px solid #cbd2d9;padding-bottom:4px;">${escapeHtml(kindCount(g.kind, g.items.length))}</h2>` +
      g.items.map((i) => itemHtml(i, 'h3')).join(''),
  );
  const intro = `<p style="margin:0 0 8px 0;font-size:15px;">${escapeHtml(`${count} events for team ${context.teamName}.`)}</p>`;
  return page(subject, intro + sections.join(''), context);
}

/** The e-mail of one event or of a digest of several (at least one). */
export const emailMessage: EmailFormatter = (events, context) => {
  const groups = groupEvents(events, context);
  const first = groups[0]?.items[0];
  if (first === undefined) throw new Error('an e-mail needs at least one event');
  if (events.length === 1) {
    const subject = truncate(`[perimeter] ${oneLine(first.summary.title)}`, subjectMax);
    return { subject, text: singleText(first, context), html: page(subject, itemHtml(first, 'h1'), context) };
  }
  const subject = digestSubject(events.length, groups, context);
  return {
    subject,
    text: digestText(events.length, groups, context),
    html: digestHtml(subject, events.length, groups, context),
  };
};
