import { randomBytes } from 'node:crypto';
import { appError, type AppError } from '../errors/app-error.ts';
import { isUuid, newUuid } from '../shared/ids.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import { hasNul } from '../shared/text.ts';
import type { Caller } from '../teams/caller.ts';
import { plans, type EndpointGroup } from '../teams/plans.ts';
import type { Team } from '../teams/team.types.ts';
import {
  connectorProviders,
  type Connector,
  type ConnectorPosition,
  type ConnectorProvider,
} from './connector.types.ts';
import type { ConnectorAsset, ConnectorRepositories } from './connector.types.ts';
import { connectorOptionsProblem } from './connector-options.ts';

/** A connector name has at most this many characters (after trimming). */
export const connectorNameLimit = 255;

/**
 * Limits of `options`: every value is a non-empty string (credentials, ARNs, project ids are
 * text); which fields each provider has is connector-options.ts's table.
 */
export const connectorOptionLimits = { fields: 32, valueLength: 4096 } as const;

/** The names of option fields: letters, digits and underscores, starting with a letter. */
export const connectorOptionNamePattern = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** A create body as its schema admits it (team_id still to be resolved). */
export interface ConnectorBody {
  /** Checked by resolveConnectorTeam, after the fields (a lookup among the key's teams). */
  team_id?: unknown;
  name: string;
  provider: ConnectorProvider;
  options: Record<string, string>;
}

/** The validated input of a new connector; options still in clear (sealed before they are stored). */
export interface ConnectorInput {
  name: string;
  provider: ConnectorProvider;
  options: Record<string, string>;
}

/** A page of connectors, and the position of its last item when more follow. */
export interface ConnectorPage {
  items: Connector[];
  next: ConnectorPosition | undefined;
}

/** Where a team_id came from: a field of the JSON body (1051) or a query parameter (4150). */
type InputPlace = 'body' | 'query';

function invalid(place: InputPlace, field: string, what: string): AppError {
  return place === 'body'
    ? appError(1051, `Request body malformed: ${field} ${what}`, [field])
    : appError(4150, `${field} ${what}`, [field]);
}

function isConnectorTeam(team: Team): boolean {
  return (plans[team.plan].groups as readonly EndpointGroup[]).includes('connectors');
}

/**
 * The teams of the key whose plan has connectors. The request's first team was checked at the
 * edge (1009); a key tied to several teams sees only the connectors of those whose plan has them.
 */
export async function connectorTeamsOf(store: ConnectorRepositories, caller: Caller): Promise<Team[]> {
  const teams = await Promise.all(caller.teamIds.map((id) => store.teams.findById(id)));
  return teams.filter((t): t is Team => t !== undefined && isConnectorTeam(t));
}

/**
 * The team a connector operation acts for. Absent (or blank in a query), it is the key's only
 * team; a key tied to several teams must name one. A named team must be the token of one of the
 * key's teams: a token of another team answers exactly as one that does not exist.
 */
export async function resolveConnectorTeam(
  store: ConnectorRepositories,
  caller: Caller,
  raw: unknown,
  place: InputPlace,
): Promise<Team> {
  const isAbsent =
    raw === undefined || raw === null || (place === 'query' && typeof raw === 'string' && raw.trim() === '');
  if (isAbsent) {
    if (caller.teamIds.length !== 1)
      throw invalid(place, 'team_id', 'is required: this API key is tied to several teams');
    const [team] = await connectorTeamsOf(store, caller);
    if (team === undefined) throw appError(1009, 'This API key cannot access the connectors endpoints');
    return team;
  }
  if (typeof raw !== 'string') throw invalid(place, 'team_id', 'must be a string: the token of a team of this API key');
  const token = raw.trim();
  const teams = await Promise.all(caller.teamIds.map((id) => store.teams.findById(id)));
  const team = teams.find((t) => t !== undefined && t.token === token);
  if (team === undefined) throw invalid(place, 'team_id', 'is not a team of this API key');
  if (!isConnectorTeam(team)) throw appError(1009, 'This API key cannot access the connectors endpoints of that team');
  return team;
}

/** What is wrong with a connector name, or undefined: the rule of the body schema's `connector-name` format and of its 1051. */
export function connectorNameProblem(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return 'is required';
  if (typeof raw !== 'string') return 'must be a string';
  const name = raw.trim();
  if (name === '') return 'must not be empty';
  if ([...name].length > connectorNameLimit) return `must be at most ${connectorNameLimit} characters`;
  if (hasNul(name)) return 'must not contain a NUL character (U+0000)';
  return undefined;
}

/** What is wrong with one option value, or undefined: the rule of the body schema's `connector-option` format. */
export function connectorOptionProblem(value: unknown): string | undefined {
  // Values are never echoed: they are credentials.
  if (typeof value !== 'string') return 'must be a string';
  if (value.trim() === '') return 'must not be empty';
  if ([...value].length > connectorOptionLimits.valueLength)
    return `must be at most ${connectorOptionLimits.valueLength} characters`;
  if (hasNul(value)) return 'must not contain a NUL character (U+0000)';
  return undefined;
}

