/**
 * The subset of CSS selectors the rule set's `dom` rules use most, matched against the elements
 * of a page's source (no script ran): type, `*`, `#id`, `.class`, attribute tests (`[a]`, `=`,
 * `~=`, `|=`, `^=`, `$=`, `*=`, with an optional ` i`), comma lists, and the descendant and child
 * combinators. A selector with anything else (pseudo-classes, sibling combinators) does not
 * compile: its rule is skipped rather than guessed.
 */

/** One element of the page, as the parser saw it. */
export interface PageElement {
  tag: string;
  attributes: Map<string, string>;
  /** Index of the parent element in the page's list, -1 at the top. */
  parent: number;
  /** Text inside the element (descendants included), capped. */
  text: string;
}

type AttributeOperator = '' | '=' | '~=' | '|=' | '^=' | '$=' | '*=';

interface AttributeTest {
  name: string;
  operator: AttributeOperator;
  value: string;
  isCaseInsensitive: boolean;
}

interface Compound {
  tag: string | undefined;
  tests: AttributeTest[];
}

/** A compound selector and how it relates to the one before it (to its left). */
interface Step {
  compound: Compound;
  combinator: ' ' | '>';
}

/** A compiled selector: alternatives, each a chain of steps, the subject last. */
export interface CompiledSelector {
  alternatives: Step[][];
}

const NAME = /^-?[A-Za-z_\u00a0-\uffff][\w\u00a0-\uffff-]*/;

/** Parses a selector, or undefined when it uses a feature outside the subset. */
export function compileSelector(text: string): CompiledSelector | undefined {
  const alternatives: Step[][] = [];
  for (const part of splitTopLevel(text)) {
    const steps = parseChain(part.trim());
    if (steps === undefined || steps.length === 0) return undefined;
    alternatives.push(steps);
  }
  return alternatives.length === 0 ? undefined : { alternatives };
}

/** Splits on commas outside brackets and quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === '\\') i += 1;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth += 1;
    else if (c === ']') depth -= 1;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseChain(text: string): Step[] | undefined {
  const steps: Step[] = [];
  let i = 0;
  let combinator: ' ' | '>' = ' ';
  while (i < text.length) {
    const parsed = parseCompound(text, i);
    if (parsed === undefined) return undefined;
    steps.push({ compound: parsed.compound, combinator });
    i = parsed.end;
    const gap = /^\s*([>+~])?\s*/.exec(text.slice(i))!;
    if (gap[1] === '+' || gap[1] === '~') return undefined;
    combinator = gap[1] === '>' ? '>' : ' ';
    i += gap[0].length;
  }
  return steps;
}

function parseCompound(text: string, from: number): { compound: Compound; end: number } | undefined {
  const compound: Compound = { tag: undefined, tests: [] };
  let i = from;
  if (text[i] === '*') i += 1;
  else {
    const tag = NAME.exec(text.slice(i));
    if (tag !== null) {
      compound.tag = tag[0].toLowerCase();
      i += tag[0].length;
    }
  }
  while (i < text.length) {
    const c = text[i]!;
    if (c === '#' || c === '.') {
      const name = NAME.exec(text.slice(i + 1));
      if (name === null) return undefined;
      compound.tests.push(
        c === '#'
          ? { name: 'id', operator: '=', value: name[0], isCaseInsensitive: false }
          : { name: 'class', operator: '~=', value: name[0], isCaseInsensitive: false },
      );
      i += 1 + name[0].length;
    } else if (c === '[') {
      const match =
        /^\[\s*([\w:-]+)\s*(?:([~|^$*]?=)\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\]\s]+))\s*(i)?\s*)?\]/.exec(
          text.slice(i),
        );
      if (match === null) return undefined;
      const value = (match[3] ?? match[4] ?? match[5] ?? '').replace(/\\(.)/g, '$1');
      compound.tests.push({
        name: match[1]!.toLowerCase(),
        operator: (match[2] ?? '') as AttributeOperator,
        value,
        isCaseInsensitive: match[6] !== undefined,
      });
      i += match[0].length;
    } else if (/[\s>+~]/.test(c)) break;
    else return undefined;
  }
  if (i === from) return undefined;
  return { compound, end: i };
}

function passes(test: AttributeTest, element: PageElement): boolean {
  const raw = element.attributes.get(test.name);
  if (raw === undefined) return false;
  const actual = test.isCaseInsensitive ? raw.toLowerCase() : raw;
  const wanted = test.isCaseInsensitive ? test.value.toLowerCase() : test.value;
  switch (test.operator) {
    case '':
      return true;
    case '=':
      return actual === wanted;
    case '~=':
      return wanted !== '' && actual.split(/\s+/).includes(wanted);
    case '|=':
      return actual === wanted || actual.startsWith(`${wanted}-`);
    case '^=':
      return wanted !== '' && actual.startsWith(wanted);
    case '$=':
      return wanted !== '' && actual.endsWith(wanted);
    case '*=':
      return wanted !== '' && actual.includes(wanted);
  }
}

function matchesCompound(compound: Compound, element: PageElement): boolean {
  if (compound.tag !== undefined && compound.tag !== element.tag) return false;
  return compound.tests.every((test) => passes(test, element));
}

/** True when the chain's steps up to `last` match, the subject being `elements[index]`. */
function matchesChain(steps: Step[], last: number, elements: readonly PageElement[], index: number): boolean {
  const step = steps[last]!;
  if (!matchesCompound(step.compound, elements[index]!)) return false;
  if (last === 0) return true;
  let parent = elements[index]!.parent;
  if (step.combinator === '>') return parent >= 0 && matchesChain(steps, last - 1, elements, parent);
  for (; parent >= 0; parent = elements[parent]!.parent) {
    if (matchesChain(steps, last - 1, elements, parent)) return true;
  }
  return false;
}

/** The elements the selector matches, in document order. */
export function selectElements(
  selector: CompiledSelector,
  elements: readonly PageElement[],
  byTag: ReadonlyMap<string, number[]>,
): PageElement[] {
  const out = new Set<number>();
  for (const steps of selector.alternatives) {
    const subject = steps[steps.length - 1]!.compound;
    const candidates = subject.tag !== undefined ? (byTag.get(subject.tag) ?? []) : elements.keys();
    for (const index of candidates) if (matchesChain(steps, steps.length - 1, elements, index)) out.add(index);
  }
  return [...out].sort((a, b) => a - b).map((index) => elements[index]!);
}
