import type { PageSignals } from './page-signals.ts';
import { resolveVersion, type RulePattern } from './rule-pattern.ts';
import type { KeyedRule, RuleSet, Technology } from './rule-set.ts';
import { selectElements } from './css-selector.ts';

/** A technology the rules found on one page, before it is tied to a host and port. */
export interface DetectedTechnology {
  name: string;
  version: string | null;
  /** Category names, in the rule set's order. */
  categories: string[];
  /** 0–100: the sum of the matched patterns' confidences, capped. */
  confidence: number;
}

/** What the matches of one technology add up to. */
interface Tally {
  technology: Technology;
  /** Each matched pattern counts once, however many values it matched. */
  matched: Set<RulePattern>;
  confidence: number;
  versions: string[];
}

/** Collects matches per technology. */
class Detections {
  readonly byName = new Map<string, Tally>();

  add(technology: Technology, pattern: RulePattern, match: RegExpExecArray | undefined): void {
    let tally = this.byName.get(technology.name);
    if (tally === undefined) {
      tally = { technology, matched: new Set(), confidence: 0, versions: [] };
      this.byName.set(technology.name, tally);
    }
    if (!tally.matched.has(pattern)) {
      tally.matched.add(pattern);
      tally.confidence += pattern.confidence;
    }
    if (match !== undefined) {
      const version = resolveVersion(pattern.version, match);
      if (version !== undefined) tally.versions.push(version);
    }
  }

  /** Tests each pattern against one value. */
  test(technology: Technology, patterns: readonly RulePattern[], value: string): void {
    for (const pattern of patterns) {
      const match = pattern.regex.exec(value);
      if (match !== null) this.add(technology, pattern, match);
    }
  }
}

/** Tests keyed rules (headers, meta) against every value of the key. */
function matchKeyed(
  detections: Detections,
  index: ReadonlyMap<string, KeyedRule[]>,
  values: ReadonlyMap<string, string[]>,
): void {
  for (const [key, list] of values) {
    const rules = index.get(key);
    if (rules === undefined) continue;
    for (const rule of rules) for (const value of list) detections.test(rule.technology, rule.patterns, value);
  }
}

function matchCookies(detections: Detections, rules: RuleSet, cookies: ReadonlyMap<string, string>): void {
  for (const [name, value] of cookies) {
    for (const rule of rules.cookies.get(name.toLowerCase()) ?? [])
      detections.test(rule.technology, rule.patterns, value);
    for (const rule of rules.cookiePatterns)
      if (rule.name.test(name)) detections.test(rule.technology, rule.patterns, value);
  }
}

/** Globals: a literal value is matched as text; a value the source does not show matches only existence patterns. */
function matchGlobals(detections: Detections, rules: RuleSet, signals: PageSignals): void {
  for (const [chain, value] of signals.globals) {
    const keyed = rules.globals.get(chain);
    if (keyed === undefined) continue;
    for (const rule of keyed) {
      if (value === true) {
        for (const pattern of rule.patterns)
          if (pattern.isExistence) detections.add(rule.technology, pattern, undefined);
      } else detections.test(rule.technology, rule.patterns, String(value));
    }
  }
}

function matchBody(detections: Detections, technology: Technology, signals: PageSignals): void {
  if (signals.html !== '')
    for (const pattern of technology.html) {
      const match = pattern.regex.exec(signals.html);
      if (match !== null) detections.add(technology, pattern, match);
    }
  for (const src of signals.scriptSrc) detections.test(technology, technology.scriptSrc, src);
  for (const code of signals.scripts) detections.test(technology, technology.scripts, code);
  if (signals.text !== '') detections.test(technology, technology.text, signals.text);
  if (signals.css !== '') detections.test(technology, technology.css, signals.css);
  detections.test(technology, technology.url, signals.url);
  for (const rule of technology.dom) {
    if (signals.elements.length === 0) break;
    for (const element of selectElements(rule.selector, signals.elements, signals.elementsByTag)) {
      if (rule.exists !== undefined) detections.add(technology, rule.exists, rule.exists.regex.exec('') ?? undefined);
      for (const { name, pattern } of rule.attributes) {
        const value = element.attributes.get(name);
        if (value === undefined) continue;
        const match = pattern.regex.exec(value);
        if (match !== null) detections.add(technology, pattern, match);
      }
      if (rule.text !== undefined) {
        const match = rule.text.regex.exec(element.text);
        if (match !== null) detections.add(technology, rule.text, match);
      }
    }
  }
}

/** The most telling version: the longest (`1.2.3` over `1.2`), then the first seen. */
function pickVersion(versions: readonly string[]): string | null {
  let best: string | null = null;
  for (const version of versions) if (best === null || version.length > best.length) best = version;
  return best;
}

/**
 * Applies `implies` (transitively; an implied technology takes the lower of the implying
 * confidence and the implication's own), then `excludes`, then `requires` and
 * `requiresCategory` (a technology whose requirement was not found is dropped).
 */
function resolveRelations(
  rules: RuleSet,
  found: Map<string, { technology: Technology; confidence: number; version: string | null }>,
): void {
  const queue = [...found.values()];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const implied of current.technology.implies) {
      const technology = rules.technologies.get(implied.name);
      if (technology === undefined) continue;
      const confidence = Math.min(current.confidence, implied.confidence);
      const existing = found.get(technology.name);
      if (existing === undefined) {
        const entry = { technology, confidence, version: null };
        found.set(technology.name, entry);
        queue.push(entry);
      } else if (existing.confidence < confidence) {
        existing.confidence = confidence;
        queue.push(existing);
      }
    }
  }
  for (const entry of [...found.values()])
    for (const name of entry.technology.excludes) if (name !== entry.technology.name) found.delete(name);
  for (let isChanged = true; isChanged;) {
    isChanged = false;
    const categories = new Set<number>();
    for (const entry of found.values()) for (const id of entry.technology.categories) categories.add(id);
    for (const [name, entry] of found) {
      const t = entry.technology;
      if (t.requires.some((required) => !found.has(required)) || t.requiresCategory.some((id) => !categories.has(id))) {
        found.delete(name);
        isChanged = true;
      }
    }
  }
}

/** Every technology the rules find in one answer, relations resolved, sorted by name. */
export function detectTechnologies(rules: RuleSet, signals: PageSignals): DetectedTechnology[] {
  const detections = new Detections();
  matchKeyed(detections, rules.headers, signals.headers);
  matchKeyed(detections, rules.meta, signals.meta);
  matchCookies(detections, rules, signals.cookies);
  matchGlobals(detections, rules, signals);
  for (const technology of rules.withBodyRules) matchBody(detections, technology, signals);
  const found = new Map<string, { technology: Technology; confidence: number; version: string | null }>();
  for (const tally of detections.byName.values()) {
    // A pattern of confidence 0 only lends a version to a technology other patterns found.
    if (tally.confidence <= 0) continue;
    found.set(tally.technology.name, {
      technology: tally.technology,
      confidence: Math.min(100, tally.confidence),
      version: pickVersion(tally.versions),
    });
  }
  resolveRelations(rules, found);
  return [...found.values()]
    .map(({ technology, confidence, version }) => ({
      name: technology.name,
      version,
      categories: technology.categories.map((id) => rules.categoryNames.get(id) ?? `category ${id}`),
      confidence,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
