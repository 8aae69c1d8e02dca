import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../core/errors/app-error.ts';
import type { ErrorCode } from '../core/errors/error-catalogue.ts';
import { httpStatusOf } from './error-status.ts';

/** The surface a path belongs to, which decides the error body. */
export function surfaceOf(url: string): 'v2' | 'v3' | 'other' {
  if (url.startsWith('/rest/v3')) return 'v3';
  if (url.startsWith('/rest/')) return 'v2';
  return 'other';
}

/** The v2 error body: the spec's fields, mirrored under `error` for clients that read json.error.code. */
export function v2ErrorBody(code: ErrorCode, message: string, parameters?: string[]): Record<string, unknown> {
  const base = parameters === undefined ? { code, message } : { code, message, parameters };
  return { ...base, error: { ...base, more_info: `/docs#error-${code}` } };
}

const problemTitles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  423: 'Locked',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** A v3 problem body (RFC 9457 shape). */
export function problemBody(status: number, detail: string, instance: string, type?: string): Record<string, unknown> {
  const title = problemTitles[status] ?? 'Error';
  return {
    type: type ?? `/problems/${title.toLowerCase().replace(/ /g, '-')}`,
    title,
    status,
    detail,
    instance,
  };
}

/**
 * Sends an AppError in the shape of the request's surface. `instance` replaces the path in a v3
 * problem when the path itself is the malformed input (it is not echoed).
 */
export function sendAppError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: AppError,
  options: { instance?: string } = {},
): FastifyReply {
  const status = httpStatusOf[error.code];
  const path = request.url.split('?')[0] ?? request.url;
  if (surfaceOf(request.url) === 'v3') {
    return reply
      .code(status)
      .type('application/problem+json')
      .send(JSON.stringify(problemBody(status, error.message, options.instance ?? path, `/problems/${error.code}`)));
  }
  return reply
    .code(status)
    .type('application/json')
    .send(JSON.stringify(v2ErrorBody(error.code, error.message, error.parameters)));
}

/** Sends a v3 problem that has no v2 code (404/405 of the router). */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  detail: string,
): FastifyReply {
  const path = request.url.split('?')[0] ?? request.url;
  return reply
    .code(status)
    .type('application/problem+json')
    .send(JSON.stringify(problemBody(status, detail, path)));
}

/**
 * A v3 resource that does not exist: answered as the router's 404 problem (`/problems/not-found`).
 * The spec has no v2 code for a missing v3 resource; a malformed id, an unknown one and another
 * team's all raise it with the same detail, so nothing tells them apart.
 */
export class NotFoundProblem extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'NotFoundProblem';
  }
}
