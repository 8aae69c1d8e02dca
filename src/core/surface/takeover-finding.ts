import type { FindingInput } from '../vulnerabilities/vulnerability.types.ts';

/** A takeover candidate as discovery reports it. */
export interface TakeoverCandidate {
  name: string;
  kind: 'cname' | 'ns';
  target: string;
  provider?: string;
  evidence: string;
}

const moduleRelease = new Date(Date.UTC(2026, 10, 1));
// AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:H/A:N: anyone can serve content (and set cookies) under the name.
const cvss = { score: 8.2, severity: 'high' as const, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:H/A:N' };

const remediation =
  'Remove the DNS record that points at the unclaimed resource (the CNAME, or the NS delegation), or claim the resource again ' +
  '(recreate the bucket, app or site with this exact name at the provider, or serve the delegated zone). Remove DNS records ' +
  'before deleting the resources they point at.';

/**
 * The finding of a subdomain a third party could claim. Its fingerprint is the name and the
 * kind: the next run that no longer sees the dangling record patches it.
 */
export function subdomainTakeoverFinding(candidate: TakeoverCandidate): FindingInput {
  const what =
    candidate.kind === 'cname'
      ? `${candidate.name} is an alias (CNAME) of ${candidate.target}${candidate.provider === undefined ? '' : ` at ${candidate.provider}`}, which nobody has claimed`
      : `${candidate.name} is delegated to name servers that do not serve it (${candidate.target})`;
  const title =
    candidate.kind === 'cname' ? 'Subdomain takeover: dangling CNAME' : 'Subdomain takeover: broken NS delegation';
  return {
    checkId: `subdomain-takeover-${candidate.kind}`,
    location: candidate.name,
    host: candidate.name,
    title,
    severity: 'high',
    severityV3: 'high',
    cwe: 350,
    cvss: { cvss_3_1: cvss },
    definition: {
      title,
      description:
        'A DNS name of the domain points at a resource (a cloud bucket, an app, a site, a delegated zone) that no longer exists or that nobody claims. ' +
        'Whoever creates that resource at the provider, or registers the missing name servers, serves content under the name.',
      risk: 'An attacker serves pages, scripts and cookies under a trusted name: phishing, session theft through cookies scoped to the parent domain, bypass of CSP and CORS allow-lists.',
      module_version: '1.0.0',
      module_release: moduleRelease,
      is_crowdsourced: false,
    },
    owasp: [{ classification: 'A05:2021 Security Misconfiguration', year: 2021 }],
    references: [
      { link: 'https://cwe.mitre.org/data/definitions/350.html', name: 'CWE-350', source: 'CWE' },
      {
        link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/10-Test_for_Subdomain_Takeover',
        name: 'OWASP WSTG: Test for Subdomain Takeover',
        source: 'OWASP',
      },
    ],
    source: 'surface-monitoring',
    details: {
      text: [
        { topic: 'Finding', value: `${what}.`, highlights: [] },
        { topic: 'Evidence', value: candidate.evidence, highlights: [] },
      ],
      markdown: [{ topic: 'Remediation', value: remediation, fallback: remediation, highlights: [] }],
    },
  };
}
