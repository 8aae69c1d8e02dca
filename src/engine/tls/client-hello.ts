import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * A small ClientHello builder for the active probes. Node's TLS stack cannot offer SSLv3 or a
 * chosen list of legacy suites, so the probes write the first flight by hand over a plain TCP
 * socket and read only the server's answer (ServerHello or alert); no handshake is completed
 * (RFC 5246 §7.4.1.2, RFC 8446 §4.1.2).
 */

/** Protocol versions as they travel on the wire. */
export const protocolVersions = {
  SSLv3: 0x0300,
  TLSv1: 0x0301,
  'TLSv1.1': 0x0302,
  'TLSv1.2': 0x0303,
  'TLSv1.3': 0x0304,
} as const;
export type ProtocolName = keyof typeof protocolVersions;

/** The name Node and OpenSSL print for a wire version (`TLSv1.2`), or its hex form. */
export function protocolName(version: number): string {
  for (const [name, value] of Object.entries(protocolVersions)) if (value === version) return name;
  return `0x${version.toString(16).padStart(4, '0')}`;
}

/** What one probe offers. */
export interface HelloOffer {
  /** The highest version offered; TLS 1.3 is offered through supported_versions. */
  version: number;
  /** For a TLS 1.3 offer: also accept these lower versions (supported_versions lists them). */
  alsoVersions?: number[];
  /** Suite code points, in preference order. */
  suites: number[];
  /** Sent as SNI when it is a host name (never for an IP literal, RFC 6066 §3). */
  serverName?: string | undefined;
}

const GROUPS = [0x001d, 0x0017, 0x0018, 0x0019, 0x001e, 0x0100, 0x0101];
// Modern first, then SHA-1 and DSA ones so that an old server finds something it can sign with.
const SIGNATURE_SCHEMES = [
  0x0403, 0x0503, 0x0603, 0x0807, 0x0808, 0x0804, 0x0805, 0x0806, 0x0809, 0x080a, 0x080b, 0x0401, 0x0501, 0x0601,
  0x0303, 0x0301, 0x0302, 0x0402, 0x0203, 0x0201, 0x0202,
];
const RENEGOTIATION_SCSV = 0x00ff;

function u16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value);
  return b;
}

/** A vector with a length prefix of `size` bytes (1, 2 or 3). */
function vector(size: 1 | 2 | 3, body: Buffer): Buffer {
  const head = Buffer.alloc(size);
  head.writeUIntBE(body.length, 0, size);
  return Buffer.concat([head, body]);
}

function list16(values: number[]): Buffer {
  return Buffer.concat(values.map(u16));
}

function extension(type: number, body: Buffer): Buffer {
  return Buffer.concat([u16(type), vector(2, body)]);
}

/** A fresh X25519 public key: servers check the share is a point, not just 32 bytes. */
function x25519Share(): Buffer {
  const { publicKey } = generateKeyPairSync('x25519');
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return der.subarray(der.length - 32);
}

function extensions(offer: HelloOffer): Buffer {
  const parts: Buffer[] = [];
  const name = offer.serverName?.replace(/\.$/, '');
  if (name !== undefined && name !== '' && isIP(name) === 0) {
    const entry = Buffer.concat([Buffer.from([0]), vector(2, Buffer.from(name, 'ascii'))]);
    parts.push(extension(0x0000, vector(2, entry)));
  }
  parts.push(extension(0x000a, vector(2, list16(GROUPS))));
  parts.push(extension(0x000b, vector(1, Buffer.from([0]))));
  if (offer.version >= protocolVersions['TLSv1.2']) parts.push(extension(0x000d, vector(2, list16(SIGNATURE_SCHEMES))));
  parts.push(extension(0x0017, Buffer.alloc(0)));
  parts.push(extension(0xff01, Buffer.from([0])));
  if (offer.version >= protocolVersions['TLSv1.3']) {
    const versions = [offer.version, ...(offer.alsoVersions ?? [])];
    parts.push(extension(0x002b, vector(1, list16(versions))));
    parts.push(extension(0x002d, vector(1, Buffer.from([1]))));
    parts.push(extension(0x0033, vector(2, Buffer.concat([u16(0x001d), vector(2, x25519Share())]))));
  }
  return Buffer.concat(parts);
}

/**
 * The bytes of one ClientHello record for the offer. An SSLv3 offer carries no extensions and
 * signals secure renegotiation with the SCSV, as SSLv3 clients did; a TLS 1.3 offer says
 * TLS 1.2 in legacy_version and lists the real versions in supported_versions.
 */
export function buildClientHello(offer: HelloOffer): Buffer {
  const isSsl3 = offer.version === protocolVersions.SSLv3;
  const isTls13 = offer.version >= protocolVersions['TLSv1.3'];
  const legacyVersion = isTls13 ? protocolVersions['TLSv1.2'] : offer.version;
  const suites = isSsl3 ? [...offer.suites, RENEGOTIATION_SCSV] : offer.suites;
  const body = Buffer.concat([
    u16(legacyVersion),
    randomBytes(32),
    // A TLS 1.3 offer sends a 32-byte legacy session id (middlebox compatibility mode, RFC 8446 D.4).
    vector(1, isTls13 ? randomBytes(32) : Buffer.alloc(0)),
    vector(2, list16(suites)),
    vector(1, Buffer.from([0])),
    ...(isSsl3 ? [] : [vector(2, extensions(offer))]),
  ]);
  const handshake = Buffer.concat([Buffer.from([1]), vector(3, body)]);
  // Record version: SSLv3 for an SSLv3 offer, TLS 1.0 otherwise (what servers expect, RFC 8446 §5.1).
  return Buffer.concat([
    Buffer.from([22]),
    u16(isSsl3 ? protocolVersions.SSLv3 : protocolVersions.TLSv1),
    vector(2, handshake),
  ]);
}
