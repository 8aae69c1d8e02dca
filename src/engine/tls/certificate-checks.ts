import 'reflect-metadata';
import { SubjectAlternativeNameExtension, X509Certificate as ParsedX509 } from '@peculiar/x509';
import { X509Certificate as NodeX509 } from 'node:crypto';
import type { TlsEndpointReport } from '../../core/surface/exposure-engines.ts';
import { matchesHostname, type PresentedIdentities } from './hostname-match.ts';
import type { TrustStore } from './trust-store.ts';

/** A certificate of a presented chain, parsed once (@peculiar/x509 for fields, node:crypto for keys and signatures). */
export interface ChainCertificate {
  parsed: ParsedX509;
  native: NodeX509;
  subject: string;
  issuer: string;
  sha256: string;
  identities: PresentedIdentities;
  /** `RSA 1024`, `EC P-256`, `Ed25519`. */
  keyText: string;
  isKeyWeak: boolean;
  /** `sha256WithRSAEncryption`-like text: the hash and the algorithm. */
  signatureText: string;
  isSignatureWeak: boolean;
}

/** The certificate-assessment kinds, one finding each. */
export type CertificateIssueKind =
  | 'expired'
  | 'not-yet-valid'
  | 'expiring'
  | 'hostname-mismatch'
  | 'self-signed'
  | 'untrusted'
  | 'weak-key'
  | 'weak-signature';

/** One thing wrong with the certificate, with the sentence that tells what was seen. */
export interface CertificateIssue {
  kind: CertificateIssueKind;
  observation: string;
}

/** Expiring means within this many days. */
export const expiryWarningDays = 30;
const DAY = 86_400_000;

// Signature algorithms whose hash is broken: md2/md5/sha1 with RSA, ecdsa-with-SHA1, dsa-with-sha1 (and the old OIW one).
const WEAK_SIGNATURE_OIDS: Record<string, string> = {
  '1.2.840.113549.1.1.2': 'md2WithRSAEncryption',
  '1.2.840.113549.1.1.4': 'md5WithRSAEncryption',
  '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1',
  '1.2.840.10040.4.3': 'dsa-with-SHA1',
  '1.3.14.3.2.29': 'sha1WithRSASignature (OIW)',
};
const WEAK_HASHES = new Set(['SHA-1', 'MD5', 'MD2']);
const CURVE_BITS: Record<string, number> = {
  prime192v1: 192,
  secp224r1: 224,
  prime256v1: 256,
  secp256k1: 256,
  secp384r1: 384,
  secp521r1: 521,
};

function signatureOf(cert: ParsedX509): { text: string; isWeak: boolean } {
  const algorithm = cert.signatureAlgorithm as { name: string; hash?: { name: string } };
  const byOid = WEAK_SIGNATURE_OIDS[algorithm.name];
  if (byOid !== undefined) return { text: byOid, isWeak: true };
  const hash = algorithm.hash?.name;
  const text = hash === undefined ? algorithm.name : `${algorithm.name} with ${hash}`;
  return { text, isWeak: hash !== undefined && WEAK_HASHES.has(hash) };
}

function keyOf(cert: NodeX509): { text: string; isWeak: boolean } {
  const key = cert.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
    case 'dsa': {
      const bits = details.modulusLength ?? 0;
      return { text: `${key.asymmetricKeyType.toUpperCase()} ${bits}`, isWeak: bits < 2048 };
    }
    case 'ec': {
      const curve = details.namedCurve ?? 'unknown curve';
      const bits = CURVE_BITS[curve] ?? Number(/(\d{3})/.exec(curve)?.[1] ?? 0);
      return { text: `EC ${curve} (${bits} bits)`, isWeak: bits < 256 };
    }
    default:
      return { text: key.asymmetricKeyType ?? 'unknown', isWeak: false };
  }
}

function identitiesOf(cert: ParsedX509): PresentedIdentities {
  const san = cert.getExtension(SubjectAlternativeNameExtension);
  const items = san?.names.items ?? [];
  const commonName = cert.subjectName.getField('CN')[0];
  return {
    dnsNames: items.filter((n) => n.type === 'dns').map((n) => n.value),
    ipAddresses: items.filter((n) => n.type === 'ip').map((n) => n.value),
    commonName,
  };
}

