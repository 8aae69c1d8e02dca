/**
 * Shares one in-flight computation among concurrent callers of the same key, so a burst of
 * identical requests after a cache invalidation runs the expensive work (a count over a
 * million rows, a page build) once instead of once per request.
 */
export class SingleFlight<V> {
  private readonly inFlight = new Map<string, Promise<V>>();

  run(key: string, work: () => Promise<V>): Promise<V> {
    const running = this.inFlight.get(key);
    if (running !== undefined) return running;
    const promise = work().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }
}
