import { Type } from '@sinclair/typebox';
import { eventKinds } from '../../core/events/event.types.ts';
import { V3ListQuery } from './list-query.ts';

/** An event of the team's log, as the list and every webhook body carry it (Standard Webhooks' payload shape). */
export const Event = Type.Object({
  id: Type.String({
    format: 'uuid',
    description:
      'The event id: the same in every delivery of the event (the `webhook-id` header), so receivers deduplicate on it.',
  }),
  type: Type.Union(
    eventKinds.map((k) => Type.Literal(k)),
    { description: 'The event kind (docs/events.md lists each with its fields and an example).' },
  ),
  timestamp: Type.String({ format: 'date-time', description: 'When the change happened.' }),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: "The kind's fields, as they were when it happened (docs/events.md).",
  }),
});

const occurredDoc = (what: string) =>
  Type.Optional(
    Type.String({
      format: 'date-time',
      description: `Only events that happened ${what} (exclusive bound). ISO 8601; a non-UTC offset must be URL-encoded (%2B).`,
    }),
  );

/** The query of /events: cursor, limit, kinds and time bounds. */
export const EventListQuery = Type.Object({
  cursor: V3ListQuery.properties.cursor,
  limit: V3ListQuery.properties.limit,
  kind: Type.Optional(
    Type.Array(Type.Union(eventKinds.map((k) => Type.Literal(k))), {
      description:
        'Only events of these kinds: comma-separated (`scan.completed,vulnerability.new`), repeated, or both. Any other value answers 400 naming `kind`.',
    }),
  ),
  occurred_after: occurredDoc('after this time'),
  occurred_before: occurredDoc('before this time'),
});
