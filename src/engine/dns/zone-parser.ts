import { canonicalName, ownerForm, PresentationError } from './dns-name.ts';
import { parseRdata } from './rdata-text.ts';
import { isMetaType } from './rr-type-registry.ts';
import { classNumber, className, RR_TYPE, typeName, typeNumber } from './rr-types.ts';
import { isTtlText, parseTtl } from './text-values.ts';
import { TokenCursor } from './token-cursor.ts';
import { applyDirective, isDirective, type ZoneState } from './zone-directives.ts';
import { expandTemplate, parseGenerateRange, rangeCount } from './zone-generate.ts';
import { ZoneSyntaxError, type ZoneRecord } from './zone-record.ts';
import { ZoneTokenizer, type ZoneEntry } from './zone-tokenizer.ts';

export { ZoneSyntaxError, type ZoneRecord } from './zone-record.ts';

/** How a zone file is read. */
export interface ParseZoneOptions {
  /** The zone's origin (`example.com` or `example.com.`): `@` and relative names are completed with it. */
  origin: string;
  /** TTL of records that give none before any `$TTL` (otherwise RFC 1035 and BIND rules apply). */
  defaultTtl?: number;
  /** Class of the zone; a record of another class is an error, as in BIND. Default `IN`. */
  class?: string;
  /** Most records the file may hold, `$GENERATE`d ones included (default zoneRecordLimit). */
  maxRecords?: number;
}

/**
 * Most records one zone file may hold, those `$GENERATE` expands included. A plain file of 5 MB
 * holds under 450,000 (the shortest record line is about 12 bytes), so the bound only stops a few
 * `$GENERATE` lines from turning one small upload into tens of millions of names to index in one
 * transaction; a range that would pass it is refused before anything is expanded.
 */
export const zoneRecordLimit = 1_000_000;

/** Records per batch at most: a `$GENERATE` range is streamed in batches of this size. */
const maxBatch = 1000;

/** Input of the parser: chunks of the file (Buffers, or strings read as UTF-8). */
export type ZoneInput = AsyncIterable<Buffer | string> | Iterable<Buffer | string>;

const UTF8_BOM = '\xef\xbb\xbf';

/** Reads the `origin` option into canonical form, refusing what is not a domain name. */
function canonicalOrigin(origin: string): string {
  try {
    return canonicalName(origin.endsWith('.') ? origin : `${origin}.`, '.');
  } catch (err) {
    throw new Error(`invalid zone origin ${JSON.stringify(origin)}: ${(err as Error).message}`, { cause: err });
  }
}

/** The owner, TTL, class and type at the head of a record entry, and where its data starts. */
interface RecordHead {
  owner: string;
  ttl: number | undefined;
  type: number;
  /** Index of the first data token. */
  index: number;
}

/** Parses the entries of one chunk into records; the state carries over to the next chunk. */
class EntryParser {
  readonly state: ZoneState;
  /**
   * The first zone the file names: the first `$ORIGIN` or SOA owner other than the root,
   * canonical (`example.net.`), or undefined while there is none.
   */
  zoneName: string | undefined;
  /** Records so far, counted against maxRecords. */
  private count = 0;
  private readonly maxRecords: number;
  private readonly zoneClass: number;
  private readonly zoneClassName: string;

  constructor(
    options: ParseZoneOptions,
    /** False when only reading for the zone name: `$GENERATE` lines are checked, not expanded. */
    private readonly isExpanding = true,
  ) {
    this.state = {
      origin: canonicalOrigin(options.origin),
      defaultTtl: options.defaultTtl,
      lastTtl: undefined,
      lastOwner: undefined,
    };
    const zoneClass = classNumber(options.class ?? 'IN');
    if (zoneClass === undefined) throw new Error(`invalid zone class ${JSON.stringify(options.class)}`);
    this.zoneClass = zoneClass;
    this.zoneClassName = className(zoneClass);
    this.maxRecords = options.maxRecords ?? zoneRecordLimit;
  }

  /** The records of the entries, in batches of at most maxBatch. */
  *parse(entries: ZoneEntry[]): Generator<ZoneRecord[]> {
    let out: ZoneRecord[] = [];
    for (const entry of entries) {
      let line = entry.line;
      try {
        if (isGenerate(entry)) {
          for (const record of this.generate(entry)) {
            out.push(record);
            if (out.length >= maxBatch) {
              yield out;
              out = [];
            }
          }
        } else if (isDirective(entry)) {
          applyDirective(entry, this.state);
          if (isOriginDirective(entry) && this.state.origin !== '.') this.zoneName ??= this.state.origin;
        } else {
          out.push(this.record(entry, (at) => (line = at)));
          if (out.length >= maxBatch) {
            yield out;
            out = [];
          }
        }
      } catch (err) {
        if (err instanceof PresentationError) throw new ZoneSyntaxError(line, err.message);
        throw err;
      }
    }
    if (out.length > 0) yield out;
  }

