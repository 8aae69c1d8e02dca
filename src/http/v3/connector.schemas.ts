import { FormatRegistry, Type } from '@sinclair/typebox';
import {
  connectorNameLimit,
  connectorNameProblem,
  connectorOptionLimits,
  connectorOptionNamePattern,
  connectorOptionProblem,
  requiredConnectorOptions,
} from '../../core/connectors/connector.service.ts';
import { connectorProviders } from '../../core/connectors/connector.types.ts';
import { V3ListQuery } from './list-query.ts';

const Provider = Type.Union(
  connectorProviders.map((p) => Type.Literal(p)),
  { description: 'The provider of the account the connector reaches.' },
);

const requiredOptionsText = Object.entries(requiredConnectorOptions)
  .map(([provider, fields]) => `${provider} requires ${fields.map((f) => `\`${f}\``).join(' and ')}`)
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
        status: Type.String(),
        error: Type.String(),
        completed_at: Type.String({ format: 'date-time' }),
      }),
      Type.Null(),
    ],
    {
      description:
        'The outcome of the last run importing assets from the provider. Runs are not built in this server (it reaches no provider), so this is always null.',
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
        `${connectorOptionLimits.valueLength} characters, names of letters, digits and underscores. ${requiredOptionsText}. ` +
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
