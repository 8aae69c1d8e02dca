import { newUuid } from '../shared/ids.ts';
import { fingerprintOf } from './fingerprint.ts';
import { storedFinding } from './vulnerability-renderer.ts';
import {
  detectionEvent,
  findingUrl,
  type VulnerabilityEventLog,
  type VulnerabilityLogEntry,
} from './vulnerability-events.ts';
import type { Transactional } from '../shared/transactional.ts';
import type { ExistingVulnerability, VulnerabilityRepository } from './vulnerability.repository.ts';
import {
  effectiveStatus,
  type DetectionState,
  type FindingInput,
  type ScanCoverage,
  type ScanReport,
  type Severity,
  type VulnerabilityEvent,
  type VulnerabilityWrite,
} from './vulnerability.types.ts';

/** Findings written per transaction. */
export const ingestionBatchSize = 500;

/** What one recorded scan changed. */
export interface IngestionResult {
  created: number;
  updated: number;
  regressions: number;
  patched: number;
}

/** Where links to a vulnerability's page point (the dashboard). */
export interface IngestionOptions {
  detailsPageBase: string;
}

/** A vulnerability a batch wrote, as a scan's report records it. */
export interface WrittenFinding {
  vulnerabilityId: number;
  severity: Severity;
  cvss: number;
}

/** Called inside each batch's transaction with what it wrote (a scan links them to its report). */
export type AfterBatch<R> = (tx: R, written: WrittenFinding[]) => Promise<void>;

/**
 * What ingestion writes: the vulnerabilities and their events in the team log (the caller's
 * AfterBatch may write more of R in the same transaction).
 */
export interface IngestionRepositories {
  vulnerabilities: VulnerabilityRepository;
  events: VulnerabilityEventLog;
}

/** Detection state after a scan saw the finding again. */
function nextDetection(previous: DetectionState): DetectionState {
  return previous === 'patched' ? 'regression' : 'active';
}

/**
 * One scan's findings on their way into the store, the one entry point of every scanner. Each
 * finding's fingerprint finds the vulnerability an earlier scan recorded, so a rescan updates it
 * (new → active, patched → regression) instead of creating a twin; manual marks and tags stay,
 * but a fixed mark is lifted by the detection that proves it wrong: the vulnerability becomes a
 * regression and an event naming the scan records it. Writes go in batches, one transaction each
 * with one bulk read, one bulk upsert, (when a fixed mark was lifted) one bulk event insert and
 * one append to the team event log (`vulnerability.new` / `vulnerability.regression` per finding
 * so detected; the patching step appends `vulnerability.patched`). A scan resumed under the same
 * scan id finds what it wrote before and leaves it as it was (and logs nothing again).
 */
export class ScanIngestion<R extends IngestionRepositories = IngestionRepositories> {
  readonly result: IngestionResult = { created: 0, updated: 0, regressions: 0, patched: 0 };
  private readonly seen = new Set<string>();
  private batch = new Map<string, FindingInput>();

  constructor(
    private readonly store: Transactional<R>,
    private readonly report: Omit<ScanReport, 'isComplete'>,
    private readonly options: IngestionOptions,
    /** Identifies the scan on every row it writes; patching spares what carries it. */
    readonly scanId: string = newUuid(),
    private readonly afterBatch?: AfterBatch<R>,
  ) {}

  /** Findings accepted so far (each fingerprint once). */
  get count(): number {
    return this.seen.size;
  }

  /** Queues a finding; a full batch is written before this resolves. */
  async add(finding: FindingInput): Promise<void> {
    const fingerprint = fingerprintOf(finding.checkId, finding.location, this.report.asset.id);
    if (this.seen.has(fingerprint)) return; // reported twice in one scan: the first report wins
    this.seen.add(fingerprint);
    this.batch.set(fingerprint, finding);
    if (this.batch.size >= ingestionBatchSize) await this.flush();
  }

  /** Writes what is queued. */
  async flush(): Promise<void> {
    if (this.batch.size === 0) return;
    const current = this.batch;
    this.batch = new Map();
    const { teamId } = this.report;
    const counted = { ...this.result };
    await this.store.transaction(async (tx) => {
      // A re-run (after a deadlock) counts this batch again from the counts before it.
      Object.assign(this.result, counted);
      const fingerprints = [...current.keys()];
      const existing = new Map(
        (await tx.vulnerabilities.findByFingerprints(teamId, fingerprints)).map((e) => [e.fingerprint, e]),
      );
      const events: VulnerabilityEvent[] = [];
      const at = new Date();
      const logged: VulnerabilityLogEntry[] = [];
      const rows = [...current].map(([fingerprint, finding]) => {
        const row = this.toWrite(fingerprint, finding, existing.get(fingerprint), at, events);
        const entry = this.detectionEntry(row, finding, existing.get(fingerprint), at);
        if (entry !== undefined) logged.push(entry);
        return row;
      });
      await tx.vulnerabilities.upsert(rows);
      await tx.vulnerabilities.insertEvents(events);
      await tx.events.append(logged);
      await tx.vulnerabilities.bumpVersion(teamId);
      if (this.afterBatch !== undefined) {
        // Rows that existed keep their ids; only the new ones are read back.
        const ids = new Map([...existing].map(([fingerprint, e]) => [fingerprint, e.id]));
        const created = fingerprints.filter((f) => !ids.has(f));
        for (const e of await tx.vulnerabilities.findByFingerprints(teamId, created)) ids.set(e.fingerprint, e.id);
        await this.afterBatch(
          tx,
          [...current].map(([fingerprint, finding]) => ({
            vulnerabilityId: ids.get(fingerprint)!,
            severity: finding.severity,
            cvss: finding.cvss?.cvss_3_1?.score ?? 0,
          })),
        );
      }
    });
  }

