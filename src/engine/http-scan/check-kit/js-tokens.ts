/**
 * A small, lenient JavaScript tokenizer. It knows just enough of the language to tell code from
 * strings, template literals, comments and regular expression literals, which is what the
 * scanner needs: where a reflected value sits inside a `<script>` block, whether an injected
 * call became code, and which literal objects a `fetch()` call passes. It never throws: an
 * unterminated string or comment ends at the end of the line or of the code, like a browser's
 * error recovery would leave it.
 */

/** The kinds of tokens the scanner distinguishes. */
export type JsTokenType = 'string' | 'template' | 'comment' | 'regex' | 'identifier' | 'number' | 'punctuator';

/** One token: its kind, its place in the code and its source text. */
export interface JsToken {
  type: JsTokenType;
  start: number;
  end: number;
  text: string;
}

const IDENTIFIER_START = /[A-Za-z_$\u0080-\uffff]/;
const IDENTIFIER_PART = /[\w$\u0080-\uffff]/;
const NUMBER = /^(?:0[xXoObB][\da-fA-F_]+n?|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?n?)/;
/** After these keywords a slash starts a regular expression literal, not a division. */
const REGEX_AFTER_KEYWORD = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'instanceof',
  'yield',
  'await',
]);
const PUNCTUATORS = [
  '>>>=',
  '...',
  '===',
  '!==',
  '**=',
  '<<=',
  '>>=',
  '>>>',
  '&&=',
  '||=',
  '??=',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '?.',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '<<',
  '>>',
  '**',
];

/** True when a slash after `previous` starts a regular expression (the usual heuristic). */
function slashStartsRegex(previous: JsToken | undefined): boolean {
  if (previous === undefined) return true;
  if (previous.type === 'identifier') return REGEX_AFTER_KEYWORD.has(previous.text);
  if (previous.type === 'punctuator') return previous.text !== ')' && previous.text !== ']';
  return false;
}

/** The end of a quoted string starting at `start` (the quote): after the closing quote, or at the line's end. */
function stringEnd(code: string, start: number): number {
  const quote = code[start];
  let i = start + 1;
  while (i < code.length) {
    const c = code[i];
    if (c === '\\') i += 2;
    else if (c === quote) return i + 1;
    else if (c === '\n') return i;
    else i += 1;
  }
  return code.length;
}

/** The end of a template literal starting at `start`, substitutions (with nested braces and strings) included. */
function templateEnd(code: string, start: number): number {
  let i = start + 1;
  while (i < code.length) {
    const c = code[i];
    if (c === '\\') {
      i += 2;
    } else if (c === '`') {
      return i + 1;
    } else if (c === '$' && code[i + 1] === '{') {
      let depth = 1;
      i += 2;
      while (i < code.length && depth > 0) {
        const d = code[i]!;
        if (d === '{') depth += 1;
        else if (d === '}') depth -= 1;
        if (d === '"' || d === "'") i = stringEnd(code, i);
        else if (d === '`') i = templateEnd(code, i);
        else i += 1;
      }
    } else {
      i += 1;
    }
  }
  return code.length;
}

/** The end of a regular expression literal starting at `start` (the slash), its flags included. */
function regexEnd(code: string, start: number): number {
  let i = start + 1;
  let isInClass = false;
  while (i < code.length) {
    const c = code[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '\n') return i;
    if (c === '[') isInClass = true;
    else if (c === ']') isInClass = false;
    else if (c === '/' && !isInClass) {
      i += 1;
      while (i < code.length && /[a-z]/i.test(code[i]!)) i += 1;
      return i;
    }
    i += 1;
  }
  return code.length;
}

/** The end of the token starting at `i` and its kind (never a white-space position). */
function scanToken(code: string, i: number, previous: JsToken | undefined): { type: JsTokenType; end: number } {
  const c = code[i]!;
  const next = code[i + 1];
  if (c === '/' && next === '/') {
    const eol = code.indexOf('\n', i);
    return { type: 'comment', end: eol < 0 ? code.length : eol };
  }
  if (c === '/' && next === '*') {
    const close = code.indexOf('*/', i + 2);
    return { type: 'comment', end: close < 0 ? code.length : close + 2 };
  }
  // An HTML comment opener in a script is a line comment in browsers.
  if (c === '<' && code.startsWith('<!--', i)) {
    const eol = code.indexOf('\n', i);
    return { type: 'comment', end: eol < 0 ? code.length : eol };
  }
  if (c === '"' || c === "'") return { type: 'string', end: stringEnd(code, i) };
  if (c === '`') return { type: 'template', end: templateEnd(code, i) };
  if (c === '/' && slashStartsRegex(previous)) return { type: 'regex', end: regexEnd(code, i) };
  if (IDENTIFIER_START.test(c)) {
    let end = i + 1;
    while (end < code.length && IDENTIFIER_PART.test(code[end]!)) end += 1;
    return { type: 'identifier', end };
  }
  const number =
    /\d/.test(c) || (c === '.' && next !== undefined && /\d/.test(next)) ? NUMBER.exec(code.slice(i, i + 64)) : null;
  if (number !== null) return { type: 'number', end: i + number[0].length };
  const punctuator = PUNCTUATORS.find((p) => code.startsWith(p, i));
  return { type: 'punctuator', end: i + (punctuator?.length ?? 1) };
}

/**
 * The tokens of `code` from `from` on, lazily (a caller reading one call of a large bundle
 * stops early). White space is skipped; comments are tokens, so callers may skip them.
 */
export function* jsTokens(code: string, from = 0): Generator<JsToken> {
  let i = from;
  let previous: JsToken | undefined;
  while (i < code.length) {
    if (/\s/.test(code[i]!)) {
      i += 1;
      continue;
    }
    const { type, end } = scanToken(code, i, previous);
    const token: JsToken = { type, start: i, end, text: code.slice(i, end) };
    if (type !== 'comment') previous = token;
    yield token;
    i = end;
  }
}

/** The token of `code` that covers offset `at`, or undefined when `at` is white space between tokens. */
export function tokenAt(code: string, at: number): JsToken | undefined {
  for (const token of jsTokens(code)) {
    if (token.end > at) return token.start <= at ? token : undefined;
  }
  return undefined;
}

/** The value of a string or substitution-free template token (escapes resolved), undefined otherwise. */
export function stringValue(token: JsToken): string | undefined {
  if (token.type !== 'string' && token.type !== 'template') return undefined;
  const quote = token.text[0]!;
  if (token.text.length < 2 || token.text.at(-1) !== quote) return undefined;
  const inner = token.text.slice(1, -1);
  if (token.type === 'template' && inner.includes('${')) return undefined;
  return inner.replace(/\\(u\{[\da-fA-F]+\}|u[\da-fA-F]{4}|x[\da-fA-F]{2}|\r\n|[\s\S])/g, (_m, escape: string) => {
    if (escape.startsWith('u{')) return String.fromCodePoint(parseInt(escape.slice(2, -1), 16));
    if (escape.length > 1 && (escape[0] === 'u' || escape[0] === 'x'))
      return String.fromCharCode(parseInt(escape.slice(1), 16));
    const simple: Record<string, string> = {
      n: '\n',
      r: '\r',
      t: '\t',
      b: '\b',
      f: '\f',
      v: '\v',
      '0': '\0',
      '\n': '',
      '\r\n': '',
    };
    return simple[escape] ?? escape;
  });
}
