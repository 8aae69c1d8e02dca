import type { CvssScore, FindingInput, Severity } from './vulnerability.types.ts';

// CVSS base scores of the three versions the API lists (cvss_2_0, cvss_3_0, cvss_3_1). Scanners
// state 3.1 vectors (and, where one is well defined, a 2.0 vector); the 3.0 entry is derived
// from the 3.1 vector, whose base metrics 3.0 shares (withDerivedScores).

// Weights of the CVSS 3.1 specification, section 7.4 (the same in 3.0, section 8.4).
const AV: Record<string, number> = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 };
const AC: Record<string, number> = { L: 0.77, H: 0.44 };
const PR_UNCHANGED: Record<string, number> = { N: 0.85, L: 0.62, H: 0.27 };
const PR_CHANGED: Record<string, number> = { N: 0.85, L: 0.68, H: 0.5 };
const UI: Record<string, number> = { N: 0.85, R: 0.62 };
const CIA: Record<string, number> = { H: 0.56, L: 0.22, N: 0 };
const REQUIRED_V3 = ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'] as const;

// Weights of the CVSS 2.0 guide, section 3.2.1.
const AV2: Record<string, number> = { L: 0.395, A: 0.646, N: 1 };
const AC2: Record<string, number> = { H: 0.35, M: 0.61, L: 0.71 };
const AU2: Record<string, number> = { M: 0.45, S: 0.56, N: 0.704 };
const CIA2: Record<string, number> = { N: 0, P: 0.275, C: 0.66 };
const REQUIRED_V2 = ['AV', 'AC', 'Au', 'C', 'I', 'A'] as const;

/** The 3.1 specification's Roundup (Appendix A): the smallest one-decimal number >= x, robust to float error. */
export function roundUp31(x: number): number {
  const scaled = Math.round(x * 100000);
  return scaled % 10000 === 0 ? scaled / 100000 : (Math.floor(scaled / 10000) + 1) / 10;
}

/** The 3.0 specification's Round up: the plain ceiling to one decimal, float error included. */
export function roundUp30(x: number): number {
  return Math.ceil(x * 10) / 10;
}

function weight(table: Record<string, number>, metric: string, value: string | undefined): number {
  const w = value === undefined ? undefined : table[value];
  if (w === undefined) throw new Error(`cvss: invalid value ${JSON.stringify(value)} for ${metric}`);
  return w;
}

/** Reads `PREFIX/AV:N/...` (prefix optional) into its metrics; throws when a required one is missing. */
function parseMetrics(vector: string, prefix: RegExp, required: readonly string[]): Record<string, string> {
  const metrics: Record<string, string> = {};
  for (const part of vector.replace(prefix, '').split('/')) {
    const [key, value] = part.split(':');
    if (key === undefined || value === undefined) throw new Error(`cvss: malformed vector ${vector}`);
    metrics[key] = value;
  }
  for (const key of required) if (metrics[key] === undefined) throw new Error(`cvss: vector ${vector} lacks ${key}`);
  return metrics;
}

const v3Prefix = /^CVSS:3\.[01]\//;

/** The base score of a 3.x vector with the given Roundup (base metrics only; others are ignored). */
function cvss3BaseScore(vector: string, roundUp: (x: number) => number): number {
  const m = parseMetrics(vector, v3Prefix, REQUIRED_V3);
  if (m['S'] !== 'U' && m['S'] !== 'C') throw new Error(`cvss: invalid scope in ${vector}`);
  const isChanged = m['S'] === 'C';
  const iss = 1 - (1 - weight(CIA, 'C', m['C'])) * (1 - weight(CIA, 'I', m['I'])) * (1 - weight(CIA, 'A', m['A']));
  const impact = isChanged ? 7.52 * (iss - 0.029) - 3.25 * Math.pow(iss - 0.02, 15) : 6.42 * iss;
  const exploitability =
    8.22 *
    weight(AV, 'AV', m['AV']) *
    weight(AC, 'AC', m['AC']) *
    weight(isChanged ? PR_CHANGED : PR_UNCHANGED, 'PR', m['PR']) *
    weight(UI, 'UI', m['UI']);
  if (impact <= 0) return 0;
  return isChanged
    ? roundUp(Math.min(1.08 * (impact + exploitability), 10))
    : roundUp(Math.min(impact + exploitability, 10));
}

/** The CVSS 3.1 base score of a vector (`CVSS:3.1/` prefix optional), as the specification computes it. */
export function cvss31BaseScore(vector: string): number {
  return cvss3BaseScore(vector, roundUp31);
}

