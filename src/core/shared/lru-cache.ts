/**
 * A least-recently-used map bounded by total size (bytes of the values, or 1 per entry).
 * Callers put the validity rule in the key (a version, an expiry), so nothing stale is served.
 */
export class LruCache<V> {
  private readonly map = new Map<string, { value: V; size: number }>();
  private total = 0;

  constructor(
    private readonly maxSize: number,
    private readonly sizeOf: (value: V) => number = () => 1,
  ) {}

  get(key: string): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, entry);
    return entry.value;
  }

  /** Whether a value of this size can be kept at all. */
  accepts(size: number): boolean {
    return size <= this.maxSize;
  }

  set(key: string, value: V): void {
    const size = this.sizeOf(value);
    if (size > this.maxSize) return;
    const old = this.map.get(key);
    if (old !== undefined) {
      this.total -= old.size;
      this.map.delete(key);
    }
    this.map.set(key, { value, size });
    this.total += size;
    for (const [k, e] of this.map) {
      if (this.total <= this.maxSize) break;
      this.map.delete(k);
      this.total -= e.size;
    }
  }

  /** Removes every entry whose key starts with the prefix (e.g. one team's). */
  deletePrefix(prefix: string): void {
    for (const [k, e] of this.map) {
      if (k.startsWith(prefix)) {
        this.map.delete(k);
        this.total -= e.size;
      }
    }
  }

  get size(): number {
    return this.map.size;
  }
}
