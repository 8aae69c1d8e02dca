/** Rows an inventory writes per statement (well under every driver's parameter limit). */
export const writeChunkSize = 500;

/** The items in consecutive slices of at most `size` (the last may be shorter). */
export function* chunksOf<T>(items: readonly T[], size = writeChunkSize): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
