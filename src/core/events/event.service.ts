import type { EventFilter, EventRecord, EventRepositories } from './event.types.ts';

/** A page of the event log: the events and, when more follow, the id to continue after. */
export interface EventPage {
  items: EventRecord[];
  next: number | undefined;
}

/**
 * The team's events after `afterId` (0: from the start) that the filter keeps, oldest first, at
 * most `limit`; `next` is set when the page is full (the next page starts after its last id).
 */
export async function listEvents(
  store: EventRepositories,
  teamId: number,
  filter: EventFilter,
  afterId: number,
  limit: number,
): Promise<EventPage> {
  const rows = await store.events.list(teamId, filter, afterId, limit + 1);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, next: rows.length > limit && last !== undefined ? last.id : undefined };
}

export { wireEvent, type WireEvent } from './wire-event.ts';
