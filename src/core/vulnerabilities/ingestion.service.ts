import { newUuid } from '../shared/ids.ts';
import type { Store } from '../shared/store.ts';
import { fingerprintOf } from './fingerprint.ts';
import { buildDocuments } from './vulnerability-document.ts';
import type { ExistingVulnerability } from './vulnerability.repository.ts';
import { effectiveStatus, type DetectionState, type FindingInput, type ScanReport, type VulnerabilityWrite } from './vulnerability.types.ts';

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

/** Detection state after a scan saw the finding again. */
function nextDetection(previous: DetectionState): DetectionState {
  return previous === 'patched' ? 'regression' : 'active';
}

/**
 * Records the findings of one scan of one target, the one entry point of every scanner. Each
 * finding's fingerprint finds the vulnerability an earlier scan recorded, so a rescan updates it
 * (new → active, patched → regression) instead of creating a twin; manual marks and tags stay.
 * Writes go in batches, one transaction each with one bulk read and one bulk upsert. When the
 * scan completed, what it covered and did not see becomes patched, in a last transaction.
 */
export async function recordScan(
  store: Store,
  report: ScanReport,
  findings: Iterable<FindingInput> | AsyncIterable<FindingInput>,
  options: IngestionOptions,
): Promise<IngestionResult> {
  const scanId = newUuid();
  const result: IngestionResult = { created: 0, updated: 0, regressions: 0, patched: 0 };
  const seen = new Set<string>();
  let batch = new Map<string, FindingInput>();

  const flush = async () => {
    if (batch.size === 0) return;
    const current = batch;
    batch = new Map();
    await store.transaction(async (tx) => {
      const existing = new Map((await tx.vulnerabilities.findByFingerprints(report.teamId, [...current.keys()])).map((e) => [e.fingerprint, e]));
      const rows = [...current].map(([fingerprint, finding]) => toWrite(report, scanId, fingerprint, finding, existing.get(fingerprint), options, result));
      await tx.vulnerabilities.upsert(rows);
      await tx.vulnerabilities.bumpVersion(report.teamId);
    });
  };

  for await (const finding of findings) {
    const fingerprint = fingerprintOf(finding.checkId, finding.location, report.asset.id);
    if (seen.has(fingerprint)) continue; // reported twice in one scan: the first report wins
    seen.add(fingerprint);
    batch.set(fingerprint, finding);
    if (batch.size >= ingestionBatchSize) await flush();
  }
  await flush();

  if (report.isComplete) {
    result.patched = await store.transaction(async (tx) => {
      const patched = await tx.vulnerabilities.patchUnseen(report, scanId, new Date());
      if (patched > 0) await tx.vulnerabilities.bumpVersion(report.teamId);
      return patched;
    });
  }
  return result;
}

function toWrite(
  report: ScanReport,
  scanId: string,
  fingerprint: string,
  finding: FindingInput,
  existing: ExistingVulnerability | undefined,
  options: IngestionOptions,
  result: IngestionResult,
): VulnerabilityWrite {
  const detection: DetectionState = existing === undefined ? 'new' : nextDetection(existing.detectionState);
  if (existing === undefined) result.created++;
  else {
    result.updated++;
    if (detection === 'regression') result.regressions++;
  }
  const uuid = existing?.uuid ?? newUuid();
  const createdAt = existing?.createdAt ?? report.scannedAt;
  const revision = (existing?.revision ?? 0) + 1;
  const mark = existing?.mark ?? null;
  const { document, detailsFull } = buildDocuments(finding, {
    uuid,
    asset: { name: report.asset.name, token: report.asset.token },
    scanSource: report.scanSource,
    scanProfileToken: report.scanProfileToken,
    createdAt,
    updatedAt: report.scannedAt,
    revision,
    detailsPageBase: options.detailsPageBase,
  });
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
    modifiedAt: new Date(),
    tags: existing === undefined ? [] : (JSON.parse(existing.tagsJson) as Array<{ name: string; uuid: string }>),
    document,
    detailsFull,
    severity: finding.severity,
    severityV3: finding.severityV3 ?? null,
    scanSource: report.scanSource,
    scanProfileToken: report.scanProfileToken,
    host: finding.host.toLowerCase(),
    title: finding.title,
    lastScanId: scanId,
    revision,
  };
}
