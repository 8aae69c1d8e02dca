import { Parser } from 'htmlparser2';
import type { InjectionPoint } from './injection.ts';
import type { CrawledPage } from './page-check.ts';

/** Values kept per parameter name, and names kept per scan. */
const maxValuesPerName = 4;
const maxNames = 2000;
/** Name and value pairs remembered for isSiteValue. */
const maxPairs = 50_000;
/** Longer values are not plausible ids, categories or keys: not kept. */
const maxValueLength = 80;

/**
 * The values a site itself puts into its pages for each parameter name: the query values of
 * its links, the `value` of its form inputs (not password, file or button inputs) and the
 * options of its selects. An injection payload appended to a value the application knows (an
 * existing category, an id that has a row) reaches code that a made-up sample value does not:
 * a query whose WHERE matches no row neither delays nor changes with an appended condition.
 * One pool per scan; every check adds the pages it inspects (a page is read once).
 */
export class SampleValues {
  private readonly byName = new Map<string, string[]>();
  private readonly pairs = new Set<string>();
  private readonly seen = new WeakSet<CrawledPage>();

  /** Adds the values the page's links and form controls carry (once per page). */
  observe(page: CrawledPage): void {
    if (this.seen.has(page)) return;
    this.seen.add(page);
    for (const href of page.links?.links ?? []) {
      const query = href.indexOf('?');
      if (query < 0) continue;
      const search = href.slice(query + 1).split('#')[0] ?? '';
      try {
        for (const [name, value] of new URLSearchParams(search)) this.add(name, value);
      } catch {
        // A malformed query: nothing to learn from it.
      }
    }
    if (page.isHtml) for (const [name, value] of formControlValues(page.exchange.body)) this.add(name, value);
  }

  /** Adds one value seen for a parameter name (blank, overlong and repeated values are ignored). */
  add(name: string, value: string): void {
    const trimmed = value.trim();
    if (name === '' || trimmed === '' || trimmed.length > maxValueLength) return;
    if (this.pairs.size < maxPairs) this.pairs.add(`${name}\u0000${trimmed}`);
    let values = this.byName.get(name);
    if (values === undefined) {
      if (this.byName.size >= maxNames) return;
      values = [];
      this.byName.set(name, values);
    }
    if (values.length < maxValuesPerName && !values.includes(trimmed)) values.push(trimmed);
  }

  /**
   * True when the site itself wrote this value for this name (a link's query, an input's value,
   * an option): a value the application knows, not one the crawler made up for an empty field.
   */
  isSiteValue(name: string, value: string): boolean {
    return this.pairs.has(`${name}\u0000${value.trim()}`);
  }

  /** The values seen for `name`, first seen first, without `except` (the value already tested). */
  valuesFor(name: string, except?: string): string[] {
    return (this.byName.get(name) ?? []).filter((v) => v !== except);
  }
}

const pools = new WeakMap<object, SampleValues>();

/** The scan's pool of sample values, one per scan session (every check shares it). */
export function sampleValuesOf(session: object): SampleValues {
  let pool = pools.get(session);
  if (pool === undefined) {
    pool = new SampleValues();
    pools.set(session, pool);
  }
  return pool;
}

/** Input types whose value is no value a user chose for a parameter. */
const IGNORED_INPUT_TYPES = new Set(['password', 'file', 'submit', 'button', 'image', 'reset']);

/** `[name, value]` of the inputs with a value and of every option of each named select in an HTML page. */
export function formControlValues(html: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  // Most pages hold no form control: no parse for them.
  if (!/<(?:input|select)\b/i.test(html)) return out;
  let select: string | undefined;
  let option: { value: string | undefined; text: string } | undefined;
  const parser = new Parser(
    {
      onopentag(tag, attributes) {
        if (tag === 'input') {
          const type = (attributes['type'] ?? 'text').toLowerCase();
          const { name, value } = attributes;
          if (name !== undefined && value !== undefined && !IGNORED_INPUT_TYPES.has(type)) out.push([name, value]);
        } else if (tag === 'select') {
          select = attributes['name'];
        } else if (tag === 'option' && select !== undefined) {
          option = { value: attributes['value'], text: '' };
        }
      },
      ontext(text) {
        if (option !== undefined) option.text += text;
      },
      onclosetag(tag) {
        if (tag === 'option' && option !== undefined && select !== undefined) {
          out.push([select, option.value ?? option.text]);
          option = undefined;
        } else if (tag === 'select') {
          select = undefined;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return out;
}

/**
 * True when other values are worth trying at a point: a query or form field whose value the
 * crawler made up (a sample word for an empty input), not one the site wrote itself (a link's
 * value, an input's default, an option), which already reaches the application's code.
 */
export function needsOtherValues(
  point: Pick<InjectionPoint, 'location' | 'name' | 'value'>,
  pool: SampleValues,
): boolean {
  return (point.location === 'query' || point.location === 'body') && !pool.isSiteValue(point.name, point.value);
}
