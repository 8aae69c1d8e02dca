/**
 * Coalesces concurrent reads of one key without ever answering stale: a caller only shares a
 * read that starts after it arrived, so it sees every commit made before its request. Callers
 * that arrive while a read is in flight wait for the next read, which starts when the current
 * one ends and serves all of them: under load, N concurrent requests cost about two reads.
 */
export class CoalescedRead<V> {
  private readonly inFlight = new Map<string, Promise<V>>();
  private readonly queued = new Map<string, Promise<V>>();

  constructor(private readonly read: (key: string) => Promise<V>) {}

  get(key: string): Promise<V> {
    const queued = this.queued.get(key);
    if (queued !== undefined) return queued;
    const running = this.inFlight.get(key);
    if (running === undefined) return this.start(key);
    // The running read may have started before this caller arrived: wait for the next one.
    const next = running.then(
      () => this.start(key),
      () => this.start(key),
    );
    this.queued.set(key, next);
    return next;
  }

  private start(key: string): Promise<V> {
    this.queued.delete(key);
    const promise = this.read(key).finally(() => {
      if (this.inFlight.get(key) === promise) this.inFlight.delete(key);
    });
    this.inFlight.set(key, promise);
    return promise;
  }
}
