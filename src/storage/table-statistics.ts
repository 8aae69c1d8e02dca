/** Tables the store writes in bulk, whose planner statistics it keeps fresh itself on PostgreSQL. */
export type GrowingTable = 'vulnerabilities' | 'ip_addresses' | 'ports' | 'technologies';

/**
 * PostgreSQL planner statistics of the tables that bulk writes grow, refreshed by the store
 * itself: once the rows this process wrote to a table since its last ANALYZE reach a fifth of the
 * rows the table then had (at least `minimum`), the table is analyzed in the background, on one
 * of the pool's connections. Autovacuum does the same when it is on; when it is off (or lags), the
 * plans the server keeps for its named statements (pg-statements.mjs) were made for an empty
 * table and stay: a lookup by unique key that became a sequential scan made a seed of 1M
 * findings slow down from 1,465 to 634 rows/s by 92k rows (0.6 s per batch lookup). An ANALYZE
 * invalidates every cached plan of the table, so the next execution plans for its real size.
 *
 * At most one ANALYZE of a table runs at a time; a failure is reported and tried again once as
 * many rows were written again. SQLite needs none of this (its plans do not depend on the table's size).
 */
export class TableStatistics {
  private readonly tables = new Map<
    GrowingTable,
    { changed: number; rows: number; running: Promise<void> | undefined }
  >();

  constructor(
    /** Runs ANALYZE on the table and answers the planner's estimate of its rows afterwards. */
    private readonly analyze: (table: GrowingTable) => Promise<number>,
    private readonly onError: (table: GrowingTable, error: unknown) => void,
    private readonly minimum = 1000,
    private readonly fraction = 0.2,
  ) {}

  /** `rows` rows of `table` were inserted, updated or deleted and committed (the store reports a transaction's writes after its commit). */
  changed(table: GrowingTable, rows: number): void {
    const state = this.stateOf(table);
    state.changed += rows;
    if (state.running !== undefined || state.changed < Math.max(this.minimum, this.fraction * state.rows)) return;
    const counted = state.changed;
    state.running = this.analyze(table)
      .then(
        (estimate) => {
          state.rows = Math.max(0, estimate);
        },
        (error: unknown) => this.onError(table, error),
      )
      .finally(() => {
        state.changed -= counted;
        state.running = undefined;
      });
  }

  private stateOf(table: GrowingTable): { changed: number; rows: number; running: Promise<void> | undefined } {
    let state = this.tables.get(table);
    if (state === undefined) this.tables.set(table, (state = { changed: 0, rows: 0, running: undefined }));
    return state;
  }

  /** Resolves once no ANALYZE runs (before the connections close). */
  async idle(): Promise<void> {
    await Promise.all([...this.tables.values()].map((t) => t.running));
  }
}
