import { FormatRegistry, Type } from '@sinclair/typebox';
import {
  connectorNameLimit,
  connectorNameProblem,
  connectorOptionLimits,
  connectorOptionNamePattern,
  connectorOptionProblem,
} from '../../core/connectors/connector.service.ts';
import { connectorOptionFields } from '../../core/connectors/connector-options.ts';
import { connectorProviders, connectorRunStatuses } from '../../core/connectors/connector.types.ts';
import { V3ListQuery } from './list-query.ts';

const Provider = Type.Union(
  connectorProviders.map((p) => Type.Literal(p)),
  { description: 'The provider of the account the connector reaches.' },
);

const optionsText = Object.entries(connectorOptionFields)
  .map(
    ([provider, fields]) =>
      `${provider}: ${fields.map((f) => `\`${f.name}\`${f.isRequired ? '' : ' (optional)'}`).join(', ')}`,
  )
  .join('; ');

// Lengths count characters (code points) of the trimmed text, which minLength and maxLength cannot say.
FormatRegistry.Set('connector-name', (v) => connectorNameProblem(v) === undefined);
FormatRegistry.Set('connector-option', (v) => connectorOptionProblem(v) === undefined);

/** The spec's "Connector" object; its options are never part of it. */
export const Connector = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  team_id: Type.String({ description: 'Token of the team the connector belongs to.' }),
  provider: Provider,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  last_run: Type.Union(
    [
      Type.Object({
        status: Type.Union(
          connectorRunStatuses.map((v) => Type.Literal(v)),
          {
            description: 'QUEUED (requested, waiting for a worker), RUNNING, SUCCEEDED or FAILED (`error` says why).',
          },
        ),
        error: Type.String({
          description:
            'Why the run failed (bad credentials, missing permission, throttled, unreachable, …), never a credential; empty otherwise.',
        }),
        completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
          description: 'When the run ended; null while it is queued or running.',
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        "The connector's latest run importing assets from the provider (on create, daily, and on demand); null before the first is requested.",
    },
  ),
});

/**
 * The body of "Create connector": each field that fails answers 1051 naming it (the route's
 * declared errors); the options a provider requires and team_id are checked by the core.
 */
export const ConnectorCreateBody = Type.Object({
  team_id: Type.Optional(
    Type.String({
      description:
        "Token of one of the key's teams. Optional for a key tied to one team, required for a key tied to several.",
    }),
  ),
  name: Type.String({
    format: 'connector-name',
    description: `Non-empty after trimming (it is stored trimmed), at most ${connectorNameLimit} characters, no NUL.`,
  }),
  provider: Provider,
  options: Type.Record(
    Type.String({ pattern: connectorOptionNamePattern.source }),
    Type.String({ format: 'connector-option' }),
    {
      maxProperties: connectorOptionLimits.fields,
      additionalProperties: false,
      description:
        `The provider's credentials and settings: a JSON object of at most ${connectorOptionLimits.fields} fields, each a non-empty string of at most ` +
        `${connectorOptionLimits.valueLength} characters, names of letters, digits and underscores. The fields of each provider (docs/connectors.md says what each means and the shape a value must have; ` +
        `a field the provider does not have, a missing required one or a value of the wrong shape answers 1051 naming it): ${optionsText}. ` +
        'Stored only encrypted with the server key; never returned, listed or logged.',
    },
  ),
});

/** The path parameter of one connector. */
export const ConnectorIdParam = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The connector id (a UUID).' }),
});

/** The query of the connector list: cursor and limit only (connectors have no time filters). */
export const ConnectorListQuery = Type.Object({
  cursor: V3ListQuery.properties.cursor,
  limit: V3ListQuery.properties.limit,
});

/** The query of "Get external ID". */
export const ExternalIdQuery = Type.Object({
  team_id: Type.Optional(
    Type.String({
      description:
        "Token of one of the key's teams. Optional for a key tied to one team, required for a key tied to several.",
    }),
  ),
});

/** The spec's "External ID" object. */
export const ExternalId = Type.Object({
  external_id: Type.String({
    description: '32 random hexadecimal characters, made on the first request for the team and the same afterwards.',
  }),
  team_id: Type.String({ description: 'Token of the team.' }),
});

/** One name or address a connector's runs brought in (an extension: `GET /connectors/{id}/assets`). */
export const ConnectorAsset = Type.Object({
  name: Type.String({ description: 'A zone apex, a name of a zone record, a host name or an IP address.' }),
  kind: Type.Union(
    ['zone', 'name', 'hostname', 'address'].map((v) => Type.Literal(v)),
    {
      description:
        'zone (a DNS zone), name (a record name in one), hostname (CDN, load balancer), address (public IP).',
    },
  ),
  source: Type.String({ description: 'Where in the account the run saw it, for people.' }),
  first_seen_at: Type.String({ format: 'date-time' }),
  last_seen_at: Type.String({ format: 'date-time' }),
  gone_from_provider: Type.Boolean({
    description: 'True once a later run no longer saw it; the asset itself is kept, never deleted by a run.',
  }),
  gone_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/** The answer of `GET /connectors/{id}/assets`. */
export const ConnectorAssetList = Type.Object({
  items: Type.Array(ConnectorAsset),
  total: Type.Integer({ description: 'Names and addresses the connector has brought in.' }),
  gone: Type.Integer({ description: 'Of them, those gone from the provider.' }),
});

/** The query of `GET /connectors/{id}/assets`. */
export const ConnectorAssetsQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, default: 1000, description: 'Items answered, 1 to 1000.' }),
  ),
});
