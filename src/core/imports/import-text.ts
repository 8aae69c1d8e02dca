import { ImportParseError } from './import.types.ts';

/** The 1-based line of an offset in the text. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}

/** Lines of the text (a final line end does not start another). */
export function countLines(text: string): number {
  if (text === '') return 0;
  return lineAt(text, text.length) - (text.endsWith('\n') ? 1 : 0);
}

/**
 * Parses a JSON document; one that does not parse fails with ImportParseError naming the line of
 * the first error (`lineOffset` is added: a JSONL line's number). JSON.parse of Node 20 does not
 * always say where it stopped, so a failed text is scanned again by a strict reader that does.
 */
export function parseJson(text: string, what: string, lineOffset = 0): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const { offset, reason } = locateJsonError(text);
    const line = lineAt(text, offset) + lineOffset;
    throw new ImportParseError(`${what} is not valid JSON at line ${line}: ${reason}`, line);
  }
}

/** A failure of the strict JSON reader: where and why. */
class JsonStop extends Error {
  constructor(
    readonly offset: number,
    reason: string,
  ) {
    super(reason);
  }
}

/** A strict JSON reader that only tells where a text stops being JSON. */
class JsonLocator {
  private at = 0;
  constructor(private readonly text: string) {}

  private fail(reason: string): never {
    throw new JsonStop(this.at, reason);
  }

  private ws(): void {
    while (this.at < this.text.length && ' \t\r\n'.includes(this.text[this.at]!)) this.at++;
  }

  /** The next character after blanks; the end of the text is a failure (a truncated file). */
  private next(): string {
    this.ws();
    if (this.at >= this.text.length) this.fail('the file ends inside a value (truncated?)');
    return this.text[this.at]!;
  }

  document(): void {
    this.value();
    this.ws();
    if (this.at < this.text.length) this.fail('more text after the JSON value');
  }

  private value(): void {
    const c = this.next();
    if (c === '{') return this.members('}', () => this.member(), "expected ',' or '}' after a property value");
    if (c === '[') return this.members(']', () => this.value(), "expected ',' or ']' after an array element");
    if (c === '"') return this.string();
    const literal = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(
      this.text.slice(this.at, this.at + 400),
    );
    if (literal === null) this.fail(`unexpected character ${JSON.stringify(c)}`);
    this.at += literal[0].length;
  }

  private members(close: string, item: () => void, expected: string): void {
    this.at++;
    if (this.next() === close) return void this.at++;
    for (;;) {
      item();
      const c = this.next();
      this.at++;
      if (c === close) return;
      if (c !== ',') {
        this.at--;
        this.fail(expected);
      }
    }
  }

  private member(): void {
    if (this.next() !== '"') this.fail('expected a property name in double quotes');
    this.string();
    if (this.next() !== ':') this.fail("expected ':' after a property name");
    this.at++;
    this.value();
  }

  private string(): void {
    const { text } = this;
    this.at++;
    for (;;) {
      if (this.at >= text.length) this.fail('the file ends inside a string (truncated?)');
      const c = text[this.at]!;
      if (c === '"') return void this.at++;
      if (c === '\n') this.fail('a string is not closed on its line');
      if (c < ' ') this.fail('control character in a string');
      if (c !== '\\') {
        this.at++;
        continue;
      }
      this.at++;
      if (text[this.at] === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(this.at + 1, this.at + 5))) this.at += 5;
      else if ('"\\/bfnrt'.includes(text[this.at] ?? 'x')) this.at++;
      else this.fail('bad escape in a string');
    }
  }
}

/** Where a text stops being JSON, and why (the text is known not to parse). */
export function locateJsonError(text: string): { offset: number; reason: string } {
  try {
    new JsonLocator(text).document();
    return { offset: Math.max(0, text.length - 1), reason: 'not valid JSON' };
  } catch (err) {
    if (err instanceof JsonStop) return { offset: err.offset, reason: err.message };
    throw err;
  }
}

/** An XML element of a parsed document. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  line: number;
}

const entities: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string, line: () => number): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);|&/g, (whole, ref: string | undefined) => {
    if (ref === undefined) throw new ImportParseError(`XML is not well-formed at line ${line()}: a bare '&'`, line());
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    const known = entities[ref];
    if (known === undefined)
      throw new ImportParseError(`XML is not well-formed at line ${line()}: unknown entity ${whole}`, line());
    return known;
  });
}

/**
 * A strict reader of the XML subset tools write (elements, attributes, text, comments, processing
 * instructions, a DOCTYPE without an internal subset, CDATA): a document that is not well-formed
 * (a tag not closed, closed by another name, text after the root, a file cut short) fails with
 * ImportParseError naming the line. Text content is not kept.
 */
class XmlReader {
  private at = 0;
  private line = 1;
  private counted = 0;
  private readonly stack: XmlElement[] = [];
  private root: XmlElement | undefined;

  constructor(private readonly text: string) {}

  /** The line of the reader's position (counted forward, once). */
  private lineNow = (): number => {
    const { text } = this;
    for (let i = text.indexOf('\n', this.counted); i !== -1 && i < this.at; i = text.indexOf('\n', i + 1)) this.line++;
    this.counted = Math.max(this.counted, this.at);
    return this.line;
  };

