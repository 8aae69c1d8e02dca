import type { CvssScore, Severity } from '../../core/vulnerabilities/vulnerability.types.ts';

// Weights of the CVSS 3.1 specification, section 7.4.
const AV: Record<string, number> = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 };
const AC: Record<string, number> = { L: 0.77, H: 0.44 };
const PR_UNCHANGED: Record<string, number> = { N: 0.85, L: 0.62, H: 0.27 };
const PR_CHANGED: Record<string, number> = { N: 0.85, L: 0.68, H: 0.5 };
const UI: Record<string, number> = { N: 0.85, R: 0.62 };
const CIA: Record<string, number> = { H: 0.56, L: 0.22, N: 0 };
const REQUIRED = ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'] as const;

/** The specification's Roundup: the smallest number with one decimal >= x, robust to float error. */
function roundUp(x: number): number {
  const scaled = Math.round(x * 100000);
  return scaled % 10000 === 0 ? scaled / 100000 : (Math.floor(scaled / 10000) + 1) / 10;
}

function weight(table: Record<string, number>, metric: string, value: string | undefined): number {
  const w = value === undefined ? undefined : table[value];
  if (w === undefined) throw new Error(`cvss: invalid value ${JSON.stringify(value)} for ${metric}`);
  return w;
}

/** Reads `CVSS:3.1/AV:N/...` (prefix optional) into its base metrics; throws on a malformed vector. */
function parseVector(vector: string): Record<string, string> {
  const metrics: Record<string, string> = {};
  for (const part of vector.replace(/^CVSS:3\.[01]\//, '').split('/')) {
    const [key, value] = part.split(':');
    if (key === undefined || value === undefined) throw new Error(`cvss: malformed vector ${vector}`);
    metrics[key] = value;
  }
  for (const key of REQUIRED) if (metrics[key] === undefined) throw new Error(`cvss: vector ${vector} lacks ${key}`);
  if (metrics['S'] !== 'U' && metrics['S'] !== 'C') throw new Error(`cvss: invalid scope in ${vector}`);
  return metrics;
}

/** The CVSS 3.1 base score of a vector (base metrics only), as the specification computes it. */
export function cvss31BaseScore(vector: string): number {
  const m = parseVector(vector);
  const isChanged = m['S'] === 'C';
  const iss = 1 - (1 - weight(CIA, 'C', m['C'])) * (1 - weight(CIA, 'I', m['I'])) * (1 - weight(CIA, 'A', m['A']));
  const impact = isChanged ? 7.52 * (iss - 0.029) - 3.25 * Math.pow(iss - 0.02, 15) : 6.42 * iss;
  const exploitability =
    8.22 * weight(AV, 'AV', m['AV']) * weight(AC, 'AC', m['AC']) * weight(isChanged ? PR_CHANGED : PR_UNCHANGED, 'PR', m['PR']) * weight(UI, 'UI', m['UI']);
  if (impact <= 0) return 0;
  return isChanged ? roundUp(Math.min(1.08 * (impact + exploitability), 10)) : roundUp(Math.min(impact + exploitability, 10));
}

/** The qualitative rating of a 3.x score (0 reads `information`, the spec's "None"). */
export function severityOfScore(score: number): Severity {
  if (score === 0) return 'information';
  if (score < 4) return 'low';
  if (score < 7) return 'medium';
  if (score < 9) return 'high';
  return 'critical';
}

/** A cvss_3_1 entry of a finding: the vector with the `CVSS:3.1/` prefix, its score and rating. */
export function cvss31(vector: string): CvssScore {
  const full = vector.startsWith('CVSS:') ? vector : `CVSS:3.1/${vector}`;
  const score = cvss31BaseScore(full);
  return { score, severity: severityOfScore(score), vector: full };
}
