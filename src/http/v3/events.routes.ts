import { listEvents, wireEvent } from '../../core/events/event.service.ts';
import { eventKinds, type EventKind } from '../../core/events/event.types.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { Event, EventListQuery } from './event.schemas.ts';
import { listFilterValues, v3ListBody, v3ListInput, v3ListPage, v3ListRequest } from './list-query.ts';

/** The v3 event log of the team (an extension of perimeter: docs/events.md). */
export const eventRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/events',
    group: 'events',
    operationId: 'listEvents',
    summary: 'List events',
    description:
      "An extension of perimeter: the team's event log, oldest first. Each change the service records (a scan started, completed or failed; a " +
      'vulnerability new, regression, patched or marked; an asset added, removed or verified; a subdomain, port, technology or breach found or gone; ' +
      'a zone lookup finished; a webhook disabled) is appended in the transaction of the change, and never changes. docs/events.md lists every kind ' +
      'with its fields and an example. Keyset-paged by the order events were written: following `next` never repeats an event nor skips one, and the ' +
      "last page's `next` is absent (keep the last event's position by following `next` later: new events arrive after it). A malformed `cursor`, " +
      '`limit` or `kind` answers 400 naming it (type /problems/4150), a malformed time 400 (type /problems/1085).',
    tags: ['events'],
    query: EventListQuery,
    input: v3ListInput('events', { enums: { kind: eventKinds }, times: ['occurred_after', 'occurred_before'] }),
    response: v3ListPage(Event),
    successStatus: 200,
    errors: [1085, 4150],
    handler: async (ctx) => {
      const request = v3ListRequest(ctx.input, ['kind', 'occurred_after', 'occurred_before']);
      const kinds = listFilterValues<EventKind>(ctx.input, 'kind');
      const after = ctx.input['occurred_after'] as Date | undefined;
      const before = ctx.input['occurred_before'] as Date | undefined;
      const filter = {
        ...(kinds === undefined ? {} : { kinds }),
        ...(after === undefined ? {} : { occurredAfter: after }),
        ...(before === undefined ? {} : { occurredBefore: before }),
      };
      const page = await listEvents(ctx.deps.store, ctx.team.id, filter, request.after?.id ?? 0, request.limit);
      const items = page.items.map((e) => JSON.stringify(wireEvent(e))).join(',');
      const next = page.next === undefined ? undefined : { firstSeenAt: 0, id: page.next };
      return { status: 200, json: v3ListBody(ctx, 'events', '/events', request, { items, next }) };
    },
  }),
];