  /** One record entry: `[owner] [ttl] [class] type data` with TTL and class in either order. */
  private record(entry: ZoneEntry, at: (line: number) => void): ZoneRecord {
    const state = this.state;
    let owner: string;
    let index = 0;
    if (entry.isOwnerBlank) {
      if (state.lastOwner === undefined)
        throw new PresentationError('the first record has no owner name (the line starts with blank space)');
      owner = state.lastOwner;
    } else {
      owner = canonicalName(ownerToken(entry.tokens[0] ?? ''), state.origin);
      index = 1;
    }
    const head = this.head(entry, owner, index, at);
    if (head.type === RR_TYPE.SOA && owner !== '.') this.zoneName ??= owner;
    this.countRecords(1);
    const cursor = new TokenCursor(entry.tokens, entry.lines, head.index, state.origin);
    let data: string;
    try {
      data = parseRdata(cursor, head.type);
    } finally {
      at(cursor.line);
    }
    state.lastOwner = owner;
    return {
      name: ownerForm(owner),
      ttl: this.resolveTtl(head.ttl, head.type, data),
      class: this.zoneClassName,
      type: typeName(head.type),
      data,
    };
  }

  /** Reads `[ttl] [class] type` (TTL and class in either order) from `index` on. */
  private head(entry: ZoneEntry, owner: string, from: number, at: (line: number) => void): RecordHead {
    const { tokens, lines } = entry;
    let index = from;
    let ttl: number | undefined;
    let recordClass: number | undefined;
    let type: number | undefined;
    while (index < tokens.length) {
      const token = tokens[index] as string;
      at(lines[index] ?? entry.line);
      index += 1;
      if (ttl === undefined && isTtlText(token)) {
        ttl = parseTtl(token);
        continue;
      }
      if (recordClass === undefined) {
        recordClass = classNumber(token);
        if (recordClass !== undefined) continue;
      }
      type = typeNumber(token);
      if (type === undefined) throw new PresentationError(`unknown record type "${printable(token)}"`);
      break;
    }
    if (type === undefined) throw new PresentationError('missing record type');
    if (isMetaType(type)) throw new PresentationError(`type ${typeName(type)} cannot appear in a zone file`);
    if (recordClass !== undefined && recordClass !== this.zoneClass) {
      throw new PresentationError(
        `class ${className(recordClass)} does not match the zone class ${this.zoneClassName}`,
      );
    }
    return { owner, ttl, type, index };
  }

  /** Counts records against the limit; the error names the line that would pass it. */
  private countRecords(n: number): void {
    if (this.count + n > this.maxRecords) {
      throw new PresentationError(
        `the zone file holds more than ${this.maxRecords} records, the most one zone file may hold${n > 1 ? ` (this $GENERATE adds ${n})` : ''}`,
      );
    }
    this.count += n;
  }

  /**
   * `$GENERATE start-stop[/step] lhs [ttl] [class] type rhs`, expanded as BIND does (see
   * zone-generate.ts). Generated records neither set the owner that a blank owner repeats nor
   * name the zone, as in BIND; an explicit TTL is remembered like a record's.
   */
  private *generate(entry: ZoneEntry): Generator<ZoneRecord> {
    const { tokens } = entry;
    const state = this.state;
    const rangeText = tokens[1];
    const lhs = tokens[2];
    if (rangeText === undefined || lhs === undefined)
      throw new PresentationError(
        '$GENERATE needs a range, an owner, a type and the record data ($GENERATE start-stop[/step] lhs [ttl] [class] type rhs)',
      );
    if (lhs.charCodeAt(0) === 0x22) throw new PresentationError('$GENERATE: the owner (lhs) must not be quoted');
    const range = rangeText.charCodeAt(0) === 0x22 ? undefined : parseGenerateRange(rangeText);
    if (range === undefined)
      throw new PresentationError(
        `$GENERATE: invalid range "${printable(rangeText)}" (expected start-stop or start-stop/step, 0 <= start <= stop, step >= 1)`,
      );
    const head = this.head(entry, '', 3, () => undefined);
    const rhs = tokens[head.index];
    if (rhs === undefined) throw new PresentationError('$GENERATE: missing the record data (rhs)');
    if (head.index + 1 < tokens.length)
      throw new PresentationError(
        `$GENERATE: unexpected "${printable(tokens[head.index + 1] as string)}" after the record data (quote the data when it has several fields)`,
      );
    if (head.ttl === undefined && state.defaultTtl === undefined && state.lastTtl === undefined) {
      throw new PresentationError('no TTL: give the $GENERATE line a TTL or put a $TTL line before it');
    }
    if (!this.isExpanding) return;
    this.countRecords(rangeCount(range));
    const isQuoted = rhs.charCodeAt(0) === 0x22;
    const template = isQuoted ? unquoteRhs(rhs.slice(1)) : rhs;
    for (let it = range.start; it <= range.stop; it += range.step) {
      const owner = canonicalName(expandTemplate(lhs, it), state.origin);
      const text = expandTemplate(template, it);
      const dataTokens = isQuoted ? rhsTokens(text) : [text];
      const cursor = new TokenCursor(
        dataTokens,
        dataTokens.map(() => entry.line),
        0,
        state.origin,
      );
      const data = parseRdata(cursor, head.type);
      yield {
        name: ownerForm(owner),
        ttl: this.resolveTtl(head.ttl, head.type, data),
        class: this.zoneClassName,
        type: typeName(head.type),
        data,
      };
    }
  }

