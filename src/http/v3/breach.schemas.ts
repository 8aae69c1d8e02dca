import { Type } from '@sinclair/typebox';
import { policySeverities } from '../../core/policies/policy-catalogue.ts';
import { breachStatuses } from '../../core/policies/breach.types.ts';
import { V3ListQuery } from './list-query.ts';

/** The spec's "Policy breach" object. */
export const Breach = Type.Object({
  id: Type.String(),
  policy_id: Type.String({
    description: 'Identifier of the policy in the catalogue (`database-exposed` …; docs/policies.md).',
  }),
  policy_name: Type.String({ description: 'Name of the policy (`Database exposed` …).' }),
  asset_id: Type.String({
    description: 'Token of the root asset (as v2 lists it) whose inventory breaches the policy.',
  }),
  asset_name: Type.String({
    description: 'The host name in breach (a name of the asset, as the port and technology inventories give it).',
  }),
  severity: Type.Union(
    policySeverities.map((s) => Type.Literal(s)),
    { description: "The policy's severity." },
  ),
  active: Type.Boolean({ description: 'True while the policy is breached (status NEW).' }),
  status: Type.Union(
    breachStatuses.map((s) => Type.Literal(s)),
    {
      description:
        '`NEW` while breached (again NEW when a resolved breach returns); `RESOLVED` once a monitoring run no longer finds it.',
    },
  ),
  status_updated_at: Type.String({ format: 'date-time', description: 'When status last changed.' }),
  first_seen_at: Type.String({
    format: 'date-time',
    description: 'When a run first found the breach (with status NEW); never changes.',
  }),
  disappeared_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When a run no longer found it; null while active.',
  }),
});

const updatedFilterDoc = (what: string) =>
  Type.Optional(
    Type.String({
      format: 'date-time',
      description: `Only breaches whose status changed ${what} (exclusive bound, compared at whole seconds). ISO 8601; a non-UTC offset must be URL-encoded (%2B).`,
    }),
  );

/** The query of /breaches: the shared list parameters and the status-update bounds. */
export const V3BreachListQuery = Type.Object({
  ...V3ListQuery.properties,
  status_updated_before: updatedFilterDoc('before this time'),
  status_updated_after: updatedFilterDoc('after this time'),
  status: Type.Optional(
    Type.Array(Type.Union(breachStatuses.map((s) => Type.Literal(s))), {
      description:
        'An extension of perimeter: only breaches with one of these statuses (`NEW` open, `RESOLVED` no longer found): comma-separated (`NEW,RESOLVED`), repeated, or both. Any other value answers 400 naming `status`.',
    }),
  ),
});
