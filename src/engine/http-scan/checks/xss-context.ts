import { Parser } from 'htmlparser2';
import { jsTokens, tokenAt } from '../check-kit/js-tokens.ts';

/**
 * Where a reflected value lands in an HTML page, and what proves a breakout from there. Pages
 * are read with htmlparser2's tokenizer (the way a browser splits tags, attributes, text,
 * comments and raw-text elements), never with regexes over the markup, and script code with
 * the scanner's JavaScript tokenizer: a payload only counts when the page, parsed again, holds
 * the element, attribute, call or URL it was meant to create.
 */

/** The kinds of places a reflection can sit in. */
export type XssContextKind =
  | 'text'
  | 'raw-text'
  | 'comment'
  | 'attribute'
  | 'url-attribute'
  | 'event-handler'
  | 'script-string'
  | 'script-code'
  | 'script-other';

/** One place a probe was reflected. */
export interface XssContext {
  kind: XssContextKind;
  /** The element holding the text, the attribute or the script. */
  tag: string;
  /** The attribute holding the value (attribute, url-attribute and event-handler kinds). */
  attribute?: string;
  /**
   * The quote around the value: `"`, `'` or `` (unquoted) for attributes; the string's quote
   * (`'`, `"`, `` ` ``) for script strings and strings inside event handlers (`` for code).
   */
  quote?: string;
}

/** What a breakout payload must visibly create in the parsed page. */
export type XssEffect =
  | { kind: 'element'; name: string }
  | { kind: 'attribute'; name: string; value: string }
  | { kind: 'script-call'; name: string }
  | { kind: 'javascript-url'; name: string };

/** A payload for a context and the effect that proves it worked. */
export interface XssBreakout {
  payload: string;
  effect: XssEffect;
}

/** Attributes whose value a browser navigates to or loads: a `javascript:` URL there runs. */
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction']);
/** Elements whose content htmlparser2 and browsers read as raw text (no tags until the end tag). */
const RAW_TEXT = new Set(['title', 'textarea', 'style', 'xmp', 'iframe', 'noembed', 'noframes']);
/** The event handler attribute the attribute breakouts add. */
const HANDLER = 'onmouseover';

/** True for a <script type> that holds JavaScript (absent, a JavaScript MIME type or `module`). */
function isJavaScriptType(type: string | undefined): boolean {
  if (type === undefined) return true;
  const t = type.trim().toLowerCase();
  return t === '' || t === 'module' || /^(?:text|application)\/(?:x-)?(?:java|ecma)script\b/.test(t);
}

/** Every offset of `needle` in `text`. */
function offsetsOf(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) out.push(at);
  return out;
}

/** The context of a probe inside JavaScript code: in a string (with its quote), a comment or regex, or code. */
function codeContext(code: string, at: number): { kind: 'string' | 'code' | 'other'; quote: string } {
  const token = tokenAt(code, at);
  if (token === undefined) return { kind: 'code', quote: '' };
  if (token.type === 'string' || token.type === 'template') return { kind: 'string', quote: token.text[0]! };
  if (token.type === 'comment' || token.type === 'regex') return { kind: 'other', quote: '' };
  return { kind: 'code', quote: '' };
}

/** Callbacks over the parts of a page: text (merged between tags), attributes with their quote, comments, scripts. */
interface PageVisitor {
  text?(text: string, tag: string): void;
  attribute?(tag: string, name: string, value: string, quote: string | null | undefined): void;
  element?(tag: string): void;
  comment?(text: string): void;
  script?(code: string, isJavaScript: boolean): void;
}

