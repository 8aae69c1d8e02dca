/**
 * One pattern of the Wappalyzer rule format: a regular expression (case-insensitive) followed by
 * optional tags, `regex\;version:\1\;confidence:50`. An empty expression matches anything (the
 * rule then only asks that the header, cookie, meta or global exists).
 */
export interface RulePattern {
  regex: RegExp;
  /** The version template (`\1`, `\1?yes:no`, a literal), when the pattern tells one. */
  version: string | undefined;
  /** 0–100; 100 unless the pattern says less. */
  confidence: number;
  /** True when the expression is empty: any value, even a non-string one, matches. */
  isExistence: boolean;
}

/** Longest version kept: a template that captured a whole script name is not a version. */
const maxVersionLength = 32;

/**
 * Parses one pattern, or undefined when its expression does not compile in JavaScript (the rule
 * set is written for JavaScript, so that is rare; such a pattern is dropped, not fatal).
 */
export function parseRulePattern(text: string): RulePattern | undefined {
  const [expression = '', ...tags] = text.split('\\;');
  let version: string | undefined;
  let confidence = 100;
  for (const tag of tags) {
    const colon = tag.indexOf(':');
    if (colon < 0) continue;
    const key = tag.slice(0, colon).trim();
    const value = tag.slice(colon + 1);
    if (key === 'version') version = value;
    else if (key === 'confidence') {
      const parsed = Number(value);
      if (Number.isFinite(parsed)) confidence = Math.max(0, Math.min(100, parsed));
    }
  }
  // A few rules carry a PCRE-style inline flag; every pattern is case-insensitive anyway.
  const source = expression.replace(/^\(\?i\)/, '');
  try {
    return { regex: new RegExp(source, 'i'), version, confidence, isExistence: source === '' };
  } catch {
    return undefined;
  }
}

/** Parses a pattern or a list of them (the rule format allows both), dropping the ones that do not compile. */
export function parseRulePatterns(value: unknown): RulePattern[] {
  const list = Array.isArray(value) ? value : [value];
  const out: RulePattern[] = [];
  for (const item of list) {
    if (typeof item !== 'string') continue;
    const pattern = parseRulePattern(item);
    if (pattern !== undefined) out.push(pattern);
  }
  return out;
}

/**
 * The version a match tells, from the pattern's template: `\N` is the Nth group (empty when it
 * did not take part), `\N?a:b` is `a` when the group matched and `b` otherwise. Undefined when
 * the result is empty or too long to be a version.
 */
export function resolveVersion(template: string | undefined, match: RegExpExecArray): string | undefined {
  if (template === undefined) return undefined;
  const group = (index: string): string => match[Number(index)] ?? '';
  let text = template.replace(/\\(\d+)\?([^:]*):(.*)$/, (_all, index: string, ifSet: string, ifNot: string) =>
    group(index) !== '' ? ifSet : ifNot,
  );
  text = text.replace(/\\(\d+)/g, (_all, index: string) => group(index)).trim();
  if (text === '' || text.length > maxVersionLength) return undefined;
  return text;
}
