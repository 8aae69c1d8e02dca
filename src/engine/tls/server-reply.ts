/**
 * Reads the first answer of a TLS server to a ClientHello: the ServerHello (version, suite,
 * whether it is a HelloRetryRequest) or an alert, from the record stream, without completing
 * the handshake. Anything that does not frame as TLS records is reported as not TLS.
 */

/** What the server's first flight says. */
export type ServerReply =
  | { kind: 'server-hello'; version: number; suite: number; isHelloRetry: boolean }
  | { kind: 'alert'; level: number; description: number }
  | { kind: 'not-tls'; reason: string };

// SHA-256("HelloRetryRequest"): the random of a HelloRetryRequest (RFC 8446 §4.1.3).
const HELLO_RETRY_RANDOM = Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex');
const MAX_RECORD = 16384 + 2048;
const MAX_HANDSHAKE = 64 * 1024;

/** Alert descriptions probes meet, for evidence (RFC 8446 §6). */
const ALERTS: Record<number, string> = {
  0: 'close_notify',
  10: 'unexpected_message',
  20: 'bad_record_mac',
  40: 'handshake_failure',
  47: 'illegal_parameter',
  50: 'decode_error',
  70: 'protocol_version',
  71: 'insufficient_security',
  80: 'internal_error',
  86: 'inappropriate_fallback',
  90: 'user_canceled',
  109: 'missing_extension',
  112: 'unrecognized_name',
};

/** `handshake_failure (40)`. */
export function alertName(description: number): string {
  return `${ALERTS[description] ?? 'alert'} (${description})`;
}

/** The printable start of a non-TLS answer, for evidence. */
export function printable(bytes: Buffer): string {
  return bytes
    .subarray(0, 40)
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '.');
}

function parseServerHello(body: Buffer): ServerReply {
  if (body.length < 38) return { kind: 'not-tls', reason: 'ServerHello too short' };
  let at = 0;
  const legacyVersion = body.readUInt16BE(at);
  at += 2;
  const isHelloRetry = body.subarray(at, at + 32).equals(HELLO_RETRY_RANDOM);
  at += 32;
  const sessionLength = body[at] as number;
  at += 1 + sessionLength;
  if (at + 3 > body.length) return { kind: 'not-tls', reason: 'ServerHello truncated' };
  const suite = body.readUInt16BE(at);
  at += 3;
  let version = legacyVersion;
  if (at + 2 <= body.length) {
    const end = Math.min(body.length, at + 2 + body.readUInt16BE(at));
    at += 2;
    while (at + 4 <= end) {
      const type = body.readUInt16BE(at);
      const length = body.readUInt16BE(at + 2);
      // supported_versions in a ServerHello carries the negotiated version (TLS 1.3).
      if (type === 0x002b && length === 2 && at + 6 <= end) version = body.readUInt16BE(at + 4);
      at += 4 + length;
    }
  }
  return { kind: 'server-hello', version, suite, isHelloRetry };
}

/**
 * Parses what arrived so far. Returns undefined while more bytes are needed; a verdict as
 * soon as the first record decides it (an alert, a ServerHello, or bytes that are not TLS).
 */
export function readServerReply(data: Buffer): ServerReply | undefined {
  const handshake: Buffer[] = [];
  let handshakeLength = 0;
  let at = 0;
  while (at + 5 <= data.length) {
    const type = data[at] as number;
    const major = data[at + 1] as number;
    const length = data.readUInt16BE(at + 3);
    if (type < 20 || type > 23 || major !== 3 || length > MAX_RECORD)
      return { kind: 'not-tls', reason: `answered "${printable(data)}"` };
    if (at + 5 + length > data.length) return undefined;
    const fragment = data.subarray(at + 5, at + 5 + length);
    at += 5 + length;
    if (type === 21) {
      if (fragment.length < 2) return { kind: 'not-tls', reason: 'short alert record' };
      return { kind: 'alert', level: fragment[0] as number, description: fragment[1] as number };
    }
    if (type !== 22) return { kind: 'not-tls', reason: `record type ${type} before the ServerHello` };
    handshake.push(fragment);
    handshakeLength += fragment.length;
    const messages = Buffer.concat(handshake, handshakeLength);
    if (messages.length < 4) continue;
    if (messages[0] !== 2)
      return { kind: 'not-tls', reason: `handshake message ${messages[0]} before the ServerHello` };
    const bodyLength = messages.readUIntBE(1, 3);
    if (bodyLength > MAX_HANDSHAKE) return { kind: 'not-tls', reason: 'oversized ServerHello' };
    if (messages.length >= 4 + bodyLength) return parseServerHello(messages.subarray(4, 4 + bodyLength));
  }
  // A first byte that cannot start a record decides at once (e.g. `HTTP/1.1 400` or an SSH banner).
  if (data.length > 0 && at === 0) {
    const type = data[0] as number;
    if (type < 20 || type > 23 || (data.length > 1 && data[1] !== 3))
      return { kind: 'not-tls', reason: `answered "${printable(data)}"` };
  }
  return undefined;
}