  /**
   * An explicit TTL wins and is remembered; then `$TTL` (or the caller's default); then the
   * last explicit TTL (RFC 1035); an SOA without any of these takes its MINIMUM field, which
   * then acts as `$TTL` for the rest of the file, as BIND does.
   */
  private resolveTtl(ttl: number | undefined, type: number, data: string): number {
    const state = this.state;
    if (ttl !== undefined) {
      state.lastTtl = ttl;
      return ttl;
    }
    if (state.defaultTtl !== undefined) return state.defaultTtl;
    if (state.lastTtl !== undefined) return state.lastTtl;
    if (type === RR_TYPE.SOA) {
      state.defaultTtl = Number(data.slice(data.lastIndexOf(' ') + 1));
      return state.defaultTtl;
    }
    throw new PresentationError('no TTL: give the record a TTL or put a $TTL line before it');
  }
}

function isOriginDirective(entry: ZoneEntry): boolean {
  return (entry.tokens[0] ?? '').toUpperCase() === '$ORIGIN';
}

/** True for a `$GENERATE` line (a directive the parser expands itself). */
function isGenerate(entry: ZoneEntry): boolean {
  return isDirective(entry) && (entry.tokens[0] ?? '').toUpperCase() === '$GENERATE';
}

/**
 * The text of a quoted `$GENERATE` rhs as BIND's lexer gives it: an escaped quote loses its
 * backslash (so `"\\"q$\\""` is the quoted string `"q1"` once expanded); other escapes stay.
 */
function unquoteRhs(raw: string): string {
  if (!raw.includes('\\"')) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i] as string;
    if (c === '\\' && i + 1 < raw.length) {
      const next = raw[i + 1] as string;
      out += next === '"' ? next : c + next;
      i += 1;
    } else {
      out += c;
    }
  }
  return out;
}

/** The tokens of a quoted `$GENERATE` rhs once expanded: BIND reads it again as record data text. */
function rhsTokens(text: string): string[] {
  const tokenizer = new ZoneTokenizer();
  const entries: ZoneEntry[] = [];
  try {
    tokenizer.push(text, entries);
    tokenizer.end(entries);
  } catch (err) {
    if (err instanceof ZoneSyntaxError) throw new PresentationError(`$GENERATE: ${err.reason}`);
    throw err;
  }
  return entries.flatMap((entry) => entry.tokens);
}

/** A quoted token cannot be an owner; naming it in the message helps more than "bad name". */
function ownerToken(token: string): string {
  if (token.charCodeAt(0) === 0x22) throw new PresentationError('an owner name must not be quoted');
  return token;
}

/** A token shortened for a message. */
function printable(token: string): string {
  return token.length > 40 ? `${token.slice(0, 40)}…` : token;
}

/** Chunk text for the tokenizer: bytes one to one (latin1), so record bytes survive unchanged. */
function chunkText(chunk: Buffer | string): string {
  if (typeof chunk !== 'string') return chunk.toString('latin1');
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\x7f]/.test(chunk) ? Buffer.from(chunk, 'utf8').toString('latin1') : chunk;
}

