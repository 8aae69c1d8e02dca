import type { TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../core/errors/app-error.ts';
import type { ErrorCode } from '../core/errors/error-catalogue.ts';
import type { Caller } from '../core/teams/caller.ts';
import type { EndpointGroup } from '../core/teams/plans.ts';
import type { Team } from '../core/teams/team.types.ts';
import type { AppDeps } from './deps.ts';

/** HTTP methods the API uses. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a handler receives: the authenticated caller and the raw inputs. */
export interface RouteContext {
  deps: AppDeps;
  caller: Caller;
  /** The team the request acts for (v2: the key's team). */
  team: Team;
  params: Record<string, string>;
  /** The raw query parameters (every value as sent). */
  query: Record<string, string | string[] | undefined>;
  /** The query parameters of the route's schema, validated and typed (see validation.ts). */
  input: Record<string, unknown>;
  /** The JSON body, parsed and validated against the route's body schema (undefined when none). */
  body: unknown;
  /**
   * The body once its declared field errors are answered: a route whose fields are checked after
   * its lookups (`RouteInput.isBodyCheckedLate`) calls it in their turn; otherwise the body.
   */
  checkedBody(): unknown;
  /**
   * A later path parameter once it passes its schema (`RouteInput.lateParams`): the route calls it
   * in its turn, after the lookup of the parameter before it; it throws the declared error.
   */
  checkedParam(name: string): string;
  /** The query once it passes the route's schema, for an operation that checks it on use (RouteDef.isQueryCheckedOnUse). */
  checkedQuery(): Record<string, unknown>;
  /** The exact body bytes (empty when none; always empty for streaming operations). */
  rawBody: Buffer;
  /**
   * The body of a streaming operation, chunk by chunk: it ends with 1052 past the limit and,
   * for a signed key, with 1003 when the signature over the bytes does not match. Consume it
   * inside the transaction whose commit it guards.
   */
  bodyStream: AsyncIterable<Buffer>;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** A handler's answer: the status and a value to send as JSON (undefined sends no body). */
export interface RouteResult {
  status: number;
  body?: unknown;
  /** Pre-serialised JSON, sent as is (hot paths; a Buffer is sent without re-encoding). */
  json?: string | Buffer;
  /** The media type of `json` when it is not JSON (an HTML or PDF report); default application/json. */
  contentType?: string;
  /**
   * A streamed body (exports): piped to the reply as it is read, with backpressure (a read
   * stream pulls the next chunk only once the socket took the last); sent with `contentType`.
   */
  stream?: NodeJS.ReadableStream;
  /** Further response headers (Content-Disposition of an export). */
  headers?: Record<string, string>;
}

/**
 * One operation of an API surface. The definition is the contract: it registers the route,
 * documents it in OpenAPI (schemas, error codes) and tells auth which endpoint group it is in.
 */
export interface RouteDef {
  surface: 'v2' | 'v3';
  method: Method;
  /** Canonical path under the surface's base, with `{param}` placeholders. */
  path: string;
  /** Further paths answering the same operation. */
  aliases?: string[];
  /** Further methods answering the same operation (PATCH beside PUT). */
  alsoMethods?: Method[];
  group: EndpointGroup;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: TSchema;
  query?: TSchema;
  /** The JSON body; validated (1050 missing, 1051 malformed, declared field errors) before the handler runs. */
  body?: TSchema;
  /** The body may be left out (the operation also reads its fields from the query). */
  isBodyOptional?: boolean;
  /** How inputs that fail their schemas answer, and what the schemas cannot say (see validation.ts). */
  input?: RouteInput;
  /** Documented as a raw text body instead of JSON. */
  rawBody?: { contentType: string; description: string };
  response: TSchema;
  /** The media types a success answers in, when not JSON (exports, reports); documented with `response` as their schema. */
  responseMediaTypes?: readonly string[];
  successStatus: number;
  /** The v2 error codes this operation can answer, beyond the shared auth and body codes. */
  errors: ErrorCode[];
  bodyLimit?: number;
  /** The body arrives as a stream (large uploads), never buffered whole. */
  isStreamingBody?: boolean;
  /**
   * The operation answers pages cached by the raw query string (cached-page.ts): its query is
   * validated when the handler calls `ctx.checkedQuery()`, on a miss, so a hit parses nothing
   * (`ctx.input` is empty). A query string that answered once is valid again (its values are
   * checked the same way at any version; errors are never cached). Only for operations without a
   * body or path parameters.
   */
  isQueryCheckedOnUse?: boolean;
  /** An extension to the original API: flagged in OpenAPI. */
  isExtension?: boolean;
  /**
   * A v3 operation on a resource the team may not have (its one Jira connection) answers 404 when
   * it has none; documented in OpenAPI as path-parameter operations' 404 is.
   */
  isNotFoundPossible?: boolean;
  isExperimental?: boolean;
  /** An older operation kept for existing clients: `deprecated: true` in OpenAPI. */
  isDeprecated?: boolean;
  handler(ctx: RouteContext): Promise<RouteResult>;
}

/** Identity helper that gives route literals their type. */
export function defineRoute(def: RouteDef): RouteDef {
  return def;
}

/** Builds the error of a value that failed its schema: `given` is the name as sent (an alias included). */
export type FieldError = (value: unknown, given: string) => AppError | Error;

/** What a decoder or a rule may read beside the value: the team (cursors and markers are bound to it). */
export type InputContext = Pick<RouteContext, 'deps' | 'team'>;

/** What a route declares about its inputs beyond their schemas. */
export interface RouteInput {
  /** The order fields are checked in (default: the schema's); a field not listed is checked after. */
  order?: string[];
  /**
   * Alternative names of a query parameter or a body field: alias → name in the schema. The name
   * in the schema wins when both are sent (a body field: unless its value is null).
   */
  aliases?: Record<string, string>;
  /** The error answering a field that fails its schema. */
  errors?: Record<string, FieldError>;
  /**
   * The one error answering a body that fails its schema, whatever the fields (instead of
   * `errors`): given the body and the top-level fields the schema's errors are about ('' for the
   * body itself), it renders every problem at once (asset settings' 2422).
   */
  bodyError?: (body: unknown, failing: ReadonlySet<string>) => AppError | Error;
  /**
   * The error answering a path parameter that fails its schema, checked after the body and the
   * query (in the schema's order). A parameter without one is checked by the operation, after the
   * lookup of the one before it (a group's asset pattern is looked up in the group).
   */
  params?: Record<string, FieldError>;
  /**
   * The error answering a later path parameter that fails its schema, answered when the handler
   * calls `checkedParam(name)`: after the lookup of the parameter before it (the group of an
   * asset pattern), so the unknown group answers first, as it always has.
   */
  lateParams?: Record<string, FieldError>;
  /**
   * Query parameters whose text the schema cannot decide (times in every accepted form, cursors):
   * the function returns the typed value (undefined for none) or throws the parameter's error.
   * Runs in the field's turn; for an array parameter it decodes each item.
   */
  decode?: Record<string, (value: string, given: string, ctx: InputContext) => unknown>;
  /** Rules over several query parameters, run right after the named parameter's turn (from is not after to). */
  rules?: Record<string, (query: Record<string, unknown>) => void>;
  /** Query parameters read only when the body does not give them (absent or null there): the body's value wins. */
  queryUnlessBody?: string[];
  /** The body's declared field errors are answered when the handler calls `checkedBody()`, after its lookups. */
  isBodyCheckedLate?: boolean;
  /**
   * The operation takes no body, but one sent must be JSON (1051 otherwise) and is ignored; not
   * documented (delete operations, marks, scan start and stop).
   */
  isUnusedBodyParsed?: boolean;
  /** The body may be any JSON value (the operation's own rule answers one of the wrong type); default: the schema's JSON type, else 1051. */
  isAnyJsonBody?: boolean;
}

/** The validated inputs handed to a handler. */
export interface ValidInput {
  /** The query parameters of the schema: arrays (items split and trimmed, blanks dropped), integers, booleans, strings; absent ones undefined. */
  query: Record<string, unknown>;
  /** The parsed, validated body (undefined when the route takes none or none was sent to an optional one). */
  body: unknown;
  /** The body once its late field errors are answered (see RouteInput.isBodyCheckedLate). */
  checkedBody(): unknown;
  /** A later path parameter once it passes its schema (see RouteInput.lateParams). */
  checkedParam(name: string): string;
}
