import type { HttpExchange } from '../check-kit/guarded-http-client.ts';

/** The first match of `pattern` in `body` that the baseline body does not contain, with its offset. */
export function firstNewMatch(
  pattern: RegExp,
  body: string,
  baseline: string,
): { value: string; offset: number } | undefined {
  const match = pattern.exec(body);
  if (match === null || baseline.includes(match[0])) return undefined;
  return { value: match[0], offset: match.index };
}

/** A body with every echo of the given payloads removed (raw, HTML-escaped and URL-encoded forms). */
export function withoutEchoes(body: string, payloads: string[]): string {
  let out = body;
  for (const payload of payloads) {
    const forms = new Set([
      payload,
      payload.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`),
      payload
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#x27;'),
      encodeURIComponent(payload),
    ]);
    for (const form of forms) if (form !== '') out = out.split(form).join('');
  }
  return out;
}

/**
 * True when two answers are the same page: same status and the same body once the payloads'
 * echoes are removed (a search page that prints the term is not a changed answer).
 */
export function sameAnswer(a: HttpExchange, b: HttpExchange, payloads: string[]): boolean {
  return a.status === b.status && withoutEchoes(a.body, payloads) === withoutEchoes(b.body, payloads);
}
