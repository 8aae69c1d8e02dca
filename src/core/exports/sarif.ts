import { findingUrl } from '../vulnerabilities/vulnerability-events.ts';
import type { StoredFinding } from '../vulnerabilities/vulnerability-renderer.ts';
import type { VulnerabilityExportRow } from '../vulnerabilities/vulnerability.repository.ts';
import type { Severity } from '../vulnerabilities/vulnerability.types.ts';

/**
 * SARIF 2.1.0 (OASIS) for code-scanning tools: one run whose tool.driver is perimeter, with one
 * rule per kind of finding. Every finding of a check carries its kind's definition (title,
 * description, risk, CWE, references, the remediation in details.markdown): that is the checks'
 * catalogue as the store keeps it, so a rule is built from the first finding of its kind and
 * its id is the kind's title as a slug. The results are written as they are read; the rules
 * (a few dozen kinds at most) are collected meanwhile and written after them, in `tool`.
 */

/** SARIF's level of each severity. */
const levels: Record<Severity, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  information: 'note',
};

/** GitHub's `security-severity` of a severity without a CVSS score. */
const severityScores: Record<Severity, string> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
  information: '0.0',
};

interface SarifRule {
  id: string;
  name: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  help: { text: string; markdown: string };
  helpUri?: string;
  defaultConfiguration: { level: string };
  properties: Record<string, unknown>;
}

/** A rule id of a kind's title: lower case letters, digits and dashes. */
function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s === '' ? 'finding' : s.slice(0, 120);
}

/** A rule name: the title's words joined in PascalCase (SARIF's convention for names). */
function ruleName(text: string): string {
  const words = text.match(/[A-Za-z0-9]+/g) ?? ['Finding'];
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** Whether the text is an absolute URI (helpUri and artifact locations must be URIs). */
function isAbsoluteUri(text: string): boolean {
  try {
    new URL(text);
    return /^[a-z][a-z0-9+.-]*:/i.test(text);
  } catch {
    return false;
  }
}

/** Writes one SARIF log: `head()`, then `result()` per row (each with its finding), then `tail()`. */
export class SarifWriter {
  private readonly rules: SarifRule[] = [];
  private readonly ruleIndex = new Map<string, number>();
  private count = 0;

  constructor(private readonly version: string) {}

  head(): string {
    return '{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"results":[';
  }

  result(row: VulnerabilityExportRow): string {
    const stored = JSON.parse(row.finding ?? '{"finding":{}}') as StoredFinding;
    const finding = stored.finding;
    const index = this.ruleOf(finding, row.severity);
    const rule = this.rules[index]!;
    const where = row.location ?? findingUrl(finding) ?? row.host;
    const uri = isAbsoluteUri(where) ? where : encodeURI(where);
    const result = {
      ruleId: rule.id,
      ruleIndex: index,
      level: levels[row.severity],
      message: { text: `${row.title} (${row.severity}) at ${where}` },
      locations: [{ physicalLocation: { artifactLocation: { uri } } }],
      partialFingerprints: { 'perimeterFingerprint/v1': row.fingerprint },
      properties: {
        uuid: row.uuid,
        status: row.status,
        severity: row.severity,
        host: row.host,
        asset: { token: row.assetToken, name: row.assetName },
        scan_source: row.scanSource,
      },
    };
    return (this.count++ === 0 ? '' : ',') + JSON.stringify(result);
  }

  tail(): string {
    const driver = {
      name: 'perimeter',
      version: this.version,
      rules: this.rules,
    };
    return `],"tool":${JSON.stringify({ driver })},"columnKind":"utf16CodeUnits"}]}\n`;
  }

  /** The index of the finding's rule, added on first sight of its kind. */
  private ruleOf(finding: Partial<StoredFinding['finding']>, severity: Severity): number {
    const definition = finding.definition;
    const title = definition?.title ?? finding.title ?? 'Finding';
    const id = slug(title);
    const known = this.ruleIndex.get(id);
    if (known !== undefined) return known;
    const cwe = finding.cwe;
    const remediation = finding.details?.markdown?.find((m) => m.topic === 'Remediation')?.value;
    const references = finding.references ?? [];
    const helpUri = references.map((r) => r.link).find(isAbsoluteUri);
    const helpText = [definition?.risk, remediation].filter((t): t is string => t !== undefined && t !== '');
    const links = references.map((r) => `- [${r.name}](${r.link})`).join('\n');
    const score = finding.cvss?.cvss_3_1?.score ?? finding.cvss?.cvss_3_0?.score;
    const tags = ['security', ...(cwe === undefined || cwe === 0 ? [] : [`external/cwe/cwe-${cwe}`])];
    const rule: SarifRule = {
      id,
      name: ruleName(title),
      shortDescription: { text: title },
      fullDescription: { text: definition?.description || title },
      help: {
        text: helpText.join('\n\n') || title,
        markdown:
          [...helpText, links === '' ? undefined : `References:\n\n${links}`].filter(Boolean).join('\n\n') || title,
      },
      ...(helpUri === undefined ? {} : { helpUri }),
      defaultConfiguration: { level: levels[severity] },
      properties: {
        tags,
        ...(cwe === undefined || cwe === 0 ? {} : { cwe: `CWE-${cwe}` }),
        'security-severity': score === undefined ? severityScores[severity] : score.toFixed(1),
        ...(finding.owasp === undefined ? {} : { owasp: finding.owasp.map((o) => o.classification) }),
      },
    };
    this.rules.push(rule);
    this.ruleIndex.set(id, this.rules.length - 1);
    return this.rules.length - 1;
  }
}
