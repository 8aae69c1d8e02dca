/** Suggestions for a mistyped name: the nearest known one by edit distance. */

/** The known name at the smallest edit distance, when it is at most a third of the name's length (and 4). */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const suffix = name.slice('PERIMETER_'.length);
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(suffix, candidate.replace(/^PERIMETER_/, ''));
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  return best !== undefined && best.distance <= Math.min(4, Math.ceil(suffix.length / 3)) ? best.name : undefined;
}

/** Levenshtein distance (insertions, deletions and substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}
