/**
 * A small cache whose entries expire after a fixed time: the invalidation rule is the TTL
 * itself (a change in the store is seen by every process within `ttlMs`).
 */
export class TtlCache<V> {
  private readonly map = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value, or the loader's (cached when it is not undefined). */
  async get(key: string, load: () => Promise<V | undefined>, now = Date.now()): Promise<V | undefined> {
    const hit = this.map.get(key);
    if (hit !== undefined && hit.expires > now) return hit.value;
    const value = await load();
    if (value !== undefined) {
      if (this.map.size >= this.maxEntries) this.map.delete(this.map.keys().next().value as string);
      this.map.set(key, { value, expires: now + this.ttlMs });
    } else this.map.delete(key);
    return value;
  }

  clear(): void {
    this.map.clear();
  }
}
