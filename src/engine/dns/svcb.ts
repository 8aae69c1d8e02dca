import { nameToWire, PresentationError } from './dns-name.ts';
import type { TokenCursor } from './token-cursor.ts';
import { formatIpv6, ipv4Bytes, ipv6Bytes } from './ip-text.ts';
import { base64Bytes, decodeText, parseUint, quoteText, toBase64 } from './text-values.ts';
import { DnsWireError, WireReader } from './wire-reader.ts';

/**
 * SVCB and HTTPS record data (RFC 9460): `priority target key=value…`. The text form is encoded
 * to the wire form and decoded back, so the zone-file path and the wire path share one
 * canonical text (BIND's: parameters in key order, alpn and unknown keys quoted).
 */

const KEY_NAMES = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint', 'dohpath'];

function keyNumber(name: string): number {
  const known = KEY_NAMES.indexOf(name.toLowerCase());
  if (known !== -1) return known;
  const generic = /^key(\d{1,5})$/i.exec(name);
  if (generic !== null && Number(generic[1]) <= 0xffff) return Number(generic[1]);
  throw new PresentationError(`unknown SVCB parameter "${name}"`);
}

function keyName(key: number): string {
  return KEY_NAMES[key] ?? `key${key}`;
}

const u16 = (value: number): string => String.fromCharCode(value >> 8, value & 0xff);

/** Splits an RFC 9460 value-list (escapes already applied once): `,` separates, `\,` and `\\` are literal. */
function splitValueList(value: string): string[] {
  const items: string[] = [];
  let item = '';
  for (let i = 0; i < value.length; i += 1) {
    const char = value[i];
    if (char === '\\' && i + 1 < value.length) {
      item += value[i + 1];
      i += 1;
    } else if (char === ',') {
      items.push(item);
      item = '';
    } else {
      item += char;
    }
  }
  items.push(item);
  return items;
}

/** Wire value of one parameter from its presentation value (escapes applied). */
function encodeValue(key: number, value: string | undefined): string {
  const required = (): string => {
    if (value === undefined || value === '')
      throw new PresentationError(`SVCB parameter ${keyName(key)} needs a value`);
    return value;
  };
  switch (key) {
    case 0: {
      const keys = required()
        .split(',')
        .map(keyNumber)
        .sort((a, b) => a - b);
      if (keys.includes(0)) throw new PresentationError('SVCB mandatory must not list itself');
      if (new Set(keys).size !== keys.length) throw new PresentationError('SVCB mandatory lists a key twice');
      return keys.map(u16).join('');
    }
    case 1:
      return splitValueList(required())
        .map((id) => {
          if (id.length === 0 || id.length > 255)
            throw new PresentationError('SVCB alpn identifiers must be 1 to 255 bytes');
          return String.fromCharCode(id.length) + id;
        })
        .join('');
    case 2:
      if (value !== undefined) throw new PresentationError('SVCB no-default-alpn takes no value');
      return '';
    case 3:
      return u16(parseUint(required(), 0xffff, 'SVCB port'));
    case 4:
      return required()
        .split(',')
        .map((address) => String.fromCharCode(...ipv4Bytes(address)))
        .join('');
    case 5:
      return base64Bytes(required(), 'SVCB ech');
    case 6:
      return required()
        .split(',')
        .map((address) => String.fromCharCode(...ipv6Bytes(address)))
        .join('');
    default:
      return value ?? '';
  }
}

