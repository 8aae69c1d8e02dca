import { canonicalName, PresentationError } from './dns-name.ts';
import { decodeText, parseUint } from './text-values.ts';

/**
 * Reads the record-data tokens of one zone-file entry in order. Every read remembers the line
 * of its token, so a fault in the middle of a parenthesised record names the right line.
 */
export class TokenCursor {
  /** Line of the token read last (or of the entry, before any read). */
  line: number;

  constructor(
    private readonly tokens: readonly string[],
    private readonly lines: readonly number[],
    private index: number,
    /** Canonical origin that relative names are completed with. */
    readonly origin: string,
  ) {
    this.line = lines[Math.min(index, lines.length - 1)] ?? 0;
  }

  /** True while tokens are left. */
  hasMore(): boolean {
    return this.index < this.tokens.length;
  }

  /** The next raw token (a quoted one starts with `"`), without consuming it. */
  peek(): string | undefined {
    return this.tokens[this.index];
  }

  /** The next raw token; its absence is an error naming what was expected. */
  next(what: string): string {
    const token = this.tokens[this.index];
    if (token === undefined) throw new PresentationError(`missing ${what}`);
    this.line = this.lines[this.index] ?? this.line;
    this.index += 1;
    return token;
  }

  /** The next token, which must not be a quoted string (numbers, names, addresses…). */
  word(what: string): string {
    const token = this.next(what);
    if (token.charCodeAt(0) === 0x22) throw new PresentationError(`${what} must not be quoted`);
    return token;
  }

  /** The next token as an unsigned integer no greater than max. */
  uint(what: string, max: number): number {
    return parseUint(this.word(what), max, what);
  }

  /** The next token as a canonical absolute name. */
  name(what: string): string {
    return canonicalName(this.word(what), this.origin);
  }

  /** The next token's bytes with escapes applied (quoted or not). */
  text(what: string): string {
    return decodeText(this.next(what));
  }

  /** Every remaining token, consumed; with `what`, at least one must be left. */
  rest(what?: string): string[] {
    if (what !== undefined && !this.hasMore()) throw new PresentationError(`missing ${what}`);
    const remaining = this.tokens.slice(this.index);
    if (remaining.length > 0) this.line = this.lines[this.tokens.length - 1] ?? this.line;
    this.index = this.tokens.length;
    return remaining;
  }

  /** The remaining unquoted tokens joined without spaces (hex and base64 may be split by blanks). */
  joinedRest(what: string): string {
    const parts = this.rest(what);
    for (const part of parts)
      if (part.charCodeAt(0) === 0x22) throw new PresentationError(`${what} must not be quoted`);
    return parts.join('');
  }

  /** Fails when tokens are left after the record data. */
  expectEnd(): void {
    if (this.hasMore()) {
      this.line = this.lines[this.index] ?? this.line;
      throw new PresentationError(`unexpected "${this.tokens[this.index]}" after the record data`);
    }
  }
}
