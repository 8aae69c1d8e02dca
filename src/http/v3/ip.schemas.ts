import { Type } from '@sinclair/typebox';

const nullableString = (description?: string) =>
  Type.Union([Type.String(), Type.Null()], description === undefined ? {} : { description });

/** The spec's "IP address" object. */
export const IpAddress = Type.Object({
  id: Type.String(),
  ip_address: Type.String({ description: 'Canonical text: dotted quad, or RFC 5952 lower-case IPv6.' }),
  ip_version: Type.Union([Type.Literal('IPv4'), Type.Literal('IPv6')]),
  domain_name: Type.String({
    description: 'A name of the asset that resolved to the address in the last run that saw it.',
  }),
  asset_id: Type.String({ description: 'Token of the root asset (as v2 lists it).' }),
  team_id: Type.String({ description: 'Token of the team.' }),
  active: Type.Boolean({ description: 'True while monitoring runs see the address.' }),
  enriched: Type.Boolean({
    description:
      'True when the offline data knew the address; special-purpose addresses (loopback, private …) never are.',
  }),
  first_seen_at: Type.String({ format: 'date-time' }),
  disappeared_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When a run last stopped seeing it; null while active.',
  }),
  autonomous_system: Type.Object({
    name: nullableString(),
    domain: nullableString('No shipped data set carries AS domains: always null for now.'),
    number: Type.Union([Type.Integer(), Type.Null()]),
  }),
  geolocation: Type.Object({
    continent: nullableString('Continent code: AF, AN, AS, EU, NA, OC, SA.'),
    continent_name: nullableString(),
    country: nullableString('ISO 3166-1 alpha-2 code.'),
    country_name: nullableString(),
  }),
});
