import type { TokenCursor } from './token-cursor.ts';
import type { WireReader } from './wire-reader.ts';

/**
 * The two shapes of a record type's data codec: the per-type tables (rdata-text.ts,
 * rdata-wire.ts) and the types kept in files of their own (dnssec-rdata.ts, loc-rdata.ts) share
 * them from here, so no table and type file import each other.
 */

/** Reads one type's record data from zone-file tokens into canonical text. */
export type RdataParser = (c: TokenCursor) => string;

/** Turns the record data at the reader (ending at `end`) into canonical presentation text. */
export type RdataDecoder = (r: WireReader, end: number) => string;
