import { toWireTime } from '../shared/time.ts';
import type { EventRecord } from './event.types.ts';

/** An event as every face shows it (the v3 list, webhook bodies): Standard Webhooks' `type`, `timestamp`, `data`. */
export interface WireEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The wire shape of an event. */
export function wireEvent(event: EventRecord): WireEvent {
  return { id: event.publicId, type: event.kind, timestamp: toWireTime(event.occurredAt), data: event.data };
}
