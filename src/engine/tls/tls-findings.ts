import type { FindingInput, Severity } from '../../core/vulnerabilities/vulnerability.types.ts';
import { cvss31 } from '../http-scan/cvss.ts';
import type { HttpHeadResult } from './ordinary-handshake.ts';

/** Module version and release date of the TLS checks. */
export const tlsModuleVersion = '1.0.0';
export const tlsModuleRelease = new Date(Date.UTC(2026, 10, 1));

/** The kinds of TLS finding; each is one stable checkId. */
export const tlsCheckIds = {
  expired: 'tls-certificate-expired',
  'not-yet-valid': 'tls-certificate-not-yet-valid',
  expiring: 'tls-certificate-expiring',
  'hostname-mismatch': 'tls-certificate-hostname-mismatch',
  'self-signed': 'tls-certificate-self-signed',
  untrusted: 'tls-certificate-untrusted-chain',
  'weak-key': 'tls-certificate-weak-key',
  'weak-signature': 'tls-certificate-weak-signature',
  sslv3: 'tls-protocol-sslv3',
  tls10: 'tls-protocol-tls1.0',
  tls11: 'tls-protocol-tls1.1',
  'no-tls13': 'tls-protocol-tls1.3-missing',
  'weak-suites': 'tls-weak-cipher-suites-accepted',
  'weak-suite-negotiated': 'tls-weak-cipher-suite-negotiated',
  'no-forward-secrecy': 'tls-no-forward-secrecy',
  'no-forward-secrecy-negotiated': 'tls-no-forward-secrecy-negotiated',
  'hsts-missing': 'tls-hsts-missing',
} as const;
export type TlsFindingKind = keyof typeof tlsCheckIds;

interface KindText {
  title: string;
  severity: Severity;
  vector: string;
  cwe: number;
  description: string;
  risk: string;
  remediation: string;
  owasp: string;
}

const CRYPTO = 'A02:2021-Cryptographic Failures';
const MISCONFIG = 'A05:2021-Security Misconfiguration';
const RENEW =
  'Renew the certificate with a CA the browsers trust and install it with its intermediates; automate renewal (ACME) so that it happens well before expiry.';
const PROTOCOLS =
  'Disable the protocol in the server or load balancer (e.g. nginx `ssl_protocols TLSv1.2 TLSv1.3;`, Apache `SSLProtocol -all +TLSv1.2 +TLSv1.3`).';
const MITM_RISK =
  'Browsers warn or refuse; users who click through, and API clients that skip verification, cannot tell this server from an impostor in the middle.';

