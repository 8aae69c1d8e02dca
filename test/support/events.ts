import assert from 'node:assert/strict';
import { eventKindDoc } from '../../src/core/events/event-catalogue.ts';
import type { EventKind, EventRecord, EventRepositories } from '../../src/core/events/event.types.ts';

/** Every event of a team's log (oldest first), optionally only of the given kinds. */
export async function eventsOf(
  store: EventRepositories,
  teamId: number,
  ...kinds: EventKind[]
): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  let after = 0;
  for (;;) {
    const page = await store.events.list(teamId, kinds.length === 0 ? {} : { kinds }, after, 1000);
    out.push(...page);
    if (page.length < 1000) return out;
    after = page.at(-1)!.id;
  }
}

/** Asserts that the event's data carries exactly the fields its catalogue entry lists. */
export function assertCatalogued(event: EventRecord): void {
  const doc = eventKindDoc(event.kind);
  assert.deepEqual(
    Object.keys(event.data).sort(),
    Object.keys(doc.fields).sort(),
    `${event.kind} carries the catalogue's fields`,
  );
}
