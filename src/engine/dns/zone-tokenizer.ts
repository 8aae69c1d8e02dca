import { QUOTE_MARK } from './text-values.ts';
import { ZoneSyntaxError } from './zone-record.ts';

/** One logical entry of a zone file: the tokens of one line, or of several lines inside parentheses. */
export interface ZoneEntry {
  /** Line of the first token. */
  line: number;
  /** The entry's first line starts with blank space: the owner is the previous one (RFC 1035 §5.1). */
  isOwnerBlank: boolean;
  /** Raw token texts, escapes kept; a token read from a quoted string starts with `"` (its text follows). */
  tokens: string[];
  /** Line of each token, for error messages inside multi-line entries. */
  lines: number[];
}

/** Size limits that keep the tokenizer's memory bounded whatever the input. */
export interface TokenizerLimits {
  /** Longest physical line, in characters. */
  maxLineChars: number;
  /** Most characters in one entry (all its tokens, across parenthesised lines). */
  maxEntryChars: number;
}

// A record's data is at most 65,535 bytes, about 4 times that in escaped text; one line or one
// entry beyond that cannot be a valid record, so the tokenizer stops rather than buffer it.
const DEFAULT_LIMITS: TokenizerLimits = { maxLineChars: 1 << 20, maxEntryChars: 1 << 20 };

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const FORM_FEED = 0x0c;
const SEMICOLON = 0x3b;
const OPEN = 0x28;
const CLOSE = 0x29;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isBlank(code: number): boolean {
  return code === SPACE || code === TAB || code === CR || code === FORM_FEED;
}

/**
 * Splits the master-file text of RFC 1035 §5.1 into entries, fed chunk by chunk: comments
 * (`;` to the end of the line), parentheses joining lines, quoted strings (a quote always
 * starts a new token, as BIND reads it) and backslash escapes (kept raw for the record parsers).
 * Only the current line and the current entry are held, never the whole text.
 */
export class ZoneTokenizer {
  private carry = '';
  private lineNumber = 1;
  private depth = 0;
  private openLine = 0;
  private tokens: string[] = [];
  private lines: number[] = [];
  private entryLine = 0;
  private isOwnerBlank = false;
  private entryChars = 0;

  constructor(private readonly limits: TokenizerLimits = DEFAULT_LIMITS) {}

  /** Tokenizes the complete lines of `chunk` (latin1 text), appending finished entries to `out`. */
  push(chunk: string, out: ZoneEntry[]): void {
    const text = this.carry.length > 0 ? this.carry + chunk : chunk;
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) break;
      this.readLine(text, start, newline, out);
      this.lineNumber += 1;
      start = newline + 1;
    }
    this.carry = start === 0 ? text : text.slice(start);
    if (this.carry.length > this.limits.maxLineChars) {
      throw new ZoneSyntaxError(this.lineNumber, `line longer than ${this.limits.maxLineChars} characters`);
    }
  }

  /** Reads the last line (one without a final newline) and checks that no parenthesis is left open. */
  end(out: ZoneEntry[]): void {
    if (this.carry.length > 0) {
      const text = this.carry;
      this.carry = '';
      this.readLine(text, 0, text.length, out);
    }
    if (this.depth > 0) throw new ZoneSyntaxError(this.openLine, 'unbalanced parentheses: "(" is never closed');
  }

  private readLine(text: string, start: number, end: number, out: ZoneEntry[]): void {
    const line = this.lineNumber;
    if (end - start > this.limits.maxLineChars)
      throw new ZoneSyntaxError(line, `line longer than ${this.limits.maxLineChars} characters`);
    const isNewEntry = this.depth === 0;
    if (isNewEntry) this.isOwnerBlank = start < end && isBlank(text.charCodeAt(start));
    let i = start;
    while (i < end) {
      const code = text.charCodeAt(i);
      if (isBlank(code)) {
        i += 1;
      } else if (code === SEMICOLON) {
        break;
      } else if (code === OPEN) {
        if (this.depth === 0) this.openLine = line;
        this.depth += 1;
        i += 1;
      } else if (code === CLOSE) {
        if (this.depth === 0) throw new ZoneSyntaxError(line, 'unbalanced parentheses: ")" without "("');
        this.depth -= 1;
        i += 1;
      } else if (code === QUOTE) {
        i = this.readQuoted(text, i, end, line);
      } else {
        i = this.readWord(text, i, end, line);
      }
    }
    if (this.depth === 0 && this.tokens.length > 0) this.flush(out);
  }

  private readQuoted(text: string, at: number, end: number, line: number): number {
    let j = at + 1;
    while (j < end) {
      const code = text.charCodeAt(j);
      if (code === QUOTE) break;
      j += code === BACKSLASH ? 2 : 1;
    }
    if (j >= end) throw new ZoneSyntaxError(line, 'unbalanced quotes: a quoted string must end on its line');
    this.add(QUOTE_MARK + text.slice(at + 1, j), line);
    return j + 1;
  }

  private readWord(text: string, at: number, end: number, line: number): number {
    let j = at;
    while (j < end) {
      const code = text.charCodeAt(j);
      if (code === BACKSLASH) {
        if (j + 1 >= end) throw new ZoneSyntaxError(line, 'backslash at the end of a line');
        j += 2;
      } else if (isBlank(code) || code === SEMICOLON || code === OPEN || code === CLOSE || code === QUOTE) {
        break;
      } else {
        j += 1;
      }
    }
    this.add(text.slice(at, j), line);
    return j;
  }

  private add(token: string, line: number): void {
    if (this.tokens.length === 0) {
      this.entryLine = line;
      this.entryChars = 0;
    }
    this.entryChars += token.length;
    if (this.entryChars > this.limits.maxEntryChars) {
      throw new ZoneSyntaxError(this.entryLine, `record longer than ${this.limits.maxEntryChars} characters`);
    }
    this.tokens.push(token);
    this.lines.push(line);
  }

  private flush(out: ZoneEntry[]): void {
    out.push({ line: this.entryLine, isOwnerBlank: this.isOwnerBlank, tokens: this.tokens, lines: this.lines });
    this.tokens = [];
    this.lines = [];
  }
}
