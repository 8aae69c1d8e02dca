import { Type } from '@sinclair/typebox';

/** The spec's "Technology" object. */
export const Technology = Type.Object({
  id: Type.String(),
  asset_id: Type.String({ description: 'Token of the root asset (as v2 lists it).' }),
  team_id: Type.String({ description: 'Token of the team.' }),
  domain_name: Type.String({ description: 'The host name the technology was seen on.' }),
  service_protocol: Type.String({ description: '`http` or `https`, as the latest run saw it.' }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  name: Type.String({ description: "The fingerprint rule set's name of the technology (`Nginx`, `WordPress`)." }),
  version: Type.Union([Type.String(), Type.Null()], {
    description: 'Null when the origin does not tell it; each version seen is an item of its own.',
  }),
  categories: Type.Array(Type.String(), { description: "The rule set's categories (`Web servers`, `CMS` …)." }),
  active: Type.Boolean({ description: 'True while monitoring runs see the technology.' }),
  first_seen_at: Type.String({ format: 'date-time' }),
  disappeared_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When a run last stopped seeing it; null while active.',
  }),
});
