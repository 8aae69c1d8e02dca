import { canonicalName, ownerForm, PresentationError } from './dns-name.ts';
import { parseRdata } from './rdata-text.ts';
import { isMetaType } from './rr-type-registry.ts';
import { classNumber, className, RR_TYPE, typeName, typeNumber } from './rr-types.ts';
import { isTtlText, parseTtl } from './text-values.ts';
import { TokenCursor } from './token-cursor.ts';
import { applyDirective, isDirective, type ZoneState } from './zone-directives.ts';
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
}

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

/** Parses the entries of one chunk into records; the state carries over to the next chunk. */
class EntryParser {
  readonly state: ZoneState;
  private readonly zoneClass: number;
  private readonly zoneClassName: string;

  constructor(options: ParseZoneOptions) {
    this.state = { origin: canonicalOrigin(options.origin), defaultTtl: options.defaultTtl, lastTtl: undefined, lastOwner: undefined };
    const zoneClass = classNumber(options.class ?? 'IN');
    if (zoneClass === undefined) throw new Error(`invalid zone class ${JSON.stringify(options.class)}`);
    this.zoneClass = zoneClass;
    this.zoneClassName = className(zoneClass);
  }

  parse(entries: ZoneEntry[], out: ZoneRecord[]): void {
    for (const entry of entries) {
      let line = entry.line;
      try {
        if (isDirective(entry)) applyDirective(entry, this.state);
        else out.push(this.record(entry, (at) => (line = at)));
      } catch (err) {
        if (err instanceof PresentationError) throw new ZoneSyntaxError(line, err.message);
        throw err;
      }
    }
  }

  /** One record entry: `[owner] [ttl] [class] type data` with TTL and class in either order. */
  private record(entry: ZoneEntry, at: (line: number) => void): ZoneRecord {
    const { tokens, lines } = entry;
    const state = this.state;
    let index = 0;
    let owner: string;
    if (entry.isOwnerBlank) {
      if (state.lastOwner === undefined) throw new PresentationError('the first record has no owner name (the line starts with blank space)');
      owner = state.lastOwner;
    } else {
      owner = canonicalName(ownerToken(tokens[0] ?? ''), state.origin);
      index = 1;
    }
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
      throw new PresentationError(`class ${className(recordClass)} does not match the zone class ${this.zoneClassName}`);
    }
    const cursor = new TokenCursor(tokens, lines, index, state.origin);
    let data: string;
    try {
      data = parseRdata(cursor, type);
    } finally {
      at(cursor.line);
    }
    state.lastOwner = owner;
    return { name: ownerForm(owner), ttl: this.resolveTtl(ttl, type, data), class: this.zoneClassName, type: typeName(type), data };
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

/**
 * Streams the records of an RFC 1035 master file in batches (one per input chunk): the file is
 * never held whole, only the current line, the current entry and one chunk's records. Throws
 * ZoneSyntaxError naming the line at the first fault; records before it were already yielded.
 */
export async function* parseZoneBatches(input: ZoneInput, options: ParseZoneOptions): AsyncGenerator<ZoneRecord[]> {
  const tokenizer = new ZoneTokenizer();
  const parser = new EntryParser(options);
  let isFirst = true;
  const entries: ZoneEntry[] = [];
  for await (const chunk of input) {
    let text = chunkText(chunk);
    if (isFirst && text.length > 0) {
      if (text.startsWith(UTF8_BOM)) text = text.slice(UTF8_BOM.length);
      isFirst = false;
    }
    yield* parseChunk(parser, entries, () => tokenizer.push(text, entries));
  }
  yield* parseChunk(parser, entries, () => tokenizer.end(entries));
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
  const records: ZoneRecord[] = [];
  parser.parse(entries, records);
  if (records.length > 0) yield records;
  if (failure !== undefined) throw failure;
}

/** Streams the records of an RFC 1035 master file one by one (see parseZoneBatches). */
export async function* parseZone(input: ZoneInput, options: ParseZoneOptions): AsyncGenerator<ZoneRecord> {
  for await (const batch of parseZoneBatches(input, options)) yield* batch;
}