/**
 * The CVSS 3.0 base score of a vector (`CVSS:3.0/` or `CVSS:3.1/` prefix optional): the same
 * equations as 3.1 with 3.0's Round up. Over all 2,592 base vectors the two agree (tested); the
 * roundings part only on temporal and environmental results, which are not computed here.
 */
export function cvss30BaseScore(vector: string): number {
  return cvss3BaseScore(vector, roundUp30);
}

/** The CVSS 2.0 base score of a vector such as `AV:N/AC:L/Au:N/C:P/I:P/A:P` (guide, section 3.2.1). */
export function cvss2BaseScore(vector: string): number {
  const m = parseMetrics(vector, /^\(?|\)$/g, REQUIRED_V2);
  const impact =
    10.41 * (1 - (1 - weight(CIA2, 'C', m['C'])) * (1 - weight(CIA2, 'I', m['I'])) * (1 - weight(CIA2, 'A', m['A'])));
  const exploitability = 20 * weight(AV2, 'AV', m['AV']) * weight(AC2, 'AC', m['AC']) * weight(AU2, 'Au', m['Au']);
  const f = impact === 0 ? 0 : 1.176;
  // round_to_1_decimal; the float error of the products is cleared before rounding half up.
  return Math.round(Number(((0.6 * impact + 0.4 * exploitability - 1.5) * f * 10).toFixed(6))) / 10;
}

/** The qualitative rating of a 3.x score (0 reads `information`, the spec's "None"). */
export function severityOfScore(score: number): Severity {
  if (score === 0) return 'information';
  if (score < 4) return 'low';
  if (score < 7) return 'medium';
  if (score < 9) return 'high';
  return 'critical';
}

/** The rating of a 2.0 score in NVD's ranges (2.0 defines none): low below 4, medium below 7, else high. */
export function severityOfV2Score(score: number): Severity {
  if (score < 4) return 'low';
  if (score < 7) return 'medium';
  return 'high';
}

function bareV3(vector: string): string {
  return vector.replace(v3Prefix, '');
}

/** A cvss_3_1 entry: the vector with the `CVSS:3.1/` prefix, its score and rating. */
export function cvss31(vector: string): CvssScore {
  const full = vector.startsWith('CVSS:') ? vector : `CVSS:3.1/${vector}`;
  const score = cvss31BaseScore(full);
  return { score, severity: severityOfScore(score), vector: full };
}

/** A cvss_3_0 entry of a 3.x vector's base metrics: the vector with the `CVSS:3.0/` prefix, its 3.0 score and rating. */
export function cvss30(vector: string): CvssScore {
  const full = `CVSS:3.0/${bareV3(vector)}`;
  const score = cvss30BaseScore(full);
  return { score, severity: severityOfScore(score), vector: full };
}

/** A cvss_2_0 entry: the vector as 2.0 writes it (no prefix), its score and NVD rating. */
export function cvss2(vector: string): CvssScore {
  const score = cvss2BaseScore(vector);
  return { score, severity: severityOfV2Score(score), vector };
}

/** 3.0 entries by 3.1 vector (null: unreadable). Scanners state a few dozen vectors; a bulk ingestion then parses each once. */
const derivedByVector = new Map<string, CvssScore | null>();

function derived30(vector: string): CvssScore | undefined {
  let entry = derivedByVector.get(vector);
  if (entry === undefined) {
    try {
      entry = Object.freeze(cvss30(vector));
    } catch {
      entry = null;
    }
    if (derivedByVector.size >= 1024) derivedByVector.clear();
    derivedByVector.set(vector, entry);
  }
  return entry ?? undefined;
}

/**
 * The cvss_scores of a finding as stored: what it states, in the specification's order
 * (cvss_2_0, cvss_3_0, cvss_3_1), with cvss_3_0 derived from the 3.1 vector when it states
 * none. A 3.1 vector no parser reads (an importer's) derives nothing; scores stated are kept.
 */
export function withDerivedScores(cvss: FindingInput['cvss']): NonNullable<FindingInput['cvss']> {
  const stated = cvss ?? {};
  const v30 = stated.cvss_3_0 ?? (stated.cvss_3_1 === undefined ? undefined : derived30(stated.cvss_3_1.vector));
  return {
    ...(stated.cvss_2_0 === undefined ? {} : { cvss_2_0: stated.cvss_2_0 }),
    ...(v30 === undefined ? {} : { cvss_3_0: v30 }),
    ...(stated.cvss_3_1 === undefined ? {} : { cvss_3_1: stated.cvss_3_1 }),
  };
}
