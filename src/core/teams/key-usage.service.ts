import type { ApiKeyRepository, TeamRepositories } from './team.types.ts';

/** A process writes one key's last use at most this often. */
export const keyUseIntervalMs = 60_000;

/** Told when a last-use write failed (the request it came from went on). */
export type KeyUseWriteFailure = (keyId: number, err: unknown) => void;

/**
 * Records when keys authenticate requests, without a write per request: a process writes a
 * key's last use on its first use and then at most once per interval, and the store skips the
 * write when any process wrote within the interval. So a key's last use lags by under a minute.
 * A write never fails or delays the request: it runs beside it, and a failure is reported and
 * forgotten (the next use after the interval tries again). Only the key's own row is written.
 */
export class KeyUsageRecorder {
  /** Key id → when this process last wrote its use; oldest first, bounded. */
  private readonly written = new Map<number, number>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly keys: Pick<ApiKeyRepository, 'recordUse'>,
    private readonly onFailure: KeyUseWriteFailure,
    private readonly intervalMs = keyUseIntervalMs,
    private readonly maxKeys = 10_000,
  ) {}

  /** Notes a use of the key at `now`; writes it unless this process wrote one within the interval. */
  record(keyId: number, now = Date.now()): void {
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < this.intervalMs) return;
    this.written.delete(keyId);
    if (this.written.size >= this.maxKeys) this.written.delete(this.written.keys().next().value as number);
    this.written.set(keyId, now);
    const write: Promise<void> = Promise.resolve()
      .then(() => this.keys.recordUse(keyId, new Date(now), new Date(now - this.intervalMs)))
      .catch((err: unknown) => this.onFailure(keyId, err))
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Waits for the writes under way (before the store closes, and in tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}

// One recorder per store: authentication (called by the HTTP layer with the store alone) finds
// it here. A store without one records nothing (unit tests, tools).
const recorders = new WeakMap<Pick<TeamRepositories, 'keys'>, KeyUsageRecorder>();

/** Starts recording the use of keys that authenticate through this store; the runtime does it once. */
export function startKeyUsageRecording(
  store: Pick<TeamRepositories, 'keys'>,
  onFailure: KeyUseWriteFailure,
): KeyUsageRecorder {
  const recorder = new KeyUsageRecorder(store.keys, onFailure);
  recorders.set(store, recorder);
  return recorder;
}

/** The recorder of a store, when its runtime started one. */
export function keyUsageOf(store: Pick<TeamRepositories, 'keys'>): KeyUsageRecorder | undefined {
  return recorders.get(store);
}
