import { Parser } from 'htmlparser2';
import type { HttpHeader } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { PageElement } from './css-selector.ts';
import { collectGlobals, type GlobalValue } from './js-globals.ts';

/**
 * Everything of one HTTP answer the rule set's patterns are matched against. Every input is
 * capped in length: the rule set holds thousands of third-party regular expressions, and a cap
 * on what they scan bounds the time any of them (a backtracking one included) can take.
 */
export interface PageSignals {
  url: string;
  /** Lower-case header names; a header sent twice has two values. */
  headers: Map<string, string[]>;
  /** Cookies the answer sets, by name as sent. */
  cookies: Map<string, string>;
  /** The start of the body (HTML answers only). */
  html: string;
  /** `<meta>` contents by lower-case name or property. */
  meta: Map<string, string[]>;
  /** `src` of every `<script>`, as written. */
  scriptSrc: string[];
  /** Code of the inline scripts. */
  scripts: string[];
  /** Text of the inline `<style>` elements and style attributes. */
  css: string;
  /** The page's text (what a reader sees; script and style code excluded). */
  text: string;
  elements: PageElement[];
  elementsByTag: Map<string, number[]>;
  /** Global chains the inline scripts assign (js-globals.ts). */
  globals: Map<string, GlobalValue>;
}

/** Caps of each input (characters). */
export const signalLimits = {
  html: 256 * 1024,
  headerValue: 4096,
  cookieValue: 1024,
  attribute: 2048,
  script: 64 * 1024,
  scriptsTotal: 256 * 1024,
  css: 64 * 1024,
  text: 64 * 1024,
  elementText: 512,
  elements: 10_000,
} as const;

const cap = (text: string, limit: number): string => (text.length > limit ? text.slice(0, limit) : text);

/** Name and value of a Set-Cookie header. */
function parseSetCookie(value: string): [string, string] | undefined {
  const pair = value.split(';', 1)[0] ?? '';
  const equals = pair.indexOf('=');
  if (equals <= 0) return undefined;
  return [pair.slice(0, equals).trim(), cap(pair.slice(equals + 1).trim(), signalLimits.cookieValue)];
}

/** True when the answer is (or looks like) an HTML document. */
function isHtmlAnswer(headers: Map<string, string[]>, body: string): boolean {
  const type = headers.get('content-type')?.[0]?.toLowerCase() ?? '';
  if (type.includes('html') || type.includes('xml')) return true;
  if (type !== '') return false;
  return /^\s*</.test(body);
}

/** True for a `<script type>` that holds JavaScript. */
function isJavaScript(type: string | undefined): boolean {
  if (type === undefined) return true;
  const t = type.trim().toLowerCase();
  return t === '' || t === 'module' || /^(?:text|application)\/(?:x-)?(?:java|ecma)script\b/.test(t);
}

/** Reads the signals of one answer (headers, cookies, and the HTML parsed leniently with htmlparser2). */
export function readPageSignals(url: string, responseHeaders: readonly HttpHeader[], body: string): PageSignals {
  const headers = new Map<string, string[]>();
  const cookies = new Map<string, string>();
  for (const { name, value } of responseHeaders) {
    const key = name.toLowerCase();
    const list = headers.get(key) ?? [];
    list.push(cap(value, signalLimits.headerValue));
    headers.set(key, list);
    if (key === 'set-cookie') {
      const cookie = parseSetCookie(value);
      if (cookie !== undefined) cookies.set(cookie[0], cookie[1]);
    }
  }
  const signals: PageSignals = {
    url,
    headers,
    cookies,
    html: '',
    meta: new Map(),
    scriptSrc: [],
    scripts: [],
    css: '',
    text: '',
    elements: [],
    elementsByTag: new Map(),
    globals: new Map(),
  };
  if (!isHtmlAnswer(headers, body)) return signals;
  const html = cap(body, signalLimits.html);
  signals.html = html;
  readHtml(html, signals);
  let budget = signalLimits.scriptsTotal;
  for (const code of signals.scripts) {
    if (budget <= 0) break;
    collectGlobals(code, signals.globals);
    budget -= code.length;
  }
  return signals;
}

/** Records a meta element's content under its name, property or http-equiv (lower-cased). */
function addMeta(signals: PageSignals, attributes: Record<string, string>): void {
  const key = (attributes['name'] ?? attributes['property'] ?? attributes['http-equiv'])?.toLowerCase();
  const content = attributes['content'];
  if (key === undefined || content === undefined) return;
  const list = signals.meta.get(key) ?? [];
  list.push(cap(content, signalLimits.attribute));
  signals.meta.set(key, list);
}

/** Walks the document once: elements with their parents and text, metas, scripts, styles, text. */
function readHtml(html: string, signals: PageSignals): void {
  const open: number[] = [];
  let script: { code: string; isJs: boolean } | undefined;
  let style: string | undefined;
  const textParts: string[] = [];
  let textLength = 0;
  let cssParts = '';
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const tag = name.toLowerCase();
        if (signals.elements.length < signalLimits.elements) {
          const map = new Map<string, string>();
          for (const [key, value] of Object.entries(attributes))
            map.set(key.toLowerCase(), cap(value, signalLimits.attribute));
          const index = signals.elements.length;
          signals.elements.push({
            tag,
            attributes: map,
            parent: open.length > 0 ? open[open.length - 1]! : -1,
            text: '',
          });
          const list = signals.elementsByTag.get(tag) ?? [];
          list.push(index);
          signals.elementsByTag.set(tag, list);
          open.push(index);
          const inline = map.get('style');
          if (inline !== undefined && cssParts.length < signalLimits.css) cssParts += `${inline}\n`;
        } else open.push(-1);
        if (tag === 'meta') addMeta(signals, attributes);
        else if (tag === 'script') {
          const src = attributes['src'];
          if (src !== undefined && src.trim() !== '') signals.scriptSrc.push(cap(src.trim(), signalLimits.attribute));
          else script = { code: '', isJs: isJavaScript(attributes['type']) };
        } else if (tag === 'style') style = '';
      },
      ontext(text) {
        if (script !== undefined) {
          if (script.code.length < signalLimits.script) script.code += text;
          return;
        }
        if (style !== undefined) {
          style += text;
          return;
        }
        for (const index of open) {
          const element = index >= 0 ? signals.elements[index] : undefined;
          if (element !== undefined && element.text.length < signalLimits.elementText)
            element.text = cap(element.text + text, signalLimits.elementText);
        }
        if (textLength < signalLimits.text && text.trim() !== '') {
          textParts.push(text);
          textLength += text.length;
        }
      },
      onclosetag(name) {
        const tag = name.toLowerCase();
        if (tag === 'script' && script !== undefined) {
          if (script.isJs && script.code.trim() !== '') signals.scripts.push(cap(script.code, signalLimits.script));
          script = undefined;
        } else if (tag === 'style' && style !== undefined) {
          if (cssParts.length < signalLimits.css) cssParts += `${style}\n`;
          style = undefined;
        }
        open.pop();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  signals.text = cap(textParts.join(' ').replace(/\s+/g, ' '), signalLimits.text);
  signals.css = cap(cssParts, signalLimits.css);
}
