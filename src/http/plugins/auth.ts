import type { FastifyRequest } from 'fastify';
import { appError } from '../../core/errors/app-error.ts';
import { beginAuthentication, type BodyVerifier } from '../../core/teams/api-key.service.ts';
import type { Caller } from '../../core/teams/caller.ts';
import type { ApiKey } from '../../core/teams/team.types.ts';
import type { TtlCache } from '../../core/shared/ttl-cache.ts';
import type { AppDeps } from '../deps.ts';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The v2 key of a request, given in exactly one of three ways: `X-Service-Key`, HTTP Basic with
 * the key as user name, or URL user-info (which arrives as Basic). Two ways carrying different
 * keys, or an undecodable Authorization header, are 1002; none at all is 1001.
 */
export function v2KeyOf(request: FastifyRequest): string {
  const headerKey = header(request, 'x-service-key')?.trim();
  const authorization = header(request, 'authorization')?.trim();
  let basicKey: string | undefined;
  if (authorization !== undefined && authorization !== '') {
    const match = /^Basic\s+([A-Za-z0-9+/=_-]+)$/i.exec(authorization);
    if (match !== null) {
      const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
      basicKey = decoded.split(':')[0]?.trim();
      if (basicKey === undefined || basicKey === '')
        throw appError(1002, 'API key malformed: Basic credentials carry no user name');
    } else if (headerKey === undefined || headerKey === '') {
      throw appError(1002, 'API key malformed: Authorization must be Basic with the key as user name');
    }
  }
  const keys = [headerKey, basicKey].filter((k): k is string => k !== undefined && k !== '');
  if (keys.length === 0)
    throw appError(1001, 'API key missing: send it as X-Service-Key, HTTP Basic user name or URL user-info');
  if (keys.length === 2 && keys[0] !== keys[1])
    throw appError(1002, 'API key malformed: two different keys were given');
  return keys[0]!;
}

/** The v3 key: `Authorization: <key>` (also `Bearer <key>`). */
export function v3KeyOf(request: FastifyRequest): string {
  const authorization = header(request, 'authorization')?.trim();
  if (authorization === undefined || authorization === '')
    throw appError(1001, 'API key missing: send it as the Authorization header');
  return authorization.replace(/^Bearer\s+/i, '');
}

/**
 * The relative URLs a signature may cover: the request target exactly as sent (path and query),
 * minus the `/rest` prefix (`/v2/assets/?marker=x`), or the same relative to the API version's
 * base (`/assets/?marker=x`), the form of the original service's Node and Python examples, which
 * sign the path after `…/rest/v2`. Either way the query is covered, byte for byte: a request
 * with no query (or an empty one) is signed over its path alone, one with a query only over path
 * and query.
 */
export function signedPathsOf(request: FastifyRequest): string[] {
  const target = request.raw.url ?? '';
  const relative = target.startsWith('/rest/') ? target.slice('/rest'.length) : target;
  // An empty query (`/v2/domains/?`) carries nothing: the path alone covers it too.
  const forms =
    relative.endsWith('?') && relative.indexOf('?') === relative.length - 1
      ? [relative, relative.slice(0, -1)]
      : [relative];
  const paths: string[] = [];
  for (const form of forms) {
    paths.push(form);
    const underVersion = /^\/v[23](\/.*)$/s.exec(form)?.[1];
    if (underVersion !== undefined) paths.push(underVersion);
  }
  return paths;
}

/** Authenticates a request of the given surface from its headers; the verifier finishes a signature over the body. */
export async function authenticateRequest(
  deps: AppDeps,
  request: FastifyRequest,
  surface: 'v2' | 'v3',
  cache?: TtlCache<ApiKey>,
): Promise<{ caller: Caller; body: BodyVerifier }> {
  const common = { method: request.method, paths: signedPathsOf(request) };
  if (surface === 'v3')
    return beginAuthentication(
      deps.store,
      deps.box,
      { kind: 'v3', key: v3KeyOf(request), ...common },
      Date.now(),
      cache,
    );
  return beginAuthentication(
    deps.store,
    deps.box,
    {
      kind: 'v2',
      key: v2KeyOf(request),
      signature: header(request, 'x-service-signature'),
      timestamp: header(request, 'x-service-timestamp'),
      ...common,
    },
    Date.now(),
    cache,
  );
}