/** Parses a presented chain (DER, leaf first); a certificate that does not parse ends the chain there. */
export function parseChain(chain: Buffer[]): ChainCertificate[] {
  const out: ChainCertificate[] = [];
  for (const der of chain) {
    try {
      const parsed = new ParsedX509(new Uint8Array(der));
      const native = new NodeX509(der);
      const signature = signatureOf(parsed);
      const key = keyOf(native);
      out.push({
        parsed,
        native,
        subject: parsed.subject,
        issuer: parsed.issuer,
        sha256: native.fingerprint256.replace(/:/g, '').toLowerCase(),
        identities: identitiesOf(parsed),
        keyText: key.text,
        isKeyWeak: key.isWeak,
        signatureText: signature.text,
        isSignatureWeak: signature.isWeak,
      });
    } catch {
      break;
    }
  }
  return out;
}

/** The endpoint report's view of the leaf. */
export function certificateSummary(leaf: ChainCertificate): NonNullable<TlsEndpointReport['certificate']> {
  const i = leaf.identities;
  return {
    subject: leaf.subject,
    issuer: leaf.issuer,
    notBefore: leaf.parsed.notBefore,
    notAfter: leaf.parsed.notAfter,
    sha256: leaf.sha256,
    sans: [...i.dnsNames, ...i.ipAddresses],
  };
}

const iso = (date: Date): string => date.toISOString();

/**
 * Judges a presented chain for one reference name at `now`: validity of the leaf (expired, not
 * yet valid, expiring within 30 days), the name (RFC 6125), trust (self-signed leaf, or no path
 * to a trusted root through the presented intermediates), and weak keys or signatures on the
 * presented certificates below the trust anchor. One issue per kind at most.
 */
export function assessChain(
  chain: ChainCertificate[],
  reference: string,
  trust: TrustStore,
  now: Date,
): CertificateIssue[] {
  const leaf = chain[0];
  if (leaf === undefined) return [];
  const issues: CertificateIssue[] = [];
  const { notBefore, notAfter } = leaf.parsed;
  const describe = `the certificate of ${reference} (subject ${leaf.subject}, SHA-256 ${leaf.sha256})`;
  if (now.getTime() > notAfter.getTime()) {
    issues.push({
      kind: 'expired',
      observation: `${describe} expired on ${iso(notAfter)} (${Math.floor((now.getTime() - notAfter.getTime()) / DAY)} days ago).`,
    });
  } else if (now.getTime() < notBefore.getTime()) {
    issues.push({
      kind: 'not-yet-valid',
      observation: `${describe} is valid only from ${iso(notBefore)}; the check ran at ${iso(now)}.`,
    });
  } else if (notAfter.getTime() - now.getTime() < expiryWarningDays * DAY) {
    issues.push({
      kind: 'expiring',
      observation: `${describe} expires on ${iso(notAfter)}, in ${Math.floor((notAfter.getTime() - now.getTime()) / DAY)} days.`,
    });
  }
  if (!matchesHostname(leaf.identities, reference)) {
    const presented = [
      ...leaf.identities.dnsNames.map((d) => `DNS:${d}`),
      ...leaf.identities.ipAddresses.map((ip) => `IP:${ip}`),
    ];
    const names =
      presented.length > 0
        ? `subject alternative names ${presented.join(', ')}`
        : `no subject alternative name, common name ${leaf.identities.commonName ?? '(none)'}`;
    issues.push({
      kind: 'hostname-mismatch',
      observation: `${describe} does not cover ${reference}: it presents ${names}.`,
    });
  }
  const path = trust.verifyPath(
    chain.map((c) => c.native),
    now,
  );
  if (!path.isTrusted) {
    if (path.isSelfSigned)
      issues.push({
        kind: 'self-signed',
        observation: `${describe} is self-signed (issuer = subject, signed by its own key) and is not a trusted root.`,
      });
    else
      issues.push({ kind: 'untrusted', observation: `${describe} does not chain to a trusted root: ${path.reason}.` });
  }
  const anchors = new Set(path.anchorFingerprints);
  const below = chain.filter((c) => !anchors.has(c.native.fingerprint256) && !(c !== leaf && c.subject === c.issuer));
  const weakKeys = below.filter((c) => c.isKeyWeak);
  if (weakKeys.length > 0)
    issues.push({
      kind: 'weak-key',
      observation: `Weak public key: ${weakKeys.map((c) => `${c === leaf ? 'leaf' : 'intermediate'} ${c.subject} has ${c.keyText}`).join('; ')} (RSA and DSA need 2048 bits, EC 256).`,
    });
  const weakSignatures = below.filter((c) => c.isSignatureWeak);
  if (weakSignatures.length > 0)
    issues.push({
      kind: 'weak-signature',
      observation: `Weak signature algorithm: ${weakSignatures.map((c) => `${c === leaf ? 'leaf' : 'intermediate'} ${c.subject} is signed with ${c.signatureText}`).join('; ')}.`,
    });
  return issues;
}
