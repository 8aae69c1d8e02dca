/**
 * Domain names in presentation form. The engine's canonical form of a name is absolute, ASCII
 * lower-case, with a trailing dot (`www.example.com.`, the root is `.`), and every label byte
 * that is not plainly printable escaped the way BIND prints it: `\.`, `\"`, `\(`, `\)`, `\;`,
 * `\@`, `\$`, `\\` for the special characters, `\DDD` for bytes outside 0x21-0x7e. Two spellings
 * of one name therefore give one string, whether they came from a zone file or the wire.
 */

/** A presentation-form text that is not a valid name, number, address…; callers add the line. */
export class PresentationError extends Error {
  override readonly name = 'PresentationError';
}

const MAX_LABEL = 63;
const MAX_NAME_WIRE = 255;
const BACKSLASH = 0x5c;
const DOT = 0x2e;

// Characters printed with a backslash in front (RFC 1035 §5.1 specials, plus `@` and `$`, which
// would otherwise read as the origin or a directive at the start of a name).
const SPECIAL = new Set([0x22, 0x28, 0x29, 0x3b, 0x40, 0x24, 0x5c, 0x2e]);

// 1 for the bytes that stay as they are in canonical form: a table, as this runs per character.
const PLAIN = new Uint8Array(256);
for (let code = 0x21; code < 0x7f; code += 1) PLAIN[code] = SPECIAL.has(code) ? 0 : 1;

/** True for a byte that stays as it is in canonical form (upper-case letters are lowered apart). */
function isPlain(code: number): boolean {
  return PLAIN[code] === 1;
}

/** Canonical text of one label given as a latin1 string of its bytes. */
export function escapeLabel(label: string): string {
  let isSimple = true;
  for (let i = 0; i < label.length; i += 1) {
    const code = label.charCodeAt(i);
    if (!isPlain(code)) {
      isSimple = false;
      break;
    }
  }
  if (isSimple) return lowerAscii(label);
  let out = '';
  for (let i = 0; i < label.length; i += 1) {
    const code = label.charCodeAt(i);
    if (code >= 0x41 && code <= 0x5a) out += String.fromCharCode(code + 32);
    else if (isPlain(code)) out += label[i];
    else if (SPECIAL.has(code)) out += `\\${label[i]}`;
    else out += `\\${String(code).padStart(3, '0')}`;
  }
  return out;
}

/** Lower-cases A-Z only: DNS names are case-insensitive in ASCII, not in Unicode. */
export function lowerAscii(text: string): string {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0x41 && code <= 0x5a) return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
  }
  return text;
}

/** Splits a presentation name (escapes decoded) into label byte strings and says whether it is absolute. */
export function splitName(text: string): { labels: string[]; isAbsolute: boolean } {
  if (text === '.') return { labels: [], isAbsolute: true };
  if (text.length === 0) throw new PresentationError('empty name');
  const labels: string[] = [];
  let label = '';
  let hasLabel = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === DOT) {
      if (!hasLabel) throw new PresentationError(`empty label in name "${text}"`);
      labels.push(label);
      label = '';
      hasLabel = false;
      continue;
    }
    hasLabel = true;
    if (code !== BACKSLASH) {
      label += text[i];
      continue;
    }
    const { char, length } = decodeEscape(text, i);
    label += char;
    i += length - 1;
  }
  if (hasLabel) labels.push(label);
  for (const item of labels) {
    if (item.length > MAX_LABEL) throw new PresentationError(`label longer than 63 bytes in name "${text}"`);
  }
  return { labels, isAbsolute: !hasLabel };
}

/** Decodes the escape at `text[at]` (a backslash): `\DDD` (a byte) or `\X` (X itself). */
export function decodeEscape(text: string, at: number): { char: string; length: number } {
  const next = text.charCodeAt(at + 1);
  if (Number.isNaN(next)) throw new PresentationError(`dangling backslash in "${text}"`);
  if (next >= 0x30 && next <= 0x39) {
    const digits = text.slice(at + 1, at + 4);
    if (!/^\d{3}$/.test(digits))
      throw new PresentationError(`bad escape \\${digits} in "${text}": \\DDD needs three digits`);
    const value = Number(digits);
    if (value > 255) throw new PresentationError(`bad escape \\${digits} in "${text}": above 255`);
    return { char: String.fromCharCode(value), length: 4 };
  }
  return { char: text[at + 1] ?? '', length: 2 };
}

