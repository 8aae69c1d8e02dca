import { createHmac } from 'node:crypto';
import { ApiError, UsageError } from './errors.ts';

/** Query parameters: a list is sent as repeated `name[]=` (both surfaces accept it). */
export type Query = Record<string, string | number | boolean | (string | number)[] | undefined>;

/** How to reach the API. */
export interface ApiOptions {
  server?: string;
  key?: string;
  secret?: string;
  v3Key?: string;
  /** Time-out of every request (headers and body), and of every pause of a streamed body. */
  timeoutMs: number;
}

interface RequestOptions {
  query?: Query;
  /** An object goes as JSON; a Buffer as raw bytes (application/octet-stream). */
  body?: unknown;
}

/** The API over HTTP (Node's fetch), with a time-out on every request and the API's errors as ApiError. */
export class Api {
  constructor(readonly options: ApiOptions) {}

  get server(): string {
    if (this.options.server === undefined)
      throw new UsageError('no server: run `perimeter login` or set PERIMETER_SERVER');
    return this.options.server;
  }

  /** A v2 call (assets, profiles, scans, vulnerabilities); the parsed JSON answer. */
  async v2<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send('v2', method, path, options);
    return (await readJson(response, this.options.timeoutMs)) as T;
  }

  /** A v3 call (exports, imports); the parsed JSON answer. */
  async v3<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send('v3', method, path, options);
    return (await readJson(response, this.options.timeoutMs)) as T;
  }

  /** A v3 GET whose body is streamed: the chunks as they come, each pause limited by the time-out. */
  async *stream(path: string, query: Query = {}): AsyncGenerator<Uint8Array> {
    const controller = new AbortController();
    let timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    try {
      const response = await this.send('v3', 'GET', path, { query }, controller.signal);
      if (response.body === null) return;
      const reader = response.body.getReader();
      for (;;) {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
        const { done, value } = await reader.read().catch((err: unknown) => {
          throw networkError(err, this.server, this.options.timeoutMs, controller.signal.aborted);
        });
        if (done) return;
        yield value;
      }
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  private async send(
    surface: 'v2' | 'v3',
    method: string,
    path: string,
    options: RequestOptions,
    signal: AbortSignal = AbortSignal.timeout(this.options.timeoutMs),
  ): Promise<Response> {
    const server = this.server;
    const target = `/rest/${surface}${path}${queryString(options.query ?? {})}`;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'perimeter-cli' };
    let body: Buffer | undefined;
    if (options.body !== undefined) {
      body = Buffer.isBuffer(options.body) ? options.body : Buffer.from(JSON.stringify(options.body));
      headers['content-type'] = Buffer.isBuffer(options.body) ? 'application/octet-stream' : 'application/json';
    }
    if (surface === 'v2') {
      const key = this.options.key;
      if (key === undefined)
        throw new UsageError('no API key: run `perimeter login --key KEY` or set PERIMETER_API_KEY (a v2 key)');
      headers['x-service-key'] = key;
      if (this.options.secret !== undefined) sign(headers, method, target, key, this.options.secret, body);
    } else {
      const key = this.options.v3Key;
      if (key === undefined)
        throw new UsageError(
          'no v3 API key (exports and imports are v3 operations): run `perimeter login --v3-key KEY` or set PERIMETER_V3_API_KEY',
        );
      headers['authorization'] = key;
    }
    let response: Response;
    try {
      response = await fetch(`${server}${target}`, {
        method,
        headers,
        body: body as BodyInit | undefined,
        signal,
        redirect: 'manual',
      });
    } catch (err) {
      throw networkError(err, server, this.options.timeoutMs, signal.aborted);
    }
    if (response.status >= 300) throw await apiErrorOf(response, method, target, this.options.timeoutMs);
    return response;
  }
}

/** `?a=1&b[]=x&b[]=y`; undefined and empty values are left out. */
export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) {
      for (const item of value) params.append(`${name}[]`, String(item));
    } else params.append(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The v2 signature headers of a key with a secret: HMAC-SHA256 over `METHOD;PATH;KEY;TIMESTAMP;BODY`. */
function sign(
  headers: Record<string, string>,
  method: string,
  target: string,
  key: string,
  secret: string,
  body: Buffer | undefined,
): void {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const prefix = Buffer.from(`${method};${target.replace(/^\/rest/, '')};${key};${timestamp};`);
  const value = body === undefined ? prefix : Buffer.concat([prefix, body]);
  headers['x-service-timestamp'] = timestamp;
  headers['x-service-signature'] = createHmac('sha256', Buffer.from(secret, 'base64')).update(value).digest('base64');
}

async function readJson(response: Response, timeoutMs: number): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    throw networkError(err, new URL(response.url).origin, timeoutMs, true);
  }
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(`the server answered ${response.status} with a body that is not JSON`, response.status);
  }
}

/** The API's own message: a v2 error `{code, message}` or a v3 problem `{title, detail}`. */
async function apiErrorOf(response: Response, method: string, target: string, timeoutMs: number): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    body = (await readJson(response, timeoutMs)) as Record<string, unknown>;
  } catch {
    // Not JSON: the status alone says what happened.
  }
  const code = typeof body['code'] === 'number' ? body['code'] : undefined;
  const message =
    typeof body['message'] === 'string'
      ? body['message']
      : typeof body['detail'] === 'string' && body['detail'] !== ''
        ? body['detail']
        : typeof body['title'] === 'string'
          ? body['title']
          : `${method} ${target.split('?')[0]} answered HTTP ${response.status}`;
  const label = code === undefined ? `HTTP ${response.status}` : `error ${code}, HTTP ${response.status}`;
  const hint = response.status === 401 ? ' — check the key (`perimeter login`)' : '';
  return new ApiError(`${message} (${label})${hint}`, response.status, code);
}

/** A failure before an answer: refused, unreachable, timed out. */
function networkError(err: unknown, server: string, timeoutMs: number, aborted: boolean): ApiError {
  if (err instanceof ApiError) return err;
  if (aborted || (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError')
    return new ApiError(`no answer from ${server} within ${timeoutMs / 1000} s`);
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new ApiError(`cannot reach ${server}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
}
