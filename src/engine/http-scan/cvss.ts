// The CVSS computations live in the core (src/core/vulnerabilities/cvss.ts, with their tests):
// the stored documents derive cvss_3_0 there. The checks keep importing them from here.
export { cvss31, cvss31BaseScore, severityOfScore } from '../../core/vulnerabilities/cvss.ts';
