import { readFileSync } from 'node:fs';
import { normaliseHost } from './discovery-names.ts';

/**
 * The shipped brute-force word list: the 10,000 most frequent subdomain labels of SecLists'
 * `subdomains-top1mil-20000.txt` (MIT), in frequency order (see docs/discovery.md).
 */
export const wordListPath = new URL('./lists/subdomains-top10000.txt', import.meta.url);

let shipped: readonly string[] | undefined;

/** Reads a word list (one relative name per line; `#` comments, blanks and invalid lines skipped), deduplicated in order. */
export function parseWordList(text: string): string[] {
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    const word = line.trim();
    if (word === '' || word.startsWith('#')) continue;
    const name = normaliseHost(word);
    if (name !== undefined) seen.add(name);
  }
  return [...seen];
}

/** The shipped word list, read once per process. */
export function shippedWordList(): readonly string[] {
  shipped ??= parseWordList(readFileSync(wordListPath, 'utf8'));
  return shipped;
}

/** Each word under the root, lazily, skipping names longer than DNS allows. */
export function* wordCandidates(words: Iterable<string>, root: string): Generator<string> {
  for (const word of words) {
    const name = `${word}.${root}`;
    if (name.length <= 253) yield name;
  }
}

/** Environment words people put before or after a host label. */
const AFFIXES = ['dev', 'staging', 'stage', 'test', 'qa', 'uat', 'prod', 'old', 'new', 'beta'];

/**
 * Variants of one name's first label, most likely first: `dev-www`, `www-dev` for each affix,
 * `www1`, `www2`, `www-1`, `www-2`, and a trailing number moved by one (`api2` → `api1`, `api3`).
 */
export function labelVariants(label: string): string[] {
  const variants = new Set<string>();
  for (const affix of AFFIXES) {
    if (label !== affix && !label.startsWith(`${affix}-`)) variants.add(`${affix}-${label}`);
    if (label !== affix && !label.endsWith(`-${affix}`)) variants.add(`${label}-${affix}`);
  }
  const numbered = /^(.*?)(\d+)$/.exec(label);
  if (numbered === null) {
    for (const suffix of ['1', '2', '-1', '-2']) variants.add(`${label}${suffix}`);
  } else {
    const [, stem = '', digits = '0'] = numbered;
    const value = Number(digits);
    if (value > 0) variants.add(`${stem}${value - 1}`);
    variants.add(`${stem}${value + 1}`);
  }
  variants.delete(label);
  return [...variants].filter((variant) => variant.length <= 63 && !variant.startsWith('-') && !variant.endsWith('-'));
}

/** Permutation candidates of the bases (names strictly under the root), at most `max`; `isCapped` tells whether the bound cut the list. */
export function permutationCandidates(
  bases: readonly string[],
  root: string,
  max: number,
): { names: string[]; isCapped: boolean } {
  const names = new Set<string>();
  for (const base of bases) {
    if (base === root || !base.endsWith(`.${root}`)) continue;
    const dot = base.indexOf('.');
    const rest = base.slice(dot + 1);
    for (const variant of labelVariants(base.slice(0, dot))) {
      const name = `${variant}.${rest}`;
      if (name.length > 253) continue;
      if (names.size >= max) return { names: [...names], isCapped: true };
      names.add(name);
    }
  }
  return { names: [...names], isCapped: false };
}
