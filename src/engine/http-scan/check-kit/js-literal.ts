import { jsTokens, stringValue, type JsToken } from './js-tokens.ts';

/** A JavaScript literal value the scanner can read without running code. */
export type JsLiteral = string | number | boolean | null | JsLiteral[] | { [key: string]: JsLiteral };

/** Tokens one literal may span at most: a bundle's giant object is not worth reading. */
const maxTokens = 5000;

/**
 * Reads tokens of JavaScript one at a time, comments skipped, up to a bound. Every parse
 * function answers undefined for what it cannot read: a variable, a call, a spread, a
 * computed key. The caller then skips the whole construct (conservative by design).
 */
export class JsTokenReader {
  private readonly tokens: Iterator<JsToken>;
  private current: JsToken | undefined;
  private count = 0;

  constructor(code: string, from: number) {
    this.tokens = jsTokens(code, from);
    this.current = this.pull();
  }

  private pull(): JsToken | undefined {
    for (;;) {
      if (this.count >= maxTokens) return undefined;
      const next = this.tokens.next();
      if (next.done === true) return undefined;
      this.count += 1;
      if (next.value.type !== 'comment') return next.value;
    }
  }

  /** The next token, not consumed. */
  peek(): JsToken | undefined {
    return this.current;
  }

  /** Consumes and answers the next token. */
  next(): JsToken | undefined {
    const token = this.current;
    this.current = this.pull();
    return token;
  }

  /** Consumes the next token when it is the punctuator `text`. */
  accept(text: string): boolean {
    if (this.current?.type !== 'punctuator' || this.current.text !== text) return false;
    this.next();
    return true;
  }

  /** Consumes the next token when it is the identifier `name`. */
  acceptIdentifier(name: string): boolean {
    if (this.current?.type !== 'identifier' || this.current.text !== name) return false;
    this.next();
    return true;
  }

  /** Skips one value of any shape (balanced brackets) up to the next `,` or closing bracket at its level. */
  skipValue(): boolean {
    let depth = 0;
    for (let token = this.peek(); token !== undefined; token = this.peek()) {
      if (token.type === 'punctuator') {
        if ('([{'.includes(token.text)) depth += 1;
        else if (')]}'.includes(token.text)) {
          if (depth === 0) return true;
          depth -= 1;
        } else if (token.text === ',' && depth === 0) return true;
      }
      this.next();
    }
    return false;
  }
}

/** A property key: an identifier, a string or a number; undefined for computed keys and spreads. */
function parseKey(reader: JsTokenReader): string | undefined {
  const token = reader.peek();
  if (token === undefined) return undefined;
  if (token.type === 'identifier') {
    reader.next();
    return token.text;
  }
  if (token.type === 'number') {
    reader.next();
    return String(Number(token.text));
  }
  const value = stringValue(token);
  if (value === undefined || token.type !== 'string') return undefined;
  reader.next();
  return value;
}

/**
 * An object literal `{key: value, …}`. Properties named by `lenient` may hold anything (their
 * value is skipped); every other value must be a literal, or the object is unreadable.
 */
export function parseObjectLiteral(
  reader: JsTokenReader,
  lenient: (key: string) => boolean = () => false,
): Record<string, JsLiteral> | undefined {
  if (!reader.accept('{')) return undefined;
  const out: Record<string, JsLiteral> = {};
  while (!reader.accept('}')) {
    const key = parseKey(reader);
    if (key === undefined || !reader.accept(':')) return undefined;
    if (lenient(key)) {
      if (!reader.skipValue()) return undefined;
    } else {
      const value = parseLiteral(reader);
      if (value === undefined) return undefined;
      out[key] = value;
    }
    if (!reader.accept(',') && reader.peek()?.text !== '}') return undefined;
  }
  return out;
}

/**
 * A literal value: a string, a substitution-free template, a number (signed), true, false,
 * null, an array or object of literals, or `JSON.stringify(literal)` (read as the JSON text it
 * makes). Anything else answers undefined.
 */
export function parseLiteral(reader: JsTokenReader): JsLiteral | undefined {
  const token = reader.peek();
  if (token === undefined) return undefined;
  const text = stringValue(token);
  if (text !== undefined) {
    reader.next();
    return text;
  }
  if (token.type === 'number' || (token.type === 'punctuator' && token.text === '-')) {
    const sign = reader.accept('-') ? -1 : 1;
    const number = reader.next();
    const value = number?.type === 'number' ? Number(number.text.replace(/_/g, '')) : Number.NaN;
    return Number.isFinite(value) ? sign * value : undefined;
  }
  if (token.type === 'identifier') {
    if (token.text === 'true' || token.text === 'false' || token.text === 'null') {
      reader.next();
      return token.text === 'null' ? null : token.text === 'true';
    }
    if (
      reader.acceptIdentifier('JSON') &&
      reader.accept('.') &&
      reader.acceptIdentifier('stringify') &&
      reader.accept('(')
    ) {
      const value = parseLiteral(reader);
      return value !== undefined && reader.accept(')') ? JSON.stringify(value) : undefined;
    }
    return undefined;
  }
  if (token.text === '{') return parseObjectLiteral(reader);
  if (reader.accept('[')) {
    const items: JsLiteral[] = [];
    while (!reader.accept(']')) {
      const item = parseLiteral(reader);
      if (item === undefined) return undefined;
      items.push(item);
      if (!reader.accept(',') && reader.peek()?.text !== ']') return undefined;
    }
    return items;
  }
  return undefined;
}
