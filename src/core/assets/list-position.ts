import { appError } from '../errors/app-error.ts';
import type { MarkerCodec } from '../shared/marker.ts';

/**
 * Where a listing of asset rows, then discovered names, stands: after an asset row (its id) or,
 * past the asset rows, after a discovered name (its key). Both undefined: the start.
 */
export interface ListPosition {
  /** The marker's raw position (0 at the start), for the listing's current marker. */
  raw: unknown;
  afterId: number | undefined;
  afterKey: string | undefined;
}

/** Reads the position of a listing's marker; 4150 when the marker holds no such position. */
export function decodeListPosition(
  markers: MarkerCodec,
  teamId: number,
  scopeKey: string,
  marker: string | undefined,
): ListPosition {
  const raw = markers.decode(teamId, scopeKey, marker);
  if (raw === undefined) return { raw, afterId: undefined, afterKey: undefined };
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return { raw, afterId: raw, afterKey: undefined };
  const key = typeof raw === 'object' && raw !== null ? (raw as { n?: unknown }).n : undefined;
  if (typeof key === 'string') return { raw, afterId: undefined, afterKey: key };
  throw appError(4150, 'marker malformed', ['marker']);
}

/** The marker position of a listed item: an asset row's id, or a discovered name's key. */
export function positionOf(item: { id: number } | { key: string }): number | { n: string } {
  return 'id' in item ? item.id : { n: item.key };
}