/** Lets other work run between the batches of one long `$GENERATE` range. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Input chunks as tokenizer text, a UTF-8 byte order mark before the first line skipped. */
async function* chunkTexts(input: ZoneInput): AsyncGenerator<string> {
  let isFirst = true;
  for await (const chunk of input) {
    let text = chunkText(chunk);
    if (isFirst && text.length > 0) {
      if (text.startsWith(UTF8_BOM)) text = text.slice(UTF8_BOM.length);
      isFirst = false;
    }
    yield text;
  }
}

/**
 * Streams the records of an RFC 1035 master file in batches (one per input chunk, or of at most
 * 1000 records): the file is never held whole, only the current line, the current entry and one
 * chunk's records. Throws ZoneSyntaxError naming the line at the first fault; records before it
 * were already yielded.
 */
export async function* parseZoneBatches(input: ZoneInput, options: ParseZoneOptions): AsyncGenerator<ZoneRecord[]> {
  const tokenizer = new ZoneTokenizer();
  const parser = new EntryParser(options);
  const entries: ZoneEntry[] = [];
  const batches = async function* (tokenize: () => void): AsyncGenerator<ZoneRecord[]> {
    let n = 0;
    for (const batch of parseChunk(parser, entries, tokenize)) {
      if (n > 0) await nextTurn();
      n += 1;
      yield batch;
    }
  };
  for await (const text of chunkTexts(input)) yield* batches(() => tokenizer.push(text, entries));
  yield* batches(() => tokenizer.end(entries));
}

/**
 * Tokenizes one chunk and parses its entries. A tokenizer fault is raised only after the
 * entries before it were parsed, so the error always names the first faulty line.
 */
function* parseChunk(parser: EntryParser, entries: ZoneEntry[], tokenize: () => void): Generator<ZoneRecord[]> {
  entries.length = 0;
  let failure: unknown;
  try {
    tokenize();
  } catch (err) {
    failure = err;
  }
  yield* parser.parse(entries);
  if (failure !== undefined) throw failure;
}

/** Streams the records of an RFC 1035 master file one by one (see parseZoneBatches). */
export async function* parseZone(input: ZoneInput, options: ParseZoneOptions): AsyncGenerator<ZoneRecord> {
  for await (const batch of parseZoneBatches(input, options)) yield* batch;
}

/** The zone a file names, and the file to read again from its start. */
export interface ZoneOriginScan {
  /** Owner form (`example.net`), or undefined when the file names none. */
  origin: string | undefined;
  /** The whole input again: the chunks read while looking, then the rest. */
  input: AsyncIterable<Buffer>;
}

/**
 * Reads a zone file (with the root as its starting origin) until it names its zone: the first
 * `$ORIGIN`, or the owner of the first SOA record, whichever comes first, the root excepted
 * (BIND's relative dumps start with `$ORIGIN .`, then the SOA). Records are parsed, to find the
 * SOA, and dropped; `$GENERATE` lines are not expanded. A file that names none is read to its
 * end; one with a syntax error is read up to it (the caller's parse reports it). The chunks read
 * are held to be read again: at most the whole upload, which the body limit bounds.
 */
export async function scanZoneOrigin(input: AsyncIterable<Buffer>): Promise<ZoneOriginScan> {
  const iterator = input[Symbol.asyncIterator]();
  const held: Buffer[] = [];
  const tokenizer = new ZoneTokenizer();
  const parser = new EntryParser({ origin: '.' }, false);
  const entries: ZoneEntry[] = [];
  let isDone = false;
  let isStopped = false;
  const read = (tokenize: () => void) => {
    try {
      for (const batch of parseChunk(parser, entries, tokenize)) batch.length = 0;
    } catch (err) {
      if (!(err instanceof ZoneSyntaxError)) throw err;
      isStopped = true;
    }
  };
  let isFirst = true;
  while (!isStopped && parser.zoneName === undefined) {
    const next = await iterator.next();
    if (next.done === true) {
      isDone = true;
      read(() => tokenizer.end(entries));
      break;
    }
    const chunk = next.value;
    held.push(chunk);
    let text = chunkText(chunk);
    if (isFirst && text.length > 0) {
      if (text.startsWith(UTF8_BOM)) text = text.slice(UTF8_BOM.length);
      isFirst = false;
    }
    read(() => tokenizer.push(text, entries));
  }
  const zone = parser.zoneName;
  return {
    origin: zone === undefined ? undefined : ownerForm(zone),
    input: replay(held, isDone ? undefined : iterator),
  };
}

async function* replay(held: Buffer[], rest: AsyncIterator<Buffer> | undefined): AsyncGenerator<Buffer> {
  yield* held.splice(0);
  if (rest === undefined) return;
  for (;;) {
    const next = await rest.next();
    if (next.done === true) return;
    yield next.value;
  }
}
