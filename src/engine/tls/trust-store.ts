import { X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';

/** The outcome of building a path from a leaf to a trusted root. */
export interface PathVerdict {
  isTrusted: boolean;
  /** The leaf is its own issuer (and not itself a trusted root). */
  isSelfSigned: boolean;
  /** Why no trusted path was found (for the evidence). */
  reason: string;
  /** SHA-256 fingerprints (node's colon form) of the trust anchors used: trusted roots in the path. */
  anchorFingerprints: string[];
}

/** Verifies presented chains against a set of root certificates. */
export interface TrustStore {
  verifyPath(presented: X509Certificate[], now: Date): PathVerdict;
}

const MAX_DEPTH = 8;

function isWithin(cert: X509Certificate, now: Date): boolean {
  return new Date(cert.validFrom).getTime() <= now.getTime() && now.getTime() <= new Date(cert.validTo).getTime();
}

/** Whether `issuer` issued `cert`: names match (and key identifiers, when both carry them) and the signature verifies. */
function isIssuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/**
 * A trust store over Node's bundled roots (`tls.rootCertificates`, Mozilla's list) plus
 * `extraRootsPem` (tests add their own CA here). Roots are parsed on first use. A path is built
 * from the leaf through the presented intermediates (any order, as servers send them) to a
 * root, each link checked by name and signature; an intermediate outside its validity breaks
 * the link. Path building stops at MAX_DEPTH intermediates.
 */
export function createTrustStore(extraRootsPem: readonly string[] = []): TrustStore {
  let bySubject: Map<string, X509Certificate[]> | undefined;
  let fingerprints: Set<string> | undefined;
  const load = (): { bySubject: Map<string, X509Certificate[]>; fingerprints: Set<string> } => {
    if (bySubject === undefined || fingerprints === undefined) {
      bySubject = new Map();
      fingerprints = new Set();
      for (const pem of [...rootCertificates, ...extraRootsPem]) {
        const root = new X509Certificate(pem);
        fingerprints.add(root.fingerprint256);
        const list = bySubject.get(root.subject) ?? [];
        list.push(root);
        bySubject.set(root.subject, list);
      }
    }
    return { bySubject, fingerprints };
  };
  return {
    verifyPath(presented, now) {
      const roots = load();
      const leaf = presented[0];
      if (leaf === undefined)
        return {
          isTrusted: false,
          isSelfSigned: false,
          reason: 'no certificate was presented',
          anchorFingerprints: [],
        };
      if (roots.fingerprints.has(leaf.fingerprint256))
        return { isTrusted: true, isSelfSigned: false, reason: '', anchorFingerprints: [leaf.fingerprint256] };
      const isSelfSigned = leaf.subject === leaf.issuer && isIssuedBy(leaf, leaf);
      if (isSelfSigned) return { isTrusted: false, isSelfSigned: true, reason: 'self-signed', anchorFingerprints: [] };
      const pool = presented.slice(1);
      let current = leaf;
      const used = new Set<string>([leaf.fingerprint256]);
      for (let depth = 0; depth <= MAX_DEPTH; depth += 1) {
        const root = (roots.bySubject.get(current.issuer) ?? []).find((r) => isIssuedBy(current, r));
        if (root !== undefined)
          return { isTrusted: true, isSelfSigned: false, reason: '', anchorFingerprints: [root.fingerprint256] };
        const next = pool.find((c) => !used.has(c.fingerprint256) && isIssuedBy(current, c));
        if (next === undefined) {
          const presentedNames =
            pool.length === 0
              ? 'the server presented no intermediate'
              : `presented intermediates: ${pool.map((c) => c.subject.replace(/\n/g, ', ')).join(' | ')}`;
          return {
            isTrusted: false,
            isSelfSigned: false,
            reason: `no trusted issuer for ${current.subject.replace(/\n/g, ', ')} (issuer ${current.issuer.replace(/\n/g, ', ')}); ${presentedNames}`,
            anchorFingerprints: [],
          };
        }
        if (!isWithin(next, now))
          return {
            isTrusted: false,
            isSelfSigned: false,
            reason: `intermediate ${next.subject.replace(/\n/g, ', ')} is outside its validity (${next.validFrom} to ${next.validTo})`,
            anchorFingerprints: [],
          };
        used.add(next.fingerprint256);
        current = next;
      }
      return {
        isTrusted: false,
        isSelfSigned: false,
        reason: `no root within ${MAX_DEPTH} intermediates`,
        anchorFingerprints: [],
      };
    },
  };
}