const KINDS: Record<TlsFindingKind, KindText> = {
  expired: {
    title: 'TLS certificate expired',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N',
    cwe: 324,
    owasp: CRYPTO,
    description: 'The certificate this endpoint presents is past its notAfter date.',
    risk: MITM_RISK,
    remediation: RENEW,
  },
  'not-yet-valid': {
    title: 'TLS certificate not yet valid',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N',
    cwe: 295,
    owasp: CRYPTO,
    description:
      'The certificate this endpoint presents is not valid yet (its notBefore date is in the future), often a clock or deployment mistake.',
    risk: MITM_RISK,
    remediation:
      'Check the clock of the machine that issued the certificate and reissue it, or install the certificate that is valid now.',
  },
  expiring: {
    title: 'TLS certificate expires within 30 days',
    severity: 'low',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:N/I:N/A:L',
    cwe: 298,
    owasp: CRYPTO,
    description: 'The certificate this endpoint presents expires within 30 days.',
    risk: 'When it expires, browsers and clients refuse the connection or warn, and the service is effectively down.',
    remediation: RENEW,
  },
  'hostname-mismatch': {
    title: 'TLS certificate does not match the host name',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N',
    cwe: 297,
    owasp: CRYPTO,
    description:
      'The certificate presented for this name (sent as SNI) does not cover it: no subject alternative name matches under RFC 6125 (one-label left-most wildcards only).',
    risk: MITM_RISK,
    remediation:
      'Serve a certificate whose subject alternative names include this name, or a wildcard for its parent, for this SNI name.',
  },
  'self-signed': {
    title: 'TLS certificate is self-signed',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N',
    cwe: 295,
    owasp: CRYPTO,
    description: 'The endpoint presents a self-signed certificate that no trusted root vouches for.',
    risk: MITM_RISK,
    remediation:
      "Replace the self-signed certificate with one issued by a publicly trusted CA (for example through ACME / Let's Encrypt).",
  },
  untrusted: {
    title: 'TLS certificate chain is not trusted',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N',
    cwe: 296,
    owasp: CRYPTO,
    description:
      "No path leads from the presented certificate through the presented intermediates to a root of the trust store (Mozilla's roots as bundled by Node.js): the issuer is private or unknown, or an intermediate is missing or expired.",
    risk: MITM_RISK,
    remediation:
      'Use a certificate from a publicly trusted CA and configure the server to send the full chain (leaf and intermediates, e.g. nginx `ssl_certificate fullchain.pem`).',
  },
  'weak-key': {
    title: 'TLS certificate uses a weak key',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N',
    cwe: 326,
    owasp: CRYPTO,
    description:
      'A presented certificate has an RSA or DSA key shorter than 2048 bits or an elliptic-curve key under 256 bits.',
    risk: 'Short keys can be factored or broken by a well-resourced attacker, who can then impersonate the server or decrypt recorded RSA key exchanges.',
    remediation:
      'Generate a new key of at least RSA 2048 bits (3072 preferred) or ECDSA P-256, and reissue the certificate.',
  },
  'weak-signature': {
    title: 'TLS certificate signed with a weak algorithm',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N',
    cwe: 328,
    owasp: CRYPTO,
    description: 'A presented certificate is signed with MD5 or SHA-1, hashes for which collisions can be computed.',
    risk: 'A chosen-prefix collision lets an attacker obtain a forged certificate that carries the same valid signature.',
    remediation: 'Reissue the certificate (and any intermediate) with a SHA-256 or stronger signature.',
  },
  sslv3: {
    title: 'SSLv3 accepted',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N',
    cwe: 327,
    owasp: CRYPTO,
    description:
      'The endpoint completes a ServerHello for SSL 3.0, a protocol broken by POODLE (CVE-2014-3566) and prohibited by RFC 7568.',
    risk: 'An attacker who can force a downgrade decrypts cookies and other secrets one byte at a time.',
    remediation: PROTOCOLS,
  },
  tls10: {
    title: 'TLS 1.0 accepted',
    severity: 'low',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
    cwe: 327,
    owasp: CRYPTO,
    description:
      'The endpoint accepts TLS 1.0, deprecated by RFC 8996 (BEAST-era CBC constructions, SHA-1 in the handshake).',
    risk: 'Clients that still speak TLS 1.0 get weak protection; compliance regimes (PCI DSS) forbid it.',
    remediation: PROTOCOLS,
  },
  tls11: {
    title: 'TLS 1.1 accepted',
    severity: 'low',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
    cwe: 327,
    owasp: CRYPTO,
    description: 'The endpoint accepts TLS 1.1, deprecated by RFC 8996.',
    risk: 'Clients that still speak TLS 1.1 get weak protection (SHA-1 in the handshake, no AEAD suites); compliance regimes forbid it.',
    remediation: PROTOCOLS,
  },
  'no-tls13': {
    title: 'TLS 1.3 not supported',
    severity: 'information',
    vector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:N',
    cwe: 326,
    owasp: CRYPTO,
    description: 'The endpoint does not negotiate TLS 1.3 when offered.',
    risk: 'Clients miss the protocol that encrypts more of the handshake, removes legacy suites and always provides forward secrecy.',
    remediation: 'Enable TLS 1.3 (OpenSSL 1.1.1 or later: nginx `ssl_protocols TLSv1.2 TLSv1.3;`).',
  },
  'weak-suites': {
    title: 'Weak TLS cipher suites accepted',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N',
    cwe: 327,
    owasp: CRYPTO,
    description:
      'Offered only weak cipher suites (NULL encryption, anonymous key exchange, EXPORT grade, RC4, RC2, DES, 3DES or IDEA), the endpoint picks one.',
    risk: 'A client that offers them (or an attacker who rewrites the offer of a broken client) gets a connection without encryption, without server authentication, or with a breakable cipher (Sweet32, RC4 biases).',
    remediation:
      'Restrict the suites to AEAD ones with ECDHE (e.g. Mozilla\'s "intermediate" configuration) and remove `NULL`, `aNULL`, `EXPORT`, `RC4`, `DES`, `3DES` from the cipher string.',
  },
  'weak-suite-negotiated': {
    title: 'Weak TLS cipher suite negotiated',
    severity: 'medium',
    vector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N',
    cwe: 327,
    owasp: CRYPTO,
    description:
      'An ordinary client handshake (modern suites offered first) ends with a weak cipher suite: the server prefers or only supports it.',
    risk: 'Ordinary visitors get a breakable or unauthenticated connection.',
    remediation: 'Restrict the suites to AEAD ones with ECDHE and let the server choose from them.',
  },
  'no-forward-secrecy': {
    title: 'No forward-secret cipher suite offered',
    severity: 'low',
    vector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
    cwe: 326,
    owasp: CRYPTO,
    description: 'The endpoint accepts no suite with an ephemeral key exchange (ECDHE or DHE) and no TLS 1.3.',
    risk: 'Whoever obtains the server key later can decrypt every recorded session.',
    remediation: 'Enable ECDHE suites (and TLS 1.3), e.g. Mozilla\'s "intermediate" configuration.',
  },
  'no-forward-secrecy-negotiated': {
    title: 'TLS handshake without forward secrecy',
    severity: 'low',
    vector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
    cwe: 326,
    owasp: CRYPTO,
    description:
      'An ordinary client handshake (ECDHE suites offered first) ends with a suite whose key exchange is not ephemeral (RSA key transport or static DH).',
    risk: 'Whoever obtains the server key later can decrypt the recorded sessions of ordinary visitors.',
    remediation: 'Prefer ECDHE suites (and TLS 1.3) on the server.',
  },
  'hsts-missing': {
    title: 'HTTPS origin without Strict-Transport-Security',
    severity: 'low',
    vector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
    cwe: 319,
    owasp: MISCONFIG,
    description: 'The HTTPS response to GET / carries no Strict-Transport-Security header with a positive max-age.',
    risk: 'A network attacker can downgrade first visits and typed http:// links to plain HTTP and read or change the traffic.',
    remediation: 'Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on HTTPS responses.',
  },
};

