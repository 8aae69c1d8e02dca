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

/** The same page as renderPage, its items as UTF-8 bytes in a buffer of their own (to be moved to another thread). */
export function renderPageBytes(rows: readonly (readonly unknown[])[], spec: PageSpec): RenderedPage & { items: Uint8Array };

/** Room left around a page rendered as bytes: enough for any list's envelope. */
export const envelopeRoom: number;

/** Declares that the items' buffer was rendered by renderPageBytes with `room` free bytes around them and moved to this thread: withEnvelope may write there, once. */
export function withRoom(items: Uint8Array, room: number): Uint8Array;

/** A response body: `before`, the items and `after`, written around the items in their buffer when it has room. */
export function withEnvelope(before: string, items: string | Uint8Array, after: string): Buffer;

/** Runs of comma-joined items (text or UTF-8 bytes) as one run: the run itself when there is one, text when all are text. */
export function joinRuns(runs: ReadonlyArray<string | Uint8Array>): string | Uint8Array;
