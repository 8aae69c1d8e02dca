import type { TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../core/errors/error-catalogue.ts';
import type { Caller } from '../core/teams/api-key.service.ts';
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
  query: Record<string, string | string[] | undefined>;
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
  body?: TSchema;
  /** Documented as a raw text body instead of JSON. */
  rawBody?: { contentType: string; description: string };
  response: TSchema;
  successStatus: number;
  /** The v2 error codes this operation can answer, beyond the shared auth and body codes. */
  errors: ErrorCode[];
  bodyLimit?: number;
  /** The body arrives as a stream (large uploads), never buffered whole. */
  isStreamingBody?: boolean;
  /** An extension to the original API: flagged in OpenAPI. */
  isExtension?: boolean;
  isExperimental?: boolean;
  /** An older operation kept for existing clients: `deprecated: true` in OpenAPI. */
  isDeprecated?: boolean;
  handler(ctx: RouteContext): Promise<RouteResult>;
}

/** Identity helper that gives route literals their type. */
export function defineRoute(def: RouteDef): RouteDef {
  return def;
}
