import { PresentationError } from './dns-name.ts';

/**
 * BIND's `$GENERATE` directive (a BIND extension, not RFC 1035), read as BIND 9.18 reads it
 * (lib/dns/master.c, checked against named-compilezone):
 *
 *   $GENERATE start-stop[/step] lhs [ttl] [class] type rhs
 *
 * For every iterator value from start to stop (step 1 by default) lhs and rhs are expanded: `$`
 * is the value, `${offset[,width[,base]]}` adds offset and prints it zero-padded to width in
 * base d (decimal), o (octal), x or X (hexadecimal), n or N (nibbles, least significant first,
 * separated by dots, as in ip6.arpa names); `$$` is a literal `$`, and a backslash keeps the
 * next character as it is (`\$` stays `\$`, a literal `$` in the name or data). The results
 * are then read as an owner name and as record data of the type. BIND's quirks are kept, since
 * a file must mean here what it means to BIND: the range is read by `sscanf("%d-%d/%d")`, so
 * text after it is ignored and numbers wrap as C ints; an offset given once in a name carries
 * over to the next plain `$` of that name, and fields that a later modifier omits keep the
 * earlier modifier's values. BIND loops for ever on a negative value printed as nibbles in
 * some versions; 9.18 prints it as an unsigned 32-bit value, as here.
 */

/** The iterator range of a `$GENERATE` line. */
export interface GenerateRange {
  start: number;
  stop: number;
  step: number;
}

const INT_MAX = 0x7fffffff;

/** What `sscanf`'s `%d` / `%u` read at `at`: the C value and where the number ended, or undefined. */
function scanNumber(text: string, at: number, isUnsigned: boolean): { value: number; end: number } | undefined {
  let i = at;
  while (i < text.length && /\s/.test(text[i] as string)) i += 1;
  let isNegative = false;
  if (text[i] === '+' || text[i] === '-') {
    isNegative = text[i] === '-';
    i += 1;
  }
  const digitsStart = i;
  while (i < text.length && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i += 1;
  if (i === digitsStart) return undefined;
  // strtol / strtoul on a 64-bit long: saturate, then the conversion to a 32-bit int keeps the low bits.
  let big = BigInt(text.slice(digitsStart, i));
  if (isUnsigned) {
    if (big > 0xffffffffffffffffn) big = 0xffffffffffffffffn;
    if (isNegative) big = -big;
    return { value: Number(BigInt.asUintN(32, big)), end: i };
  }
  if (isNegative) big = -big;
  if (big > 0x7fffffffffffffffn) big = 0x7fffffffffffffffn;
  if (big < -0x8000000000000000n) big = -0x8000000000000000n;
  return { value: Number(BigInt.asIntN(32, big)), end: i };
}

/** The range token, or undefined when BIND refuses it ("invalid range"). */
export function parseGenerateRange(text: string): GenerateRange | undefined {
  const start = scanNumber(text, 0, false);
  if (start === undefined || text[start.end] !== '-') return undefined;
  const stop = scanNumber(text, start.end + 1, false);
  if (stop === undefined) return undefined;
  let step = 1;
  if (text[stop.end] === '/') {
    const scanned = scanNumber(text, stop.end + 1, false);
    // "%d-%d%1[/]%d" matching three items is neither of BIND's two forms.
    if (scanned === undefined || scanned.value < 1) return undefined;
    step = scanned.value;
  }
  if (start.value < 0 || stop.value < 0 || stop.value < start.value) return undefined;
  return { start: start.value, stop: stop.value, step };
}

/** How many records a range generates. */
export function rangeCount(range: GenerateRange): number {
  return Math.floor((range.stop - range.start) / range.step) + 1;
}

/** Every character of a modifier's `%1[...]` set, one at a time. */
function scanChar(text: string, at: number, set: string): string | undefined {
  const c = text[at];
  return c !== undefined && set.includes(c) ? c : undefined;
}

/** The state `genname` keeps across the `$` of one name (BIND declares it once per name). */
interface ModifierState {
  delta: number;
  width: number;
  comma1: string;
  comma2: string;
  mode: string;
  brace: string;
}

const HEX = '0123456789abcdef';
/** BIND prints a number into a 128-byte buffer: a longer one is "ran out of space". */
const NUMBER_SPACE = 128;

function zeroPad(digits: string, width: number): string {
  if (digits.startsWith('-')) return `-${digits.slice(1).padStart(width - 1, '0')}`;
  return digits.padStart(width, '0');
}

/** `printf("%0<width><mode>", value)` for a C int value. */
function printNumber(value: number, width: number, mode: string): string {
  if (width >= NUMBER_SPACE) throw new PresentationError('$GENERATE: the number does not fit (width too large)');
  const unsigned = value >>> 0;
  let digits: string;
  if (mode === 'o') digits = unsigned.toString(8);
  else if (mode === 'x') digits = unsigned.toString(16);
  else if (mode === 'X') digits = unsigned.toString(16).toUpperCase();
  else digits = String(value);
  return width > 0 ? zeroPad(digits, width) : digits;
}

/** BIND's nibbles(): least significant nibble first, dot-separated, padded with zero nibbles (and dots) to width characters. */
function printNibbles(value: number, width: number, isUpper: boolean): string {
  if (width >= NUMBER_SPACE) throw new PresentationError('$GENERATE: the number does not fit (width too large)');
  let rest = value >>> 0;
  let left = width;
  let out = '';
  do {
    const nibble = HEX[rest & 0x0f] as string;
    out += isUpper ? nibble.toUpperCase() : nibble;
    rest >>>= 4;
    if (left > 0) left -= 1;
    if (left > 0 || rest !== 0) {
      out += '.';
      if (left > 0) left -= 1;
    }
  } while (rest !== 0 || left > 0);
  return out;
}

/**
 * Expands one template (lhs or rhs text, escapes kept) for iterator value `it`, as BIND's
 * genname() does. Throws PresentationError for a malformed modifier or a number that does not fit.
 */
export function expandTemplate(template: string, it: number): string {
  if (!template.includes('$')) return template;
  const state: ModifierState = { delta: 0, width: 0, comma1: '', comma2: '', mode: '', brace: '' };
  let out = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i] as string;
    if (c === '\\') {
      out += template.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c !== '$') {
      out += c;
      i += 1;
      continue;
    }
    i += 1;
    if (template[i] === '$') {
      out += '$';
      i += 1;
      continue;
    }
    let width = 0;
    let mode = 'd';
    if (template[i] === '{') {
      ({ i, width, mode } = readModifier(template, i, state));
    }
    if (it > 0 && state.delta > INT_MAX - it)
      throw new PresentationError('$GENERATE: the offset takes the value out of range');
    const value = (it + state.delta) | 0;
    const text =
      mode === 'n' || mode === 'N' ? printNibbles(value, width, mode === 'N') : printNumber(value, width, mode);
    if (text.length >= NUMBER_SPACE)
      throw new PresentationError('$GENERATE: the number does not fit (width too large)');
    out += text;
  }
  return out;
}

