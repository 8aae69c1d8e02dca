import { PresentationError } from './dns-name.ts';
import { typeName, typeNumber } from './rr-types.ts';
import type { TokenCursor } from './token-cursor.ts';
import { DnsWireError, type WireReader } from './wire-reader.ts';

/**
 * The type bitmap of NSEC, NSEC3 and CSYNC (RFC 4034 §4.1.2, RFC 5155 §3.2.1): a list of type
 * mnemonics in text, windows of bits on the wire. Its canonical text lists the types once each,
 * in number order, by registry mnemonic or `TYPEnnn`, whatever order the text gave them in.
 */

/** Reads the remaining tokens as type mnemonics; `isEmptyAllowed` false requires at least one. */
export function parseTypeBitmap(c: TokenCursor, isEmptyAllowed: boolean): string {
  if (!isEmptyAllowed && !c.hasMore()) throw new PresentationError('missing type bitmap: list the types at this name');
  const types = new Set<number>();
  while (c.hasMore()) {
    const token = c.word('type');
    const type = typeNumber(token);
    if (type === undefined) throw new PresentationError(`unknown type "${token}" in the type bitmap`);
    types.add(type);
  }
  return formatTypes([...types]);
}

/** The canonical text of a set of type numbers. */
function formatTypes(types: number[]): string {
  return types
    .sort((a, b) => a - b)
    .map(typeName)
    .join(' ');
}

/**
 * Decodes a bitmap from the reader up to `end`: windows in increasing order, 1 to 32 bytes each,
 * the last byte of a window not zero (RFC 4034 §4.1.2), as BIND checks it.
 */
export function decodeTypeBitmap(r: WireReader, end: number, isEmptyAllowed: boolean): string {
  if (r.pos === end && !isEmptyAllowed) throw new DnsWireError('empty type bitmap');
  const types: number[] = [];
  let lastWindow = -1;
  while (r.pos < end) {
    const window = r.u8();
    const length = r.u8();
    if (window <= lastWindow) throw new DnsWireError('type bitmap windows out of order');
    if (length < 1 || length > 32) throw new DnsWireError(`type bitmap window of ${length} bytes`);
    if (r.pos + length > end) throw new DnsWireError('type bitmap runs past the record data');
    const bits = r.bytes(length);
    if (bits.charCodeAt(length - 1) === 0) throw new DnsWireError('type bitmap window ends with a zero byte');
    for (let i = 0; i < length; i += 1) {
      const byte = bits.charCodeAt(i);
      for (let bit = 0; bit < 8; bit += 1) if ((byte & (0x80 >> bit)) !== 0) types.push(window * 256 + i * 8 + bit);
    }
    lastWindow = window;
  }
  return formatTypes(types);
}