/** Wire length of a canonical absolute name (labels, their length bytes and the root byte). */
export function wireLength(canonical: string): number {
  if (canonical === '.') return 1;
  let length = 1;
  for (let i = 0; i < canonical.length; i += 1) {
    if (canonical.charCodeAt(i) !== BACKSLASH) length += 1;
    else {
      const next = canonical.charCodeAt(i + 1);
      i += next >= 0x30 && next <= 0x39 ? 3 : 1;
      length += 1;
    }
  }
  return length;
}

let cachedOrigin = '';
let cachedOriginLength = 0;

function originWireLength(origin: string): number {
  if (origin !== cachedOrigin) {
    cachedOrigin = origin;
    cachedOriginLength = wireLength(origin);
  }
  return cachedOriginLength;
}

/**
 * The common case in one pass: a name of plain characters (letters, digits, `-`, `_`, `*`…)
 * lower-cased, with its labels checked; undefined when it needs the escape-aware path.
 */
function plainName(text: string): { relative: string; isAbsolute: boolean } | undefined {
  let hasUpper = false;
  let labelStart = 0;
  const end = text.length;
  for (let i = 0; i < end; i += 1) {
    const code = text.charCodeAt(i);
    if (code === DOT) {
      if (i === labelStart) return undefined;
      if (i - labelStart > MAX_LABEL) throw new PresentationError(`label longer than 63 bytes in name "${text}"`);
      labelStart = i + 1;
    } else if (code >= 0x41 && code <= 0x5a) {
      hasUpper = true;
    } else if (!isPlain(code)) {
      return undefined;
    }
  }
  if (end - labelStart > MAX_LABEL) throw new PresentationError(`label longer than 63 bytes in name "${text}"`);
  const isAbsolute = labelStart === end;
  const body = isAbsolute ? text.slice(0, -1) : text;
  return { relative: hasUpper ? body.toLowerCase() : body, isAbsolute };
}

/**
 * Canonical absolute name of a zone-file name: `@` is the origin, a name without a final
 * unescaped dot is relative to the origin (itself canonical, e.g. `example.com.`).
 */
export function canonicalName(text: string, origin: string): string {
  if (text === '@') return origin;
  let relative: string;
  let relativeWire: number;
  let isAbsolute: boolean;
  const plain = text.length > 0 ? plainName(text) : undefined;
  if (plain !== undefined) {
    ({ relative, isAbsolute } = plain);
    relativeWire = relative.length + 1;
  } else {
    const split = splitName(text);
    if (split.labels.length === 0) return '.';
    isAbsolute = split.isAbsolute;
    relative = split.labels.map(escapeLabel).join('.');
    relativeWire = split.labels.reduce((sum, label) => sum + label.length + 1, 0);
  }
  const suffixWire = isAbsolute ? 1 : originWireLength(origin);
  if (relativeWire + suffixWire > MAX_NAME_WIRE) throw new PresentationError(`name "${text}" is longer than 255 bytes`);
  if (isAbsolute || origin === '.') return `${relative}.`;
  return `${relative}.${origin}`;
}

/** The owner form used in records: the canonical name without its trailing dot (the root stays `.`). */
export function ownerForm(canonical: string): string {
  return canonical === '.' ? '.' : canonical.slice(0, -1);
}

/** True when `name` equals `zone` or lies below it; both canonical, or both in owner form (no trailing dot). */
export function isInZone(name: string, zone: string): boolean {
  if (zone === '.' || name === zone) return true;
  const dot = name.length - zone.length - 1;
  if (dot < 1 || !name.endsWith(zone) || name.charCodeAt(dot) !== DOT) return false;
  // The dot separates labels only when an even number of backslashes precede it.
  let slashes = 0;
  while (dot - slashes - 1 >= 0 && name.charCodeAt(dot - slashes - 1) === BACKSLASH) slashes += 1;
  return slashes % 2 === 0;
}

/** Uncompressed wire form (latin1 bytes) of a name in presentation form, read as absolute. */
export function nameToWire(text: string): string {
  const { labels } = splitName(text);
  let out = '';
  for (const label of labels) out += String.fromCharCode(label.length) + label;
  if (out.length + 1 > MAX_NAME_WIRE) throw new PresentationError(`name "${text}" is longer than 255 bytes`);
  return `${out}\0`;
}
