import { JsTokenReader, parseLiteral } from '../http-scan/check-kit/js-literal.ts';
import { jsTokens, type JsToken } from '../http-scan/check-kit/js-tokens.ts';

/**
 * What a page's inline scripts visibly assign to global variables, as property chains
 * (`jQuery`, `Foo.version`, `__APP__.build.id`), so that the rule set's `js` rules can be
 * matched without running any code. A value is a string or number when the source shows a
 * literal there, or `true` when it only shows that something (a function, a call) is assigned.
 */
export type GlobalValue = string | number | true;

/** Code read per inline script: a bundle inlined whole is not read past this. */
const maxScriptLength = 64 * 1024;
/** Chains recorded per page, object literals flattened included. */
const maxChains = 5000;
/** Depth of object literals flattened into chains. */
const maxDepth = 4;
/** Names through which code reaches the global object. */
const GLOBAL_OBJECTS = new Set(['window', 'self', 'globalThis', 'top', 'parent']);
const DECLARATIONS = new Set(['var', 'let', 'const']);

/**
 * Adds a value and, for an object literal, the chains of its properties. The reader sits on the
 * value: an object literal is read property by property, a value that is not a literal records
 * the chain as existing and is skipped.
 */
function readValue(reader: JsTokenReader, chain: string, out: Map<string, GlobalValue>, depth: number): void {
  if (out.size >= maxChains) return;
  const token = reader.peek();
  if (token?.type === 'punctuator' && token.text === '{' && depth < maxDepth) {
    out.set(chain, true);
    reader.next();
    while (!reader.accept('}')) {
      const key = reader.next();
      if (key === undefined || (key.type !== 'identifier' && key.type !== 'string' && key.type !== 'number')) return;
      const name = key.type === 'string' ? key.text.slice(1, -1) : key.text;
      if (reader.accept(':')) readValue(reader, `${chain}.${name}`, out, depth + 1);
      else if (reader.peek()?.text === '(') {
        // A method `name(…) {…}`: it exists; its body is skipped.
        out.set(`${chain}.${name}`, true);
        reader.skipValue();
      } else if (reader.peek()?.text === ',' || reader.peek()?.text === '}') out.set(`${chain}.${name}`, true);
      else return;
      if (!reader.accept(',') && reader.peek()?.text !== '}') return;
    }
    return;
  }
  const literal = parseLiteral(reader);
  if (typeof literal === 'string' || typeof literal === 'number') out.set(chain, literal);
  else {
    out.set(chain, true);
    if (literal === undefined) reader.skipValue();
  }
}

/** The chain `a.b.c` starting at token `start` (property accesses by dot only), with the index after it. */
function readChain(tokens: readonly JsToken[], start: number): { names: string[]; end: number } {
  const names = [tokens[start]!.text];
  let i = start + 1;
  while (tokens[i]?.text === '.' && tokens[i + 1]?.type === 'identifier') {
    names.push(tokens[i + 1]!.text);
    i += 2;
  }
  return { names, end: i };
}

/**
 * Records the global chains one script assigns: `var|let|const X = …` and `function X(` at the
 * top level, `X.y = …` and `X = …` at the top level, and `window.X… = …` (or self, globalThis)
 * anywhere. Declarations inside functions are local and ignored.
 */
export function collectGlobals(code: string, out: Map<string, GlobalValue>): void {
  const source = code.length > maxScriptLength ? code.slice(0, maxScriptLength) : code;
  const tokens: JsToken[] = [];
  for (const token of jsTokens(source)) if (token.type !== 'comment') tokens.push(token);
  let depth = 0;
  for (let i = 0; i < tokens.length && out.size < maxChains; i += 1) {
    const token = tokens[i]!;
    if (token.type === 'punctuator') {
      if (token.text === '{') depth += 1;
      else if (token.text === '}') depth = Math.max(0, depth - 1);
      continue;
    }
    if (token.type !== 'identifier') continue;
    const previous = tokens[i - 1];
    if (previous?.type === 'punctuator' && (previous.text === '.' || previous.text === '?.')) continue;
    if (
      token.text === 'function' &&
      depth === 0 &&
      tokens[i + 1]?.type === 'identifier' &&
      tokens[i + 2]?.text === '('
    ) {
      out.set(tokens[i + 1]!.text, true);
      continue;
    }
    const { names, end } = readChain(tokens, i);
    const isDeclared = previous?.type === 'identifier' && DECLARATIONS.has(previous.text);
    const isViaGlobalObject = GLOBAL_OBJECTS.has(names[0]!) && names.length > 1;
    const chainNames = isViaGlobalObject ? names.slice(1) : names;
    const isGlobal =
      isViaGlobalObject ||
      (depth === 0 && (isDeclared || !DECLARATIONS.has(names[0]!))) ||
      (names.length > 1 && out.has(names[0]!));
    if (!isGlobal || tokens[end]?.text !== '=') {
      i = end - 1;
      continue;
    }
    const chain = chainNames.join('.');
    // Parents of an assigned property exist too (`Foo.version = "1"` tells Foo is there).
    for (let k = 1; k < chainNames.length; k += 1) {
      const parent = chainNames.slice(0, k).join('.');
      if (!out.has(parent)) out.set(parent, true);
    }
    const valueToken = tokens[end + 1];
    if (valueToken === undefined) break;
    readValue(new JsTokenReader(source, valueToken.start), chain, out, 0);
    i = end;
  }
}
