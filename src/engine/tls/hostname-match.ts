import { isIP } from 'node:net';

/** The identities a certificate presents for matching: SAN DNS names and IP addresses, and the subject CN. */
export interface PresentedIdentities {
  dnsNames: string[];
  ipAddresses: string[];
  commonName: string | undefined;
}

function canonical(name: string): string {
  return name.trim().replace(/\.$/, '').toLowerCase();
}

/**
 * Whether one presented DNS identifier matches the reference name (RFC 6125 §6.4): equal
 * ignoring case and a final dot, or a wildcard that is the whole left-most label (`*.a.b`)
 * standing for exactly one label. A wildcard over a single remaining label (`*.com`), or
 * anywhere else than the left-most label, or inside a label (`w*.a.b`), matches nothing, as
 * the CA/Browser Forum rules and the browsers decide.
 */
export function matchesDnsIdentifier(presented: string, reference: string): boolean {
  const pattern = canonical(presented);
  const name = canonical(reference);
  if (pattern === '' || name === '') return false;
  if (!pattern.includes('*')) return pattern === name;
  const labels = pattern.split('.');
  if (labels[0] !== '*' || labels.slice(1).some((l) => l.includes('*') || l === '') || labels.length < 3) return false;
  const nameLabels = name.split('.');
  if (nameLabels.length !== labels.length || nameLabels[0] === '') return false;
  return nameLabels.slice(1).join('.') === labels.slice(1).join('.');
}

/** Normalised text of an IP literal (IPv6 expanded), to compare SAN IP entries with a reference address. */
function ipKey(address: string): string | undefined {
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return undefined;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return groups.map((g) => g.padStart(4, '0')).join(':');
}

/**
 * Whether the certificate is valid for the reference name (a host name or an IP literal).
 * DNS names are matched against the SAN dNSName entries, or, only when the certificate has no
 * SAN DNS or IP entry at all, against the subject CN (RFC 6125 §6.4.4); IP literals only
 * against SAN iPAddress entries.
 */
export function matchesHostname(identities: PresentedIdentities, reference: string): boolean {
  const referenceIp = ipKey(reference);
  if (referenceIp !== undefined) return identities.ipAddresses.some((ip) => ipKey(ip) === referenceIp);
  if (identities.dnsNames.length > 0) return identities.dnsNames.some((d) => matchesDnsIdentifier(d, reference));
  if (identities.ipAddresses.length > 0 || identities.commonName === undefined) return false;
  return matchesDnsIdentifier(identities.commonName, reference);
}
