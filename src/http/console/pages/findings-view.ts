import MarkdownIt from 'markdown-it';
import { html, join, safeHref, trusted, type Html } from '../html.ts';

/**
 * How the findings pages show a vulnerability's parts: severity and status badges, CVSS, the
 * evidence with the matched parts highlighted, details by kind. Everything from the finding is
 * text: escaped, links http(s) only, Markdown rendered with raw HTML off.
 */

/** The v2 wire shape of a vulnerability, as far as the pages read it. */
export interface WireFinding {
  uuid: string;
  title: string;
  host: string;
  severity: string;
  status: string;
  scan_source: string;
  scan_profile_token: string;
  asset: { name: string; token: string };
  created_at: string;
  updated_at: string;
  modified_at: string;
  cwe: number;
  cvss_scores: Partial<
    Record<'cvss_2_0' | 'cvss_3_0' | 'cvss_3_1', { score: number; severity: string; vector: string }>
  >;
  definition: { title: string; description: string; risk: string };
  owasp: Array<{ classification: string; year: number }>;
  references: Array<{ link: string; name: string; source: string }>;
  tags: Array<{ name: string; uuid: string }>;
  source?: { value: string };
  request?: { method: string; url: string; body: string; headers: Array<{ name: string; value: string }> };
  response?: { body: string; status_code: number; headers: Array<{ name: string; value: string }> };
  details: Record<string, Array<DetailEntry>>;
}

/** One entry of `details` (text, markdown, html …): its topic, what it highlights, its value. */
export interface DetailEntry {
  topic: string;
  highlights: Array<{ field: string; value: string; length: number; offset: number }>;
  value?: string;
  link?: string;
  /** Geography entries: where an address is. */
  city?: string;
  region?: string;
  country_name?: string;
}

/** The severities from the most to the least severe, as the wire writes them. */
export const severityOrder = ['critical', 'high', 'medium', 'low', 'information'] as const;

export function severityBadge(severity: string): Html {
  return html`<span class="sev sev-${severity}">${severity}</span>`;
}

export function statusBadge(status: string): Html {
  return html`<span class="status status-${status}">${status.replace('_', ' ')}</span>`;
}

/** A wire time as `YYYY-MM-DD HH:MM` (UTC), in a <time> element. */
export function time(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')}</time>`;
}

/** The highest CVSS version given: its score and vector. */
export function cvssOf(finding: WireFinding): { version: string; score: number; vector: string } | undefined {
  for (const [key, version] of [
    ['cvss_3_1', '3.1'],
    ['cvss_3_0', '3.0'],
    ['cvss_2_0', '2.0'],
  ] as const) {
    const cvss = finding.cvss_scores[key];
    if (cvss !== undefined) return { version, score: cvss.score, vector: cvss.vector };
  }
  return undefined;
}

/**
 * A text with every occurrence of the needles marked (<mark>), the rest escaped. Needles are the
 * values the scanner's highlights name: what it matched in the response.
 */
export function highlighted(text: string, needles: string[]): Html {
  const wanted = [...new Set(needles.filter((n) => n.length >= 3))];
  if (wanted.length === 0) return html`${text}`;
  const ranges: Array<[number, number]> = [];
  for (const needle of wanted) {
    for (let at = text.indexOf(needle); at !== -1 && ranges.length < 200; at = text.indexOf(needle, at + needle.length))
      ranges.push([at, at + needle.length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const parts: Html[] = [];
  let cursor = 0;
  for (const [start, end] of ranges) {
    if (start < cursor) continue;
    parts.push(html`${text.slice(cursor, start)}<mark>${text.slice(start, end)}</mark>`);
    cursor = end;
  }
  parts.push(html`${text.slice(cursor)}`);
  return join(parts);
}

/** The values a finding's highlights name (what the scanner matched). */
export function highlightValues(finding: WireFinding): string[] {
  const values: string[] = [];
  for (const entries of Object.values(finding.details))
    for (const entry of entries) for (const h of entry.highlights) values.push(h.value);
  return values;
}

/** An HTTP message (request or response) as text: first line, headers, blank line, body. */
export function messageText(first: string, headers: Array<{ name: string; value: string }>, body: string): string {
  const head = [first, ...headers.map((h) => `${h.name}: ${h.value}`)].join('\n');
  return body === '' ? head : `${head}\n\n${body}`;
}

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** Text a finding writes in Markdown (its description, its risk): rendered with raw HTML off, links checked. */
export function markdownText(text: string): Html {
  return trusted(markdown.render(text));
}

/** One detail entry as the page shows it: Markdown rendered (raw HTML off), HTML and text as text, links as links. */
export function detailBody(kind: string, entry: DetailEntry, needles: string[]): Html | undefined {
  if (kind === 'markdown' && entry.value !== undefined) return trusted(markdown.render(entry.value));
  if (entry.value !== undefined) return html`<pre class="evidence">${highlighted(entry.value, needles)}</pre>`;
  if (entry.link !== undefined)
    return html`<p><a href="${safeHref(entry.link)}" rel="noreferrer noopener">${entry.link}</a></p>`;
  const place = [entry.city, entry.region, entry.country_name].filter((p) => p !== undefined && p !== '');
  if (place.length > 0) return html`<p>${place.join(', ')}</p>`;
  return undefined;
}
