/**
 * HTML built from tagged templates that escape by default: every value put into `html`...``
 * is escaped for the text or quoted attribute it lands in, unless it is itself Html (made by
 * `html` or, for markup the program wrote, `trusted`). Arrays are joined; null, undefined and
 * false render nothing. There is no other way to build a page, so text from the store, a finding
 * or a request can never become markup.
 */

/** Markup that is safe to send as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What a template accepts as a value. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text escaped for HTML content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c]!);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v)).join('');
  return escapeHtml(String(value));
}

/** The template tag: literal parts as written, values escaped (see the note at the top). */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup the program itself produced (an SVG from the QR code library); never text from outside. */
export function trusted(markup: string): Html {
  return new Html(markup);
}

/** Joins pieces of markup with a separator (escaped when it is text). */
export function join(items: readonly HtmlValue[], separator: HtmlValue = ''): Html {
  return new Html(items.map(render).join(render(separator)));
}

/**
 * A URL from outside (a finding's references) for an href: http and https only; anything else
 * (javascript:, data:) becomes '#', so a link can never run script.
 */
export function safeHref(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : '#';
  } catch {
    return '#';
  }
}