  private fail(reason: string): never {
    const line = this.lineNow();
    throw new ImportParseError(`XML is not well-formed at line ${line}: ${reason}`, line);
  }

  private skipPast(token: string, what: string): void {
    const end = this.text.indexOf(token, this.at);
    if (end === -1) {
      this.at = this.text.length;
      this.fail(`${what} is not closed (the file is cut short?)`);
    }
    this.at = end + token.length;
  }

  document(): XmlElement {
    const { text } = this;
    while (this.at < text.length) {
      const lt = text.indexOf('<', this.at);
      const chunk = lt === -1 ? text.slice(this.at) : text.slice(this.at, lt);
      if (chunk.trim() !== '' && this.stack.length === 0) this.fail('text outside the root element');
      if (lt === -1) break;
      this.at = lt;
      this.markup();
    }
    const open = this.stack.at(-1);
    if (open !== undefined) {
      this.at = text.length;
      this.fail(`the file ends inside <${open.name}> opened at line ${open.line} (truncated?)`);
    }
    return this.root ?? this.fail('no root element');
  }

  private markup(): void {
    const { text } = this;
    if (text.startsWith('<?', this.at)) this.skipPast('?>', 'a processing instruction');
    else if (text.startsWith('<!--', this.at)) this.skipPast('-->', 'a comment');
    else if (text.startsWith('<![CDATA[', this.at)) {
      if (this.stack.length === 0) this.fail('CDATA outside the root element');
      this.skipPast(']]>', 'a CDATA section');
    } else if (text.startsWith('<!DOCTYPE', this.at)) {
      if (this.root !== undefined) this.fail('a DOCTYPE after the root element');
      this.skipPast('>', 'the DOCTYPE');
    } else if (text.startsWith('</', this.at)) this.endTag();
    else this.startTag();
  }

  private endTag(): void {
    this.at += 2;
    const m = /^([A-Za-z_:][\w.:-]*)\s*>/.exec(this.text.slice(this.at, this.at + 300));
    if (m === null) this.fail('a malformed end tag');
    const open = this.stack.pop();
    if (open === undefined || open.name !== m[1])
      this.fail(`</${m[1]}> closes ${open === undefined ? 'nothing' : `<${open.name}> of line ${open.line}`}`);
    this.at += m[0].length;
  }

  private startTag(): void {
    this.at += 1;
    const m = /^[A-Za-z_:][\w.:-]*/.exec(this.text.slice(this.at, this.at + 300));
    if (m === null) this.fail("'<' that starts no tag");
    const element: XmlElement = { name: m[0], attrs: {}, children: [], line: this.lineNow() };
    this.at += m[0].length;
    const isSelfClosing = this.attributes(element);
    const parent = this.stack.at(-1);
    if (parent !== undefined) parent.children.push(element);
    else if (this.root !== undefined) this.fail(`a second root element <${element.name}>`);
    else this.root = element;
    if (!isSelfClosing) this.stack.push(element);
  }

  /** Reads the attributes of a start tag up to its end; true when it closes itself. */
  private attributes(element: XmlElement): boolean {
    const { text } = this;
    for (;;) {
      while (this.at < text.length && /\s/.test(text[this.at]!)) this.at++;
      if (this.at >= text.length) this.fail(`the tag <${element.name}> is not closed (the file is cut short?)`);
      if (text.startsWith('/>', this.at)) {
        this.at += 2;
        return true;
      }
      if (text[this.at] === '>') {
        this.at++;
        return false;
      }
      const a = /^([A-Za-z_:][\w.:-]*)\s*=\s*(["'])/.exec(text.slice(this.at, this.at + 300));
      if (a === null) this.fail(`a malformed attribute in <${element.name}>`);
      this.at += a[0].length;
      const close = text.indexOf(a[2]!, this.at);
      if (close === -1) {
        this.at = text.length;
        this.fail(`an attribute value in <${element.name}> is not closed (the file is cut short?)`);
      }
      const raw = text.slice(this.at, close);
      if (raw.includes('<')) this.fail(`'<' inside an attribute value of <${element.name}>`);
      if (Object.hasOwn(element.attrs, a[1]!)) this.fail(`attribute ${a[1]} repeated in <${element.name}>`);
      element.attrs[a[1]!] = decodeEntities(raw, this.lineNow);
      this.at = close + 1;
    }
  }
}

/** Parses an XML document strictly (XmlReader); a malformed one fails with ImportParseError naming the line. */
export function parseXml(text: string): XmlElement {
  return new XmlReader(text).document();
}

/** Lower-case host of a URL or `host[:port]` text; undefined when it names none. */
export function hostOf(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const value = text.trim();
  if (value === '') return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    try {
      const host = new URL(value).hostname.replace(/^\[|\]$/g, '');
      return host === '' ? undefined : host.toLowerCase().replace(/\.$/, '');
    } catch {
      return undefined;
    }
  }
  if (value.includes('/') || /\s/.test(value)) return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed !== null) return bracketed[1]!.toLowerCase();
  const colons = value.split(':').length - 1;
  const host = colons === 1 ? value.split(':')[0]! : value;
  return host.toLowerCase().replace(/\.$/, '') || undefined;
}
