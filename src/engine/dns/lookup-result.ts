import type { ZoneRecord } from './zone-record.ts';

/**
 * How the lookup of one name ended:
 * - `answer`: at least one record came back (for any of the asked types, CNAMEs included);
 * - `nodata`: the name exists but has none of the asked types;
 * - `nxdomain`: the name does not exist (any type's NXDOMAIN decides it);
 * - `servfail`, `refused`: every server tried answered so, for at least one type;
 * - `timeout`: no answer after all retries, for at least one type;
 * - `error`: a malformed answer, another response code, or a failed TCP fallback;
 * - `invalid`: the text is not a domain name; nothing was sent.
 */
export type LookupOutcome = 'answer' | 'nodata' | 'nxdomain' | 'servfail' | 'refused' | 'timeout' | 'error' | 'invalid';

/** One type that did not resolve cleanly for a name. */
export interface LookupFailure {
  type: string;
  outcome: LookupOutcome;
  detail: string;
}

/** The lookup of one name over all its types. */
export interface LookupResult {
  /** The name in owner form (lower-case, no trailing dot), or the text as given when invalid. */
  name: string;
  outcome: LookupOutcome;
  /** Answer-section records of every asked type, as ZoneRecords (canonical data). */
  records: ZoneRecord[];
  /** Types that failed (servfail, refused, timeout, error); a partial answer can have some. */
  failures: LookupFailure[];
}

/** Counts of one resolveAll run. */
export interface BulkStats {
  names: number;
  /** Queries sent, retries and TCP fallbacks included. */
  queries: number;
  retries: number;
  tcpFallbacks: number;
  timeouts: number;
  durationMs: number;
  outcomes: Record<LookupOutcome, number>;
}

/** Per-type outcomes of one name, folded into its result as they arrive. */
export class NameLookup {
  remaining: number;
  // Made on first use: most names settle with one answer's records (that array itself) and no failure.
  private records: ZoneRecord[] | undefined;
  private failures: LookupFailure[] | undefined;
  private isNxdomain = false;

  constructor(
    /** The name in owner form (see LookupResult.name). */
    readonly name: string,
    typeCount: number,
    readonly deliver: (result: LookupResult) => void,
  ) {
    this.remaining = typeCount;
  }

  /** Canonical form of the name (trailing dot), as the answers' owners decode. */
  get canonical(): string {
    return this.name === '.' ? '.' : `${this.name}.`;
  }

  /**
   * Records the end of one type's query; delivers the result after the last one. `records` is
   * a fresh array that the caller does not keep: the lookup may keep it as its own.
   */
  settle(type: string, outcome: LookupOutcome, records: ZoneRecord[] | undefined, detail: string): void {
    if (records !== undefined && records.length > 0) {
      if (this.records === undefined) this.records = records;
      else for (const record of records) this.records.push(record);
    }
    if (outcome === 'nxdomain') this.isNxdomain = true;
    else if (outcome !== 'answer' && outcome !== 'nodata') (this.failures ??= []).push({ type, outcome, detail });
    this.remaining -= 1;
    if (this.remaining === 0)
      this.deliver({
        name: this.name,
        outcome: this.outcome(),
        records: this.records ?? [],
        failures: this.failures ?? [],
      });
  }

  /** NXDOMAIN is about the name, so it wins; then any record; then the first failure; else no data. */
  private outcome(): LookupOutcome {
    if (this.isNxdomain) return 'nxdomain';
    if (this.records !== undefined) return 'answer';
    if (this.failures !== undefined) return (this.failures[0] as LookupFailure).outcome;
    return 'nodata';
  }
}

/** Zeroed outcome counters. */
export function emptyOutcomes(): Record<LookupOutcome, number> {
  return { answer: 0, nodata: 0, nxdomain: 0, servfail: 0, refused: 0, timeout: 0, error: 0, invalid: 0 };
}