/** Walks a page with htmlparser2, as lenient as a browser, and calls the visitor for each part. */
function walkPage(html: string, visitor: PageVisitor): void {
  const stack: string[] = [];
  let text = '';
  let tagName = '';
  let script: { code: string; isJavaScript: boolean } | undefined;
  const flush = (): void => {
    if (text !== '') visitor.text?.(text, stack.at(-1) ?? '');
    text = '';
  };
  const parser = new Parser(
    {
      onopentagname(name) {
        flush();
        tagName = name;
      },
      onattribute(name, value, quote) {
        visitor.attribute?.(tagName, name, value, quote);
      },
      onopentag(name, attribs) {
        visitor.element?.(name);
        stack.push(name);
        if (name === 'script') script = { code: '', isJavaScript: isJavaScriptType(attribs['type']) };
      },
      ontext(chunk) {
        if (script !== undefined) script.code += chunk;
        else text += chunk;
      },
      oncomment(data) {
        flush();
        visitor.comment?.(data);
      },
      onclosetag(name) {
        flush();
        if (name === 'script' && script !== undefined) {
          visitor.script?.(script.code, script.isJavaScript);
          script = undefined;
        }
        const index = stack.lastIndexOf(name);
        if (index >= 0) stack.length = index;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  flush();
}

/**
 * The distinct contexts in which `probe` (a unique alphanumeric token) is reflected in a page,
 * in document order. A probe at the start of a URL attribute gives both the attribute context
 * (a quote breakout) and the URL one (a `javascript:` scheme).
 */
export function findReflections(html: string, probe: string): XssContext[] {
  const found = new Map<string, XssContext>();
  const add = (context: XssContext): void => {
    const key = `${context.kind} ${context.tag} ${context.attribute ?? ''} ${context.quote ?? ''}`;
    if (!found.has(key)) found.set(key, context);
  };
  walkPage(html, {
    text(text, tag) {
      if (text.includes(probe)) add({ kind: RAW_TEXT.has(tag) ? 'raw-text' : 'text', tag });
    },
    attribute(tag, name, value, quote) {
      if (!value.includes(probe)) return;
      add({ kind: 'attribute', tag, attribute: name, quote: quote ?? '' });
      if (URL_ATTRIBUTES.has(name) && value.trimStart().startsWith(probe))
        add({ kind: 'url-attribute', tag, attribute: name });
      if (name.startsWith('on')) {
        for (const at of offsetsOf(value, probe)) {
          const inCode = codeContext(value, at);
          if (inCode.kind !== 'other') add({ kind: 'event-handler', tag, attribute: name, quote: inCode.quote });
        }
      }
    },
    comment(text) {
      if (text.includes(probe)) add({ kind: 'comment', tag: '' });
    },
    script(code, isJavaScript) {
      for (const at of offsetsOf(code, probe)) {
        const inCode = isJavaScript ? codeContext(code, at) : { kind: 'other' as const, quote: '' };
        if (inCode.kind === 'string') add({ kind: 'script-string', tag: 'script', quote: inCode.quote });
        else if (inCode.kind === 'code') add({ kind: 'script-code', tag: 'script', quote: '' });
        else add({ kind: 'script-other', tag: 'script' });
      }
    },
  });
  return [...found.values()];
}

/** A payload that leaves a JavaScript string of `quote` (or code, for ``) and calls `name` as an expression, keeping the statement valid. */
function codeBreakout(quote: string, name: string): string {
  return quote === '' ? `1-${name}(1)-1` : `${quote}-${name}(1)-${quote}`;
}

/**
 * The breakout payloads for a context, best first, each with the effect that proves it; the
 * canary (a unique lowercase alphanumeric name) names the new element, handler call or URL.
 */
export function breakoutsFor(context: XssContext, canary: string): XssBreakout[] {
  const element: XssEffect = { kind: 'element', name: canary };
  const call: XssEffect = { kind: 'script-call', name: canary };
  switch (context.kind) {
    case 'text':
      return [{ payload: `<${canary}>`, effect: element }];
    case 'raw-text':
      return [{ payload: `</${context.tag}><${canary}>`, effect: element }];
    case 'comment':
      return [{ payload: `--><${canary}>`, effect: element }];
    case 'attribute': {
      const q = context.quote ?? '';
      const payload = q === '' ? `x ${HANDLER}=${canary}(1) ` : `${q} ${HANDLER}=${q}${canary}(1)${q} x=${q}`;
      return [{ payload, effect: { kind: 'attribute', name: HANDLER, value: `${canary}(1)` } }];
    }
    case 'url-attribute':
      return [{ payload: `javascript:${canary}(1)`, effect: { kind: 'javascript-url', name: canary } }];
    case 'event-handler':
      return [{ payload: codeBreakout(context.quote ?? '', canary), effect: call }];
    case 'script-string':
    case 'script-code':
      return [
        { payload: codeBreakout(context.quote ?? '', canary), effect: call },
        { payload: `</script><${canary}>`, effect: element },
      ];
    case 'script-other':
      return [{ payload: `</script><${canary}>`, effect: element }];
  }
}

/** True when code holds a call of `name` as code: the identifier, outside strings and comments, followed by `(`. */
export function hasCodeCall(code: string, name: string): boolean {
  let previous: string | undefined;
  for (const token of jsTokens(code)) {
    if (token.type === 'comment') continue;
    if (previous === name && token.type === 'punctuator' && token.text === '(') return true;
    previous = token.type === 'identifier' ? token.text : undefined;
  }
  return false;
}

/** True for a URL a browser runs as script: it strips leading control characters and spaces, and tabs and line breaks anywhere, before reading the scheme. */
function isJavaScriptUrl(value: string): boolean {
  let start = 0;
  while (start < value.length && value.charCodeAt(start) <= 0x20) start += 1;
  return value
    .slice(start)
    .replace(/[\t\n\r]/g, '')
    .toLowerCase()
    .startsWith('javascript:');
}

/** True when the page, parsed, shows the effect: the element, the attribute with our handler, the call in code or the `javascript:` URL. */
export function hasEffect(html: string, effect: XssEffect): boolean {
  let isFound = false;
  walkPage(html, {
    element(tag) {
      if (effect.kind === 'element' && tag === effect.name) isFound = true;
    },
    attribute(_tag, name, value) {
      if (effect.kind === 'attribute' && name === effect.name && value.trim() === effect.value) isFound = true;
      if (effect.kind === 'script-call' && name.startsWith('on') && hasCodeCall(value, effect.name)) isFound = true;
      if (
        effect.kind === 'javascript-url' &&
        URL_ATTRIBUTES.has(name) &&
        isJavaScriptUrl(value) &&
        value.includes(effect.name)
      )
        isFound = true;
    },
    script(code, isJavaScript) {
      if (effect.kind === 'script-call' && isJavaScript && hasCodeCall(code, effect.name)) isFound = true;
    },
  });
  return isFound;
}

/** A human description of a context, for the finding's evidence. */
export function describeContext(context: XssContext): string {
  const quoted = (q: string | undefined): string =>
    q === '"' ? 'double-quoted' : q === "'" ? 'single-quoted' : q === '`' ? 'template' : 'unquoted';
  switch (context.kind) {
    case 'text':
      return `the HTML text${context.tag === '' ? '' : ` of a <${context.tag}> element`}`;
    case 'raw-text':
      return `the raw text of a <${context.tag}> element`;
    case 'comment':
      return 'an HTML comment';
    case 'attribute':
      return `the ${quoted(context.quote)} value of the ${context.attribute} attribute of a <${context.tag}> element`;
    case 'url-attribute':
      return `the URL attribute ${context.attribute} of a <${context.tag}> element, at the start of its value`;
    case 'event-handler':
      return `${context.quote === '' ? 'the code' : `a ${quoted(context.quote)} string`} of the ${context.attribute} event handler of a <${context.tag}> element`;
    case 'script-string':
      return `a ${quoted(context.quote)} string in a <script> block`;
    case 'script-code':
      return 'the code of a <script> block';
    case 'script-other':
      return 'a comment, regular expression or data block inside a <script> element';
  }
}

/** A human description of an effect: what the parsed page showed. */
export function describeEffect(effect: XssEffect): string {
  switch (effect.kind) {
    case 'element':
      return `a new <${effect.name}> element`;
    case 'attribute':
      return `a new ${effect.name} attribute holding ${effect.value}`;
    case 'script-call':
      return `a call of ${effect.name}() as script code, outside any string`;
    case 'javascript-url':
      return `a javascript: URL calling ${effect.name}()`;
  }
}
