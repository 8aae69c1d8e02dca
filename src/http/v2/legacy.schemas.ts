import { Type } from '@sinclair/typebox';
import { severities } from '../../core/vulnerabilities/vulnerability.types.ts';
import { Timestamp, Token } from './schemas.ts';

/** Wire schemas of the older v2 endpoints (domains, reports, old findings); see docs/legacy-v2.md. */

const Uuid = Type.String({ format: 'uuid' });
const Severity = Type.Union(severities.map((s) => Type.Literal(s)));
const At = (description: string) =>
  Type.String({ format: 'date-time', description: `${description}; ISO 8601 UTC, YYYY-MM-DDTHH:mm:ssZ` });

/** A domain: a root asset in the shape older clients read. */
export const LegacyDomain = Type.Object(
  {
    uuid: Uuid,
    name: Type.String({ description: 'Domain name or IP address' }),
    status: Type.Union([Type.Literal('verified'), Type.Literal('unverified')]),
    created: Timestamp,
    updated: Timestamp,
    token: Token,
    monitored: Type.Boolean(),
    owner: Type.Object({ name: Type.String({ description: 'The team that owns the domain' }) }),
  },
  { $id: 'LegacyDomain' },
);

/** A finding (a vulnerability) in the shape older clients decode strictly. */
export const OldFinding = Type.Object(
  {
    uuid: Uuid,
    regression_uuid: Type.String({
      description: 'Stable across reports: the vulnerability UUID (a rescan updates the same vulnerability)',
    }),
    domain_token: Type.String({ description: 'Token of the root asset the finding hangs on' }),
    signature: Type.String({ description: 'Identity of the finding: check and normalised location (hex)' }),
    url: Type.String({ description: 'Link to the vulnerability page' }),
    found_at: Type.String({ description: 'URL (or host) where it was found' }),
    title: Type.String(),
    start_timestamp: At('First detection'),
    end_timestamp: At('Latest detection'),
    timestamp: At('Latest detection; `from`/`to` filter on it'),
    scan_profile_token: Type.String({ description: 'Empty for surface monitoring' }),
    definition: Type.Object({
      uuid: Uuid,
      description: Type.String(),
      risk: Type.String(),
      references: Type.Array(
        Type.Object({ uuid: Type.String(), link: Type.String(), name: Type.String(), source: Type.String() }),
      ),
    }),
    score: Type.Array(
      Type.Object({
        version: Type.Union([Type.Literal('2.0'), Type.Literal('3.0'), Type.Literal('3.1')]),
        score: Type.Number(),
        vector: Type.String(),
        severity: Severity,
        from: Type.Number({ description: 'Lowest score of the severity band' }),
        to: Type.Number({ description: 'Highest score of the severity band' }),
      }),
    ),
    owasp: Type.Array(Type.Object({ year: Type.String({ examples: ['2021'] }), classification: Type.String() })),
    details: Type.Array(
      Type.Object({
        uuid: Uuid,
        type: Type.String({ description: 'cwe, text, markdown, html, image, video, graph or geography' }),
        name: Type.String(),
        value: Type.String(),
      }),
    ),
    tags: Type.Array(
      Type.Object({
        type: Type.String({ description: 'status (patched, accepted_risk, false_positive) or tag (a team tag)' }),
        value: Type.String(),
      }),
    ),
    target: Type.Object({
      uuid: Uuid,
      type: Type.Union([Type.Literal('domain'), Type.Literal('ip')]),
      address: Type.String(),
    }),
  },
  { $id: 'OldFinding' },
);

const reportFields = {
  token: Token,
  scan_profile_token: Token,
  scan_profile_name: Type.String(),
  endpoint: Type.String(),
  created: Timestamp,
  started: At('When a worker started it (its creation when it never started)'),
  stopped: At('When it ended'),
  url: Type.String({ description: 'This report in the API: the report list narrowed to its creation second' }),
  cvss: Type.Number({ description: 'Highest CVSS 3.1 score among its findings; 0 when none' }),
  high_level_findings: Type.Integer({ description: 'High and critical' }),
  medium_level_findings: Type.Integer(),
  low_level_findings: Type.Integer(),
  information_findings: Type.Integer(),
};

/** A report (one finished scan) without its findings. */
export const LegacyReport = Type.Object(reportFields, { $id: 'LegacyReport' });

/** A report with its findings. */
export const LegacyFullReport = Type.Object(
  { ...reportFields, findings: Type.Array(OldFinding, { description: 'At most 1000 (see docs/legacy-v2.md)' }) },
  { $id: 'LegacyFullReport' },
);

/** A page of old findings; both marker spellings, absent on the last page. */
export const OldFindingPage = Type.Object({
  findings: Type.Array(OldFinding),
  next_marker: Type.Optional(Type.String()),
  nextMarker: Type.Optional(Type.String({ description: 'Same value as next_marker' })),
});

const time = (what: string) =>
  Type.Optional(
    Type.String({ description: `${what}: Unix seconds, inclusive (also YYYY-MM-DDTHH:mm:ssZ); 1085 when malformed` }),
  );

/** Filters of the older finding reads. */
export const FindingQuery = {
  severity: Type.Optional(
    Type.Array(Type.Union(['high', 'critical', 'medium', 'low', 'information'].map((s) => Type.Literal(s))), {
      description:
        'high (includes critical), medium, low or information, in any case; several as severity=a,b or severity[]=a (4085 otherwise)',
    }),
  ),
  from: time('Latest detection at or after'),
  to: time('Latest detection at or before'),
};

/** Report range filters. */
export const ReportQuery = { from: time('Created at or after'), to: time('Created at or before') };
