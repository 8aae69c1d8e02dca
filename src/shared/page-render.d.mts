/** How a head value is written: a JSON string, a wire time (epoch ms), a boolean (0/1), a number, or JSON text as is. */
export type FieldKind = 'string' | 'time' | 'bool' | 'number' | 'json';

/** How the rows of a page query are laid out and rendered: [...keys, ...head, document, ...tail]. */
export interface PageSpec {
  /** Leading key columns (the list position), not rendered. */
  keys: number;
  /** The changing fields written in front of each stored document, in order. */
  head: Array<[name: string, kind: FieldKind]>;
  /** Fields written behind the document, in order (its last fields on the wire). */
  tail?: Array<[name: string, kind: FieldKind]>;
  /** Rows to render; the query reads one more to tell whether more follow. */
  limit: number;
  /** Bytes left free before and after the items rendered as bytes, for the response's envelope. */
  room?: number;
}

/**
 * A rendered page: comma-joined JSON items (text, or UTF-8 bytes when a reader thread rendered
 * them), rows read, and the keys of the last item when more follow.
 */
export interface RenderedPage {
  items: string | Uint8Array;
  count: number;
  /** Keys of the last rendered row, when there is one. */
  last: unknown[] | undefined;
  /** `last` when more rows were read than rendered: the next page starts after it. */
  next: unknown[] | undefined;
}

export function renderPage(rows: readonly (readonly unknown[])[], spec: PageSpec): RenderedPage & { items: string };

/** renderPage for rows read on this thread, its items as bytes in a lent slot of this thread's page memory (room around them for the envelope); text when every slot is lent. */
export function renderPageLent(rows: readonly (readonly unknown[])[], spec: PageSpec): RenderedPage;

/** A part of a SharedArrayBuffer lent for one page's bytes. */
export interface PageSlot {
  buffer: SharedArrayBuffer;
  offset: number;
  size: number;
}

/** A page rendered as bytes: in a buffer of its own (`items`), or, when a slot was lent and the page fits, in the slot at `at` for `length` bytes. */
export type RenderedBytes = Omit<RenderedPage, 'items'> &
  ({ items: Uint8Array; at?: undefined; length?: undefined } | { items?: undefined; at: number; length: number });

/** The same page as renderPage, its items as UTF-8 bytes: in the lent slot when it fits, else in a buffer of their own (to be moved to another thread). */
export function renderPageBytes(
  rows: readonly (readonly unknown[])[],
  spec: PageSpec,
): RenderedPage & { items: Uint8Array };
export function renderPageBytes(
  rows: readonly (readonly unknown[])[],
  spec: PageSpec,
  slot: PageSlot | undefined,
): RenderedBytes;

/** Room left around a page rendered as bytes: enough for any list's envelope. */
export const envelopeRoom: number;

/** Declares that the items were rendered by renderPageBytes with `room` free bytes around them, in memory this thread owns (moved to it, or a slot it lent): withEnvelope may write there, once. */
export function withRoom(items: Uint8Array, room: number): Uint8Array;

/** Declares `view` to be lent memory that `release` gives back once its response is written. */
export function withLease<T extends Uint8Array>(view: T, release: () => void): T;

/** Whether `view` is lent memory still to be given back. */
export function isLent(view: Uint8Array): boolean;

/** The release of a response body in lent memory, taken (once) by whoever writes it out; undefined for a body of its own. */
export function takeRelease(body: Uint8Array): (() => void) | undefined;

/** A lent body as one holder keeps it: the first claimer keeps the lent bytes, later ones (sharing one build) get a copy. */
export function claimBody(body: Buffer): Buffer;

/** A body that outlives its response (a cache entry): a copy of lent memory (given back at once), any other body as it is. */
export function ownedBody(body: Buffer): Buffer;

/** A response body: `before`, the items and `after`, written around the items in their buffer when it has room. */
export function withEnvelope(before: string, items: string | Uint8Array, after: string): Buffer;

/** Runs of comma-joined items (text or UTF-8 bytes) as one run: the run itself when there is one, text when all are text. */
export function joinRuns(runs: ReadonlyArray<string | Uint8Array>): string | Uint8Array;

/** Slots of the main thread's page memory (bodies of text items) lent to bodies not yet written out. */
export function mainSlotsLent(): number;

/** Bytes of one slot of page memory. */
export const pageSlotSize: number;

/** Page memory cut into slots of pageSlotSize, each lent to one page at a time. */
export class PageSlab<B extends ArrayBufferLike = ArrayBufferLike> {
  constructor(buffer: B);
  readonly buffer: B;
  readonly slots: number;
  /** A free slot's number, or undefined when every slot is lent. */
  lend(): number | undefined;
  /** A slot free again (its page was copied, failed or written out). */
  giveBack(slot: number): void;
  /** Where a slot starts in the buffer. */
  offset(slot: number): number;
  /** `view` (in `slot`) as lent memory, whose release gives the slot back. */
  lease<T extends Uint8Array>(view: T, slot: number): T;
  /** A page rendered as bytes for `slot` (undefined: none lent) with its items' room declared: leased in the slot, or in their own buffer with the slot given back. */
  received(slot: number | undefined, page: RenderedBytes, room: number): RenderedPage;
  /** Slots lent now. */
  readonly lent: number;
}

/** Keeps a rendered page in the page cache and answers the body to send: a copy when the page is in lent memory and the cache keeps it. */
export function cachePage(
  cache: { accepts(size: number): boolean; set(key: string, value: Buffer): void },
  key: string,
  page: Buffer,
): Buffer;
