import type { FindingInput, Highlight, Severity } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { cvss2, cvss31 } from '../../../core/vulnerabilities/cvss.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';

/** Recorded response bodies are cut to this many characters. */
export const evidenceBodyLimit = 16 * 1024;

/** Module version and release date shared by the checks of this engine. */
export const moduleVersion = '1.0.0';
export const moduleRelease = new Date(Date.UTC(2026, 0, 1));

/** The fixed description of a kind of finding. */
export interface FindingKind {
  checkId: string;
  title: string;
  cwe: number;
  /** CVSS 3.1 base vector without the prefix (the stored document derives cvss_3_0 from it). */
  cvssVector: string;
  /**
   * CVSS 2.0 base vector, only where the kind of finding fixes one (2.0 has no user interaction
   * or scope metric, and its Partial/Complete impacts do not follow from 3.1's Low/High).
   */
  cvss2Vector?: string;
  /** The v2.0-style severity the API lists in `severity`. */
  severity: Severity;
  owasp: string;
  description: string;
  risk: string;
  /** Markdown remediation advice: goes to details.markdown (topic "Remediation"). */
  remediation: string;
  references: Array<{ link: string; name: string }>;
}

/** Where the evidence sits in the response body. */
export interface BodyEvidence {
  value: string;
  offset: number;
}

/** Per-finding facts besides the kind. */
export interface FindingFacts {
  location: string;
  host: string;
  exchange: HttpExchange;
  /** A human sentence describing what was seen (details.text[0].value). */
  observation: string;
  evidence?: BodyEvidence;
  /** Highlights on other fields (e.g. a Set-Cookie header). */
  extraHighlights?: Highlight[];
  title?: string;
  cookie?: FindingInput['cookie'];
}

/** The body to record: the first 16 KB, or a 16 KB window around the evidence when it lies further. */
function recordedBody(body: string, evidence: BodyEvidence | undefined): { body: string; shift: number } {
  if (body.length <= evidenceBodyLimit) return { body, shift: 0 };
  if (evidence === undefined || evidence.offset + evidence.value.length <= evidenceBodyLimit)
    return { body: body.slice(0, evidenceBodyLimit), shift: 0 };
  const start = Math.max(0, evidence.offset - evidenceBodyLimit / 2);
  return { body: body.slice(start, start + evidenceBodyLimit), shift: start };
}

/**
 * Builds a FindingInput with the house evidence shape: request and response (body cut to
 * 16 KB), details.text with highlights {field: 'response.body', value, offset, length} into the
 * recorded body, and the remediation in details.markdown (topic "Remediation").
 */
export function buildFinding(kind: FindingKind, facts: FindingFacts): FindingInput {
  const cvss = cvss31(kind.cvssVector);
  const { body, shift } = recordedBody(facts.exchange.body, facts.evidence);
  const highlights: Highlight[] = [...(facts.extraHighlights ?? [])];
  if (facts.evidence !== undefined) {
    highlights.push({
      field: 'response.body',
      value: facts.evidence.value,
      offset: facts.evidence.offset - shift,
      length: facts.evidence.value.length,
    });
  }
  const request = facts.exchange.request;
  return {
    checkId: kind.checkId,
    location: facts.location,
    host: facts.host,
    title: facts.title ?? kind.title,
    severity: kind.severity,
    severityV3: cvss.severity,
    cwe: kind.cwe,
    cvss: { ...(kind.cvss2Vector === undefined ? {} : { cvss_2_0: cvss2(kind.cvss2Vector) }), cvss_3_1: cvss },
    definition: {
      title: kind.title,
      description: kind.description,
      risk: kind.risk,
      module_version: moduleVersion,
      module_release: moduleRelease,
      is_crowdsourced: false,
    },
    owasp: [{ classification: kind.owasp, year: 2021 }],
    references: [
      ...kind.references.map((r) => ({ ...r, source: r.link.includes('cwe.mitre.org') ? 'CWE' : 'OWASP' })),
      { link: `https://cwe.mitre.org/data/definitions/${kind.cwe}.html`, name: `CWE-${kind.cwe}`, source: 'CWE' },
    ],
    source: 'application-scanning',
    ...(facts.cookie === undefined ? {} : { cookie: facts.cookie }),
    request: { method: request.method, url: request.url.href, body: request.body ?? '', headers: request.headers },
    response: { body, status_code: facts.exchange.status, headers: facts.exchange.headers },
    details: {
      text: [{ topic: 'Evidence', value: facts.observation, highlights }],
      markdown: [{ topic: 'Remediation', value: kind.remediation, fallback: kind.remediation, highlights: [] }],
    },
  };
}