/** What one finding saw. */
export interface TlsFindingFacts {
  host: string;
  port: number;
  /** A sentence: what was seen (details.text, topic "Finding"). */
  observation: string;
  /** What was offered and what answered (details.text, topic "Evidence"). */
  evidence: string;
  /** The HTTP exchange, for the HSTS finding. */
  http?: HttpHeadResult;
}

/** The checkId of a kind. */
export function tlsCheckId(kind: TlsFindingKind): string {
  return tlsCheckIds[kind];
}

/** A FindingInput of a TLS kind at `host:port`, with the evidence in details.text and the remediation in details.markdown. */
export function buildTlsFinding(kind: TlsFindingKind, facts: TlsFindingFacts): FindingInput {
  const text = KINDS[kind];
  const cvss = cvss31(text.vector);
  return {
    checkId: tlsCheckIds[kind],
    location: `${facts.host}:${facts.port}`,
    host: facts.host,
    title: text.title,
    severity: text.severity,
    severityV3: cvss.severity,
    cwe: text.cwe,
    cvss: { cvss_3_1: cvss },
    definition: {
      title: text.title,
      description: text.description,
      risk: text.risk,
      module_version: tlsModuleVersion,
      module_release: tlsModuleRelease,
      is_crowdsourced: false,
    },
    owasp: [{ classification: text.owasp, year: 2021 }],
    references: [
      {
        link: 'https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Security_Cheat_Sheet.html',
        name: 'OWASP Transport Layer Security Cheat Sheet',
        source: 'OWASP',
      },
      { link: 'https://ssl-config.mozilla.org/', name: 'Mozilla SSL Configuration Generator', source: 'Mozilla' },
      { link: `https://cwe.mitre.org/data/definitions/${text.cwe}.html`, name: `CWE-${text.cwe}`, source: 'CWE' },
    ],
    source: 'surface-monitoring',
    ...(facts.http === undefined
      ? {}
      : {
          request: facts.http.request,
          response: { body: '', status_code: facts.http.status, headers: facts.http.headers },
        }),
    details: {
      text: [
        { topic: 'Finding', value: facts.observation, highlights: [] },
        { topic: 'Evidence', value: facts.evidence, highlights: [] },
      ],
      markdown: [{ topic: 'Remediation', value: text.remediation, fallback: text.remediation, highlights: [] }],
    },
  };
}