/**
 * Reads `{offset[,width[,base]]}` at `at` (the `{`) like BIND's
 * `sscanf(name, "{%d%1[,}]%u%1[,}]%1[doxXnN]%1[}]")`, whose fields keep their earlier values
 * when a conversion fails; returns where the text goes on (after the first `}`) and the format.
 */
function readModifier(template: string, at: number, state: ModifierState): { i: number; width: number; mode: string } {
  const malformed = () =>
    new PresentationError(
      `$GENERATE: malformed modifier "${template.slice(at - 1, template.indexOf('}', at) + 1 || undefined)}" (expected \${offset[,width[,base]]}, base one of d o x X n N)`,
    );
  let n = 0;
  let p = at + 1;
  const delta = scanNumber(template, p, false);
  if (delta !== undefined) {
    n += 1;
    state.delta = delta.value;
    p = delta.end;
    const comma1 = scanChar(template, p, ',}');
    if (comma1 !== undefined) {
      n += 1;
      state.comma1 = comma1;
      p += 1;
      const width = scanNumber(template, p, true);
      if (width !== undefined) {
        n += 1;
        state.width = width.value;
        p = width.end;
        const comma2 = scanChar(template, p, ',}');
        if (comma2 !== undefined) {
          n += 1;
          state.comma2 = comma2;
          p += 1;
          const mode = scanChar(template, p, 'doxXnN');
          if (mode !== undefined) {
            n += 1;
            state.mode = mode;
            p += 1;
            const brace = scanChar(template, p, '}');
            if (brace !== undefined) {
              n += 1;
              state.brace = brace;
            }
          }
        }
      }
    }
  }
  if (n < 2) throw malformed();
  let width = 0;
  let mode = 'd';
  if (state.comma1 === '}') {
    // ${offset}
  } else if (state.comma1 === ',' && state.comma2 === '}') {
    width = state.width;
  } else if (state.comma1 === ',' && state.comma2 === ',' && state.mode !== '' && state.brace === '}') {
    width = state.width;
    mode = state.mode;
  } else {
    throw malformed();
  }
  // Past the first closing brace (or to the end of the text).
  const close = template.indexOf('}', at);
  return { i: close === -1 ? template.length : close + 1, width, mode };
}
