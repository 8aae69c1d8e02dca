/**
 * Rules every stored or compared text of the API shares, whatever the store: PostgreSQL text
 * cannot hold NUL (U+0000) and answers a server error for it, while SQLite stores it; so no
 * field accepts it, each refusing it with its own "malformed" code and naming itself.
 */

/** True when the text holds a NUL character (U+0000). */
export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/** True when the text holds a control character (U+0000 to U+001F, U+007F). */
export function hasControlCharacter(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
  return /[\x00-\x1f\x7f]/.test(text);
}