  /**
   * Writes the rest; when the scan completed, what it covered and did not see becomes patched.
   * `covers` narrows what it covered to the locations it reached (application scans).
   */
  async finish(isComplete: boolean, covers?: ScanCoverage): Promise<IngestionResult> {
    await this.flush();
    if (isComplete) {
      const { teamId } = this.report;
      this.result.patched = await this.store.transaction(async (tx) => {
        const at = new Date();
        const patched = await tx.vulnerabilities.patchUnseen({ ...this.report, isComplete }, this.scanId, at, covers);
        if (patched.length === 0) return 0;
        await tx.vulnerabilities.bumpVersion(teamId);
        const facts = await tx.vulnerabilities.eventFacts(teamId, patched);
        await tx.events.append(facts.map((f) => detectionEvent(teamId, 'vulnerability.patched', f, at)));
        return patched.length;
      });
    }
    return this.result;
  }

  /**
   * The log event of a written finding: `vulnerability.new` the first time it is seen,
   * `vulnerability.regression` when this scan made it one; none when this scan had written it
   * already (a resumed scan) or it stays open.
   */
  private detectionEntry(
    row: VulnerabilityWrite,
    finding: FindingInput,
    existing: ExistingVulnerability | undefined,
    at: Date,
  ): VulnerabilityLogEntry | undefined {
    if (existing !== undefined && (existing.lastScanId === this.scanId || row.detectionState !== 'regression'))
      return undefined;
    const { report } = this;
    return detectionEvent(
      report.teamId,
      existing === undefined ? 'vulnerability.new' : 'vulnerability.regression',
      {
        uuid: row.uuid,
        fingerprint: row.fingerprint,
        title: row.title,
        severity: row.severity,
        status: row.status,
        host: row.host,
        url: findingUrl(finding),
        scanSource: row.scanSource,
        scanProfileToken: row.scanProfileToken,
        asset: row.asset,
        rootAssetId: report.asset.rootId ?? report.asset.id,
        detailsPageBase: this.options.detailsPageBase,
      },
      at,
    );
  }

  /**
   * Who the events of this scan name: `scan:<scan token>` for a scan of the scans API (its
   * ingestion id), else the profile of an application scan or the scan source.
   */
  get actor(): string {
    return this.scanId.startsWith('scan:')
      ? this.scanId
      : `scan:${this.report.scanProfileToken ?? this.report.scanSource}`;
  }

  /**
   * The row to write for one finding. A detection of a vulnerability marked fixed (by a scan other
   * than the one that last saw it) lifts the mark, makes it a regression and adds an event to
   * `events`; accepted risk and false positive stay.
   */
  private toWrite(
    fingerprint: string,
    finding: FindingInput,
    existing: ExistingVulnerability | undefined,
    at: Date,
    events: VulnerabilityEvent[],
  ): VulnerabilityWrite {
    const { report, result } = this;
    const isSeenByThisScan = existing !== undefined && existing.lastScanId === this.scanId;
    let detection: DetectionState;
    let mark = existing?.mark ?? null;
    if (existing === undefined) {
      detection = 'new';
      result.created++;
    } else if (isSeenByThisScan) {
      detection = existing.detectionState;
    } else {
      const isFixedRefuted = existing.mark === 'fixed';
      detection = isFixedRefuted ? 'regression' : nextDetection(existing.detectionState);
      result.updated++;
      if (detection === 'regression') result.regressions++;
      if (isFixedRefuted) {
        mark = null;
        events.push({
          teamId: report.teamId,
          vulnerabilityId: existing.id,
          actor: this.actor,
          action: 'unset_fixed',
          from: effectiveStatus(existing.detectionState, 'fixed'),
          to: 'regression',
          at,
        });
      }
    }
    const uuid = existing?.uuid ?? newUuid();
    const createdAt = existing?.createdAt ?? report.scannedAt;
    const revision = isSeenByThisScan ? existing.revision : (existing?.revision ?? 0) + 1;
    return {
      teamId: report.teamId,
      uuid,
      fingerprint,
      assetId: report.asset.id,
      detectionState: detection,
      mark,
      status: effectiveStatus(detection, mark),
      createdAt,
      updatedAt: report.scannedAt,
      modifiedAt: at,
      tags: existing === undefined ? [] : (JSON.parse(existing.tagsJson) as Array<{ name: string; uuid: string }>),
      // The store renders the wire documents from it (VulnerabilityRenderer, its render cache).
      finding: storedFinding(finding, this.options.detailsPageBase),
      asset: { name: report.asset.name, token: report.asset.token },
      severity: finding.severity,
      severityV3: finding.severityV3 ?? null,
      scanSource: report.scanSource,
      scanProfileToken: report.scanProfileToken,
      host: finding.host.toLowerCase(),
      title: finding.title,
      lastScanId: this.scanId,
      revision,
      location: finding.location,
    };
  }
}

/**
 * Records the findings of one whole scan of one target at once (seeding, tests, importers):
 * a ScanIngestion fed from the iterable and finished with the report's completeness.
 */
export async function recordScan(
  store: Transactional<IngestionRepositories>,
  report: ScanReport,
  findings: Iterable<FindingInput> | AsyncIterable<FindingInput>,
  options: IngestionOptions,
): Promise<IngestionResult> {
  const ingestion = new ScanIngestion(store, report, options);
  for await (const finding of findings) await ingestion.add(finding);
  return ingestion.finish(report.isComplete);
}
