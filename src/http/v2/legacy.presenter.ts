import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Asset } from '../../core/assets/asset.types.ts';
import type { FindingAsset, FindingSet } from '../../core/legacy/legacy-findings.service.ts';
import type { Scan, ScanProfile } from '../../core/scans/scan.types.ts';
import { toWireTime } from '../../core/shared/time.ts';
import type { Team } from '../../core/teams/team.types.ts';
import type {
  CvssScore,
  Details,
  FindingInput,
  Severity,
  VulnerabilityRecord,
} from '../../core/vulnerabilities/vulnerability.types.ts';
import type { LegacyDomain, LegacyReport, OldFinding } from './legacy.schemas.ts';
import type { Vulnerability } from './vulnerability.schemas.ts';

/** The stored list form of a vulnerability: its v2 wire shape less the fields spliced in when read. */
type StoredDocument = Omit<
  Static<typeof Vulnerability>,
  'status' | 'modified_at' | 'tags' | 'cvss_scores' | 'details'
> & {
  cvss_scores: NonNullable<FindingInput['cvss']>;
  details: Details;
};

/** A UUID-shaped name-based identifier (SHA-1, version 5 layout): stable for the same text. */
function nameUuid(text: string): string {
  const hex = createHash('sha1').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

/** The score band of a severity (CVSS 3.x; version 2.0 has no critical and high runs to 10). */
function band(severity: Severity, version: string): { from: number; to: number } {
  switch (severity) {
    case 'information':
      return { from: 0, to: 0 };
    case 'low':
      return { from: version === '2.0' ? 0 : 0.1, to: 3.9 };
    case 'medium':
      return { from: 4, to: 6.9 };
    case 'high':
      return { from: 7, to: version === '2.0' ? 10 : 8.9 };
    case 'critical':
      return { from: 9, to: 10 };
  }
}

function scoresOf(cvss: StoredDocument['cvss_scores']) {
  const versions: Array<['2.0' | '3.0' | '3.1', CvssScore | undefined]> = [
    ['2.0', cvss.cvss_2_0],
    ['3.0', cvss.cvss_3_0],
    ['3.1', cvss.cvss_3_1],
  ];
  return versions.flatMap(([version, s]) =>
    s === undefined
      ? []
      : [{ version, score: s.score, vector: s.vector, severity: s.severity, ...band(s.severity, version) }],
  );
}

/** The seven detail arrays (and the CWE) as one array of `{uuid, type, name, value}` strings. */
function detailsOf(uuid: string, cwe: number, d: Details) {
  const entries: Array<{ type: string; name: string; value: string }> = [
    ...(cwe > 0 ? [{ type: 'cwe', name: 'CWE', value: `CWE-${cwe}` }] : []),
    ...d.text.map((e) => ({ type: 'text', name: e.topic, value: e.value })),
    ...d.markdown.map((e) => ({ type: 'markdown', name: e.topic, value: e.value })),
    ...d.html.map((e) => ({ type: 'html', name: e.topic, value: e.value })),
    ...d.image.map((e) => ({ type: 'image', name: e.topic, value: e.link })),
    ...d.video.map((e) => ({ type: 'video', name: e.topic, value: e.link })),
    ...d.graph.map((e) => ({ type: 'graph', name: e.topic, value: JSON.stringify({ unit: e.unit, data: e.data }) })),
    ...d.geography.map((e) => ({
      type: 'geography',
      name: e.topic,
      value: [e.city, e.region, e.country_name].filter((p) => p !== '').join(', '),
    })),
  ];
  return entries.map((e, i) => ({ uuid: nameUuid(`${uuid}:detail:${i}`), ...e }));
}

/** Status tags for what is no longer open (fixed reads patched), then the team's tags. */
function tagsOf(record: VulnerabilityRecord) {
  const closed = record.status === 'patched' || record.status === 'accepted_risk' || record.status === 'false_positive';
  return [
    ...(closed ? [{ type: 'status', value: record.status }] : []),
    ...record.tags.map((t) => ({ type: 'tag', value: t.name })),
  ];
}

/**
 * A vulnerability as an old finding, from its stored document (the same JSON the v2 list
 * serves). `isComplete` takes the full details when the list form truncated them.
 */
export function presentOldFinding(
  record: VulnerabilityRecord,
  asset: FindingAsset | undefined,
  isComplete: boolean,
): Static<typeof OldFinding> {
  const doc = JSON.parse(record.document) as StoredDocument;
  const details = isComplete && record.detailsFull !== null ? (JSON.parse(record.detailsFull) as Details) : doc.details;
  const owner = asset ?? { uuid: nameUuid(`asset:${doc.asset_token}`), kind: 'domain', domainToken: doc.asset_token };
  return {
    uuid: record.uuid,
    regression_uuid: record.uuid,
    domain_token: owner.domainToken,
    signature: record.fingerprint,
    url: doc.links.details_page,
    found_at: doc.request?.url ?? doc.host,
    title: doc.title,
    start_timestamp: toWireTime(record.createdAt),
    end_timestamp: toWireTime(record.updatedAt),
    timestamp: toWireTime(record.updatedAt),
    scan_profile_token: doc.scan_profile_token,
    definition: {
      uuid: nameUuid(`definition:${doc.definition.title}`),
      description: doc.definition.description,
      risk: doc.definition.risk,
      references: doc.references.map((r) => ({ uuid: r.uuid, link: r.link, name: r.name, source: r.source })),
    },
    score: scoresOf(doc.cvss_scores),
    owasp: doc.owasp.map((o) => ({ year: String(o.year), classification: o.classification })),
    details: detailsOf(record.uuid, doc.cwe, details),
    tags: tagsOf(record),
    target: { uuid: owner.uuid, type: owner.kind, address: doc.host },
  };
}

/** Every finding of a set, in order. */
export function presentOldFindings(set: FindingSet, isComplete = false): Array<Static<typeof OldFinding>> {
  return set.records.map((r) => presentOldFinding(r, set.assets.get(r.assetId), isComplete));
}

/** A root asset as a domain. */
export function presentDomain(asset: Asset, team: Team): Static<typeof LegacyDomain> {
  return {
    uuid: asset.uuid,
    name: asset.name,
    status: asset.status,
    created: toWireTime(asset.created),
    updated: toWireTime(asset.updated),
    token: asset.token,
    monitored: asset.monitored,
    owner: { name: team.name },
  };
}

/** A finished scan as a report (without findings); `baseUrl` makes its link absolute. */
export function presentReport(profile: ScanProfile, scan: Scan, baseUrl: string): Static<typeof LegacyReport> {
  const second = Math.floor(scan.created.getTime() / 1000);
  return {
    token: scan.token,
    scan_profile_token: profile.token,
    scan_profile_name: scan.profileName,
    endpoint: scan.endpoint,
    created: toWireTime(scan.created),
    started: toWireTime(scan.started ?? scan.created),
    stopped: toWireTime(scan.ended ?? scan.started ?? scan.created),
    url: `${baseUrl}/rest/v2/reports/${profile.token}/?from=${second}&to=${second}`,
    cvss: scan.highestCvss,
    high_level_findings: scan.counts.high + scan.counts.critical,
    medium_level_findings: scan.counts.medium,
    low_level_findings: scan.counts.low,
    information_findings: scan.counts.information,
  };
}
