import { PresentationError } from './dns-name.ts';
import type { RdataDecoder, RdataParser } from './rdata-codec.ts';
import { genericRdata, parseUint } from './text-values.ts';
import type { TokenCursor } from './token-cursor.ts';
import { DnsWireError } from './wire-reader.ts';

/**
 * LOC record data (RFC 1876): `d1 [m1 [s1]] N|S d2 [m2 [s2]] E|W alt[m] [siz[m] [hp[m] [vp[m]]]]`.
 * Both the text and the wire path reduce it to the wire values and print them the way BIND
 * does (`52 22 23.000 N 4 53 32.000 E -2.00m 1m 10000m 10m`), so the canonical text is one.
 */

const EQUATOR = 2 ** 31;
const ALTITUDE_BASE = 10_000_000; // cm: the wire altitude is measured from 100,000 m below the WGS 84 spheroid
const DEFAULT_SIZE = 0x12; // 1 m
const DEFAULT_HORIZONTAL = 0x16; // 10,000 m
const DEFAULT_VERTICAL = 0x13; // 10 m

interface Loc {
  size: number;
  horizontal: number;
  vertical: number;
  latitude: number;
  longitude: number;
  altitude: number;
}

/** Degrees, minutes and seconds up to the hemisphere letter, as thousandths of an arc second off the equator or meridian. */
function coordinate(c: TokenCursor, maxDegrees: number, positive: string, negative: string, what: string): number {
  const degrees = c.uint(`${what} degrees`, maxDegrees);
  let minutes = 0;
  let millis = 0;
  let token = c.word(`${what} hemisphere`);
  if (token !== positive && token !== negative) {
    minutes = parseUint(token, 59, `${what} minutes`);
    token = c.word(`${what} hemisphere`);
    if (token !== positive && token !== negative) {
      const seconds = /^(\d{0,2})(?:\.(\d{0,3}))?$/.exec(token);
      if (seconds === null || token === '.' || token === '')
        throw new PresentationError(`bad ${what} seconds "${token}"`);
      millis = Number(seconds[1] || '0') * 1000 + Number((seconds[2] ?? '').padEnd(3, '0'));
      if (millis >= 60_000) throw new PresentationError(`${what} seconds "${token}" are out of range (below 60)`);
      token = c.word(`${what} hemisphere`);
      if (token !== positive && token !== negative)
        throw new PresentationError(`${what} must end with ${positive} or ${negative}, got "${token}"`);
    }
  }
  const offset = (degrees * 60 + minutes) * 60 * 1000 + millis;
  if (offset > maxDegrees * 3_600_000) throw new PresentationError(`${what} is beyond ${maxDegrees} degrees`);
  return token === positive ? EQUATOR + offset : EQUATOR - offset;
}

/** Centimetres of a `[-]metres[.cc][m]` text within [min, max] centimetres. */
function centimetres(text: string, what: string, min: number, max: number): number {
  const parts = /^([-+]?)(\d*)(?:\.(\d{0,2}))?m?$/.exec(text);
  if (parts === null || !/\d/.test(text))
    throw new PresentationError(`bad ${what} "${text}": metres with at most two decimals`);
  const value = (Number(parts[2]) * 100 + Number((parts[3] ?? '').padEnd(2, '0'))) * (parts[1] === '-' ? -1 : 1);
  if (value < min || value > max) throw new PresentationError(`${what} "${text}" is out of range`);
  return value;
}

/** A size or precision as RFC 1876 stores it: mantissa and power of ten of centimetres, rounded down. */
function precision(text: string, what: string): number {
  const cm = centimetres(text, what, 0, 9_000_000_000);
  let exponent = 0;
  while (exponent < 9 && cm >= 10 ** (exponent + 1)) exponent += 1;
  return (Math.floor(cm / 10 ** exponent) << 4) | exponent;
}

/** Text of a size or precision, as BIND prints it (`1m`, `10000m`, `0.50m`). */
function precisionText(value: number): string {
  const mantissa = value >> 4;
  const exponent = value & 0x0f;
  return exponent >= 2
    ? `${mantissa * 10 ** (exponent - 2)}m`
    : `0.${String(mantissa * 10 ** exponent).padStart(2, '0')}m`;
}

function coordinateText(value: number, positive: string, negative: string): string {
  const offset = Math.abs(value - EQUATOR);
  const degrees = Math.floor(offset / 3_600_000);
  const minutes = Math.floor((offset % 3_600_000) / 60_000);
  const millis = offset % 60_000;
  return `${degrees} ${minutes} ${Math.floor(millis / 1000)}.${String(millis % 1000).padStart(3, '0')} ${value >= EQUATOR ? positive : negative}`;
}

function locText(loc: Loc): string {
  const below = loc.altitude < ALTITUDE_BASE;
  const altitude = Math.abs(loc.altitude - ALTITUDE_BASE);
  const position = `${coordinateText(loc.latitude, 'N', 'S')} ${coordinateText(loc.longitude, 'E', 'W')}`;
  const height = `${below ? '-' : ''}${Math.floor(altitude / 100)}.${String(altitude % 100).padStart(2, '0')}m`;
  return `${position} ${height} ${precisionText(loc.size)} ${precisionText(loc.horizontal)} ${precisionText(loc.vertical)}`;
}

/** LOC from zone-file tokens. */
export const parseLocText: RdataParser = (c) => {
  const latitude = coordinate(c, 90, 'N', 'S', 'latitude');
  const longitude = coordinate(c, 180, 'E', 'W', 'longitude');
  // From -100,000.00 m to 42,849,672.95 m: what 32 bits of centimetres from the base hold.
  const altitude =
    ALTITUDE_BASE + centimetres(c.word('altitude'), 'altitude', -ALTITUDE_BASE, 2 ** 32 - 1 - ALTITUDE_BASE);
  const size = c.hasMore() ? precision(c.word('size'), 'size') : DEFAULT_SIZE;
  const horizontal = c.hasMore()
    ? precision(c.word('horizontal precision'), 'horizontal precision')
    : DEFAULT_HORIZONTAL;
  const vertical = c.hasMore() ? precision(c.word('vertical precision'), 'vertical precision') : DEFAULT_VERTICAL;
  return locText({ size, horizontal, vertical, latitude, longitude, altitude });
};

function checkedPrecision(value: number, what: string): number {
  if (value >> 4 > 9 || (value & 0x0f) > 9) throw new DnsWireError(`LOC ${what} is not a digit and a power of ten`);
  return value;
}

function checkedCoordinate(value: number, maxDegrees: number, what: string): number {
  if (Math.abs(value - EQUATOR) > maxDegrees * 3_600_000)
    throw new DnsWireError(`LOC ${what} is beyond ${maxDegrees} degrees`);
  return value;
}

/** LOC from the wire; a version other than 0 (the only one defined) stays in RFC 3597 form, as BIND keeps it. */
export const decodeLoc: RdataDecoder = (r, end) => {
  const start = r.pos;
  if (r.u8() !== 0) {
    r.pos = end;
    return genericRdata(r.buf, start, end);
  }
  const size = checkedPrecision(r.u8(), 'size');
  const horizontal = checkedPrecision(r.u8(), 'horizontal precision');
  const vertical = checkedPrecision(r.u8(), 'vertical precision');
  const latitude = checkedCoordinate(r.u32(), 90, 'latitude');
  const longitude = checkedCoordinate(r.u32(), 180, 'longitude');
  return locText({ size, horizontal, vertical, latitude, longitude, altitude: r.u32() });
};
