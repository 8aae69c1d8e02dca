import { Type } from '@sinclair/typebox';
import { V3ListQuery } from './list-query.ts';

/** The spec's "Port" object. */
export const Port = Type.Object({
  id: Type.String(),
  team_id: Type.String({ description: 'Token of the team.' }),
  asset_id: Type.String({ description: 'Token of the root asset (as v2 lists it).' }),
  domain_name: Type.String({
    description: 'A name of the asset that resolved to the address in the last run that found the port open.',
  }),
  ip_address: Type.String({ description: 'Canonical text: dotted quad, or RFC 5952 lower-case IPv6.' }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  status: Type.Union([Type.Literal('OPEN'), Type.Literal('CLOSED')], {
    description: 'OPEN while monitoring runs find the port open; CLOSED once a run no longer does.',
  }),
  first_seen_at: Type.String({
    format: 'date-time',
    description: 'The first time a run found the port open; never changes.',
  }),
  disappeared_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When a run last found it closed after it had been open; null while OPEN.',
  }),
});

/** The query of /ports: the shared list parameters, status and port. */
export const V3PortListQuery = Type.Object({
  ...V3ListQuery.properties,
  status: Type.Optional(
    Type.Array(Type.Union([Type.Literal('OPEN'), Type.Literal('CLOSED')]), {
      description:
        'Only ports with one of these statuses: comma-separated (`OPEN,CLOSED`), repeated, or both. Any other value answers 400 naming `status`.',
    }),
  ),
  port: Type.Optional(
    Type.Array(Type.Integer({ minimum: 0, maximum: 65535 }), {
      description:
        'Only these port numbers (integers 0 to 65535): comma-separated (`22,443`), repeated, or both. Anything else answers 400 naming `port`.',
    }),
  ),
});