/** Reads `priority target params…` from zone-file tokens into canonical text. */
export function parseSvcbText(cursor: TokenCursor): string {
  const priority = cursor.uint('SVCB priority', 0xffff);
  const target = nameToWire(cursor.name('SVCB target'));
  const params = new Map<number, string>();
  while (cursor.hasMore()) {
    const token = cursor.word('SVCB parameter');
    const equals = token.indexOf('=');
    const key = keyNumber(equals === -1 ? token : token.slice(0, equals));
    let value: string | undefined;
    if (equals !== -1) {
      // `key="quoted value"` arrives as two tokens, `key=` then the quoted string.
      const raw =
        equals === token.length - 1 && cursor.peek()?.charCodeAt(0) === 0x22
          ? cursor.next('SVCB value')
          : token.slice(equals + 1);
      value = decodeText(raw);
    }
    if (params.has(key)) throw new PresentationError(`SVCB parameter ${keyName(key)} appears twice`);
    const wire = encodeValue(key, value);
    if (wire.length > 0xffff) throw new PresentationError(`SVCB parameter ${keyName(key)} is too long`);
    params.set(key, wire);
  }
  const mandatory = params.get(0);
  for (let i = 0; mandatory !== undefined && i < mandatory.length; i += 2) {
    const key = (mandatory.charCodeAt(i) << 8) | mandatory.charCodeAt(i + 1);
    if (!params.has(key)) throw new PresentationError(`SVCB mandatory lists ${keyName(key)}, which is missing`);
  }
  const ordered = [...params].sort(([a], [b]) => a - b);
  const bytes = u16(priority) + target + ordered.map(([key, wire]) => u16(key) + u16(wire.length) + wire).join('');
  const reader = new WireReader(Buffer.from(bytes, 'latin1'), 0, false);
  try {
    return decodeSvcb(reader, bytes.length);
  } catch (err) {
    if (err instanceof DnsWireError) throw new PresentationError(`bad SVCB data: ${err.message}`);
    throw err;
  }
}

/** Escapes one value-list item (comma and backslash) before the string escaping of quoteText. */
function escapeItem(item: string): string {
  return item.replace(/[\\,]/g, (char) => `\\${char}`);
}

function decodeValue(key: number, value: string): string {
  const fail = (): never => {
    throw new DnsWireError(`bad SVCB ${keyName(key)} value`);
  };
  const list = (size: number, format: (at: number) => string): string => {
    if (value.length === 0 || value.length % size !== 0) fail();
    const items: string[] = [];
    for (let at = 0; at < value.length; at += size) items.push(format(at));
    return items.join(',');
  };
  switch (key) {
    case 0:
      return list(2, (at) => keyName((value.charCodeAt(at) << 8) | value.charCodeAt(at + 1)));
    case 1: {
      const ids: string[] = [];
      for (let at = 0; at < value.length;) {
        const length = value.charCodeAt(at);
        if (length === 0 || at + 1 + length > value.length) fail();
        ids.push(escapeItem(value.slice(at + 1, at + 1 + length)));
        at += 1 + length;
      }
      if (ids.length === 0) fail();
      return quoteText(ids.join(','));
    }
    case 2:
      return value.length === 0 ? '' : fail();
    case 3:
      return value.length === 2 ? String((value.charCodeAt(0) << 8) | value.charCodeAt(1)) : fail();
    case 4:
      return list(4, (at) => [0, 1, 2, 3].map((k) => value.charCodeAt(at + k)).join('.'));
    case 5:
      return toBase64(value);
    case 6:
      return list(16, (at) => formatIpv6(Buffer.from(value.slice(at, at + 16), 'latin1')));
    default:
      return quoteText(value);
  }
}

/** Canonical text of SVCB/HTTPS record data at the reader, ending at `end`. */
export function decodeSvcb(reader: WireReader, end: number): string {
  const priority = reader.u16();
  const target = reader.name();
  let text = `${priority} ${target}`;
  let previous = -1;
  while (reader.pos < end) {
    const key = reader.u16();
    if (key <= previous) throw new DnsWireError('SVCB parameters out of order');
    previous = key;
    const value = reader.bytes(reader.u16());
    const shown = decodeValue(key, value);
    text += shown === '' && key === 2 ? ` ${keyName(key)}` : ` ${keyName(key)}=${shown}`;
  }
  return text;
}
