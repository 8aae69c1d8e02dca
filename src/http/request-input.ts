import { appError } from '../core/errors/app-error.ts';
import type { RouteContext } from './route.ts';

/**
 * Parses the body of an operation without a body schema as JSON (a body with one is validated
 * before its handler, see validation.ts). An empty body (whatever the Content-Type says) is "no
 * body": undefined here, 1050 where the operation requires one; invalid JSON is 1051.
 */
export function readJson(ctx: Pick<RouteContext, 'rawBody'>, options: { required: boolean }): unknown {
  const text = ctx.rawBody.toString('utf8');
  if (text.trim() === '') {
    if (options.required) throw appError(1050, 'Request body missing: this operation needs a JSON body');
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw appError(1051, `Request body malformed: ${(err as Error).message}`);
  }
}

/**
 * The streamed body of an upload, refusing one of no bytes at all with 1050 once it has ended
 * (the consumer's transaction then keeps nothing). A body of blank lines or comments is a body.
 */
export async function* requiredUpload(body: AsyncIterable<Buffer>, what: string): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    yield chunk;
  }
  if (bytes === 0) throw appError(1050, `Request body missing: send ${what} as the request body`);
}

/**
 * Values of an array query parameter, in every form the contract accepts: `name[]=a&name[]=b`,
 * `name=a&name=b` and `name=a,b`. Empty items are dropped.
 */
export function queryList(query: RouteContext['query'], name: string): string[] | undefined {
  const raw = [query[`${name}[]`], query[name]].flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));
  if (raw.length === 0) return undefined;
  return raw
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

/** The single value of a query parameter; several values are 4150. */
export function queryValue(query: RouteContext['query'], name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw appError(4150, `${name} given more than once`, [name]);
    return value[0];
  }
  return value;
}

/** The first present of several alternative names of one parameter (pageSize / page_size). */
function queryValueOf(query: RouteContext['query'], names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = queryValue(query, name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

/** A positive integer query parameter within limits, or 4150. */
export function queryInteger(
  query: RouteContext['query'],
  names: string[],
  limits: { min: number; max: number; fallback: number },
): number {
  const found = queryValueOf(query, names);
  if (found === undefined || found.value === '') return limits.fallback;
  const n = Number(found.value);
  if (!/^\d+$/.test(found.value) || n < limits.min || n > limits.max) {
    throw appError(4150, `${found.name} must be an integer from ${limits.min} to ${limits.max}`, [found.name]);
  }
  return n;
}
