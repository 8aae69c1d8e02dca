import type { LruCache } from '../core/shared/lru-cache.ts';
import { cachePage, claimBody } from '../shared/page-render.mjs';
import { SingleFlight } from '../core/shared/single-flight.ts';

/** Concurrent requests for one uncached page build it once. */
const builds = new SingleFlight<Buffer>();

/**
 * A list page's body: from the page cache when that key was answered before, else built once for
 * every request asking for it at the same time, kept in the cache (a copy, when the page is in
 * lent memory) and claimed by each of those requests (page-render.mjs: claimBody). Callers put
 * the validity rule in the key (team, data version, query as sent).
 */
export async function cachedPage(cache: LruCache<Buffer>, key: string, build: () => Promise<Buffer>): Promise<Buffer> {
  return cache.get(key) ?? claimBody(await builds.run(key, async () => cachePage(cache, key, await build())));
}