/** 1051 for a name that fails the body schema, saying what is wrong. */
export function invalidConnectorName(raw: unknown): AppError {
  return invalid('body', 'name', connectorNameProblem(raw) ?? 'is invalid');
}

/** 1051 for a provider that fails the body schema. */
export function invalidConnectorProvider(raw: unknown): AppError {
  return raw === undefined || raw === null
    ? invalid('body', 'provider', `is required: one of ${connectorProviders.join(', ')}`)
    : invalid('body', 'provider', `must be one of ${connectorProviders.join(', ')}`);
}

/** 1051 for options that fail the body schema, naming the first field at fault (a bad field name is not echoed). */
export function invalidConnectorOptions(raw: unknown): AppError {
  if (raw === undefined || raw === null)
    return invalid('body', 'options', 'is required: a JSON object of string fields');
  if (typeof raw !== 'object' || Array.isArray(raw))
    return invalid('body', 'options', 'must be a JSON object of string fields');
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > connectorOptionLimits.fields)
    return invalid('body', 'options', `must have at most ${connectorOptionLimits.fields} fields`);
  for (const [name, value] of entries) {
    // A bad field name could be anything, even a pasted secret.
    if (!connectorOptionNamePattern.test(name))
      return invalid(
        'body',
        'options',
        'field names must be 1 to 64 letters, digits or underscores, starting with a letter',
      );
    const problem = connectorOptionProblem(value);
    if (problem !== undefined) return invalid('body', `options.${name}`, problem);
  }
  return invalid('body', 'options', 'must be a JSON object of string fields');
}

/**
 * The input of a create body the schema has checked (name, provider, options each a 1051 naming
 * the field): the name trimmed, and the options checked against the provider's fields
 * (connector-options.ts: an unknown field, a missing required one, a value of the wrong shape),
 * each a 1051 naming the field.
 */
export function connectorInput(body: ConnectorBody): ConnectorInput {
  const problem = connectorOptionsProblem(body.provider, body.options);
  if (problem !== undefined) throw invalid('body', problem.field, problem.problem);
  return { name: body.name.trim(), provider: body.provider, options: body.options };
}

/** Creates a connector; its options are stored only sealed with the server key, as one JSON string. */
export async function createConnector(
  store: ConnectorRepositories,
  box: SecretBox,
  caller: Caller,
  body: ConnectorBody,
  now = new Date(),
): Promise<Connector> {
  const input = connectorInput(body);
  const team = await resolveConnectorTeam(store, caller, body['team_id'], 'body');
  return store.connectors.insert({
    publicId: newUuid(),
    teamId: team.id,
    name: input.name,
    provider: input.provider,
    optionsSealed: box.encrypt(JSON.stringify(input.options)),
    created: now,
    updated: now,
  });
}

/** One page of the connectors of the key's teams, in creation order (then by id). */
export async function listConnectors(
  store: ConnectorRepositories,
  caller: Caller,
  after: ConnectorPosition | undefined,
  limit: number,
): Promise<ConnectorPage> {
  const teamIds = (await connectorTeamsOf(store, caller)).map((t) => t.id);
  if (teamIds.length === 0) return { items: [], next: undefined };
  const rows = await store.connectors.list(teamIds, after, limit + 1);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    next: rows.length > limit && last !== undefined ? { created: last.created.getTime(), id: last.id } : undefined,
  };
}

/** A connector of the key's teams; undefined when the id is malformed, unknown or another team's. */
export async function findConnector(
  store: ConnectorRepositories,
  caller: Caller,
  id: string,
): Promise<Connector | undefined> {
  if (!isUuid(id)) return undefined;
  const teamIds = (await connectorTeamsOf(store, caller)).map((t) => t.id);
  return teamIds.length === 0 ? undefined : store.connectors.findByPublicId(teamIds, id.toLowerCase());
}

/** Deletes a connector of the key's teams; false when the id is malformed, unknown or another team's. */
export async function deleteConnector(store: ConnectorRepositories, caller: Caller, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const teamIds = (await connectorTeamsOf(store, caller)).map((t) => t.id);
  return teamIds.length === 0 ? false : store.connectors.delete(teamIds, id.toLowerCase());
}

/**
 * The external ID of a team (named by `team_id` as for create): 32 random hex characters made on
 * the first request and stable afterwards; concurrent first requests answer the same value.
 */
export async function connectorExternalId(
  store: ConnectorRepositories,
  caller: Caller,
  rawTeam: unknown,
  now = new Date(),
): Promise<{ team: Team; externalId: string }> {
  const team = await resolveConnectorTeam(store, caller, rawTeam, 'query');
  const externalId = await store.connectors.externalId(team.id, randomBytes(16).toString('hex'), now);
  return { team, externalId };
}

/** The names and addresses a connector's runs brought in (at most `limit`), and its totals. */
export async function listConnectorAssets(
  store: ConnectorRepositories,
  connector: Connector,
  limit: number,
): Promise<{ items: ConnectorAsset[]; total: number; gone: number }> {
  const [items, counts] = await Promise.all([
    store.connectors.listAssets(connector.teamId, connector.id, limit),
    store.connectors.countAssets(connector.teamId, connector.id),
  ]);
  return { items, ...counts };
}
