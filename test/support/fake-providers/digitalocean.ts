import http from 'node:http';
import { listenTracked } from '../http-server.ts';
import { parsedRequest, sendJsonAfter, type ParsedRequest } from './fake-server.ts';

/**
 * A local DigitalOcean API v2 (https://api.digitalocean.com) for the CLOUD_E adapter's tests,
 * answering as the API reference shows: lists page by `page` and `per_page` (clamped to this
 * server's page size) and carry `links.pages` (`first`/`prev`/`next`/`last`, absolute URLs; `next`
 * absent on the last page) and `meta.total`; errors are `{"id", "message"}` (401 unauthorized
 * "Unable to authenticate you", 403 forbidden, 404 not_found, 429 too_many_requests "API Rate
 * limit exceeded." with `ratelimit-*` and Retry-After headers, 500 server_error "Unexpected
 * server-side error"). It serves /v2/domains, /v2/domains/{name}/records, /v2/droplets,
 * /v2/reserved_ips and /v2/load_balancers. Since the CLOUD_E adapter reads through DigitalOcean's
 * SDK (@digitalocean/dots), it is the SDK that parses these answers.
 */

export interface FakeDomain {
  name: string;
  ttl: number;
  records: Array<Record<string, unknown>>;
}

export interface FakeDigitalOceanState {
  domains: FakeDomain[];
  droplets: Array<Record<string, unknown>>;
  reservedIps: Array<Record<string, unknown>>;
  loadBalancers: Array<Record<string, unknown>>;
}

/** One request the server saw. */
export type SeenRequest = ParsedRequest;

export interface FakeDigitalOcean {
  /** The API's base URL on this server (what replaces https://api.digitalocean.com). */
  baseUrl: string;
  token: string;
  state: FakeDigitalOceanState;
  /** The largest page served. */
  pageSize: number;
  /** The origin written in `links.pages` (DigitalOcean writes its own host; default this server's). */
  linkOrigin: string;
  /**
   * Requests still to be answered 429, with the Retry-After they carry (seconds; '' for none) and
   * the `ratelimit-reset` they give (whole seconds from now, rounded down, plus resetIn).
   */
  throttle: { remaining: number; retryAfter: string; resetIn?: number };
  /** Requests still to be answered 500 server_error "Unexpected server-side error" (the reference's 500 example). */
  serverErrors: number;
  /** Path prefixes answered 403 forbidden (a token whose scopes do not cover them). */
  forbidden: string[];
  delayMs: number;
  requests: SeenRequest[];
  readonly connections: number;
  stop(): Promise<void>;
}

function error(id: string, message: string) {
  return { id, message };
}

/** One page of a list with DigitalOcean's links and meta. */
function paged(fake: FakeDigitalOcean, key: string, items: readonly unknown[], path: string, query: URLSearchParams) {
  const perPage = Math.min(Math.max(Number(query.get('per_page') ?? 20) || 20, 1), fake.pageSize);
  const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const link = (n: number) => `${fake.linkOrigin}${path}?page=${n}&per_page=${perPage}`;
  const pages: Record<string, string> = {};
  if (page > 1) Object.assign(pages, { first: link(1), prev: link(page - 1) });
  if (page < last) Object.assign(pages, { next: link(page + 1), last: link(last) });
  return {
    [key]: items.slice((page - 1) * perPage, page * perPage),
    links: Object.keys(pages).length === 0 ? {} : { pages },
    meta: { total: items.length },
  };
}

function listing(fake: FakeDigitalOcean, path: string, query: URLSearchParams): [number, unknown] {
  const { state } = fake;
  if (path === '/v2/domains') {
    const domains = state.domains.map((d) => ({ name: d.name, ttl: d.ttl, zone_file: '' }));
    return [200, paged(fake, 'domains', domains, path, query)];
  }
  const records = /^\/v2\/domains\/([^/]+)\/records$/.exec(path);
  if (records !== null) {
    const domain = state.domains.find((d) => d.name === decodeURIComponent(records[1] ?? ''));
    if (domain === undefined) return [404, error('not_found', 'The resource you were accessing could not be found.')];
    const list = domain.records.map((r, i) => ({
      id: 1000 + i,
      priority: null,
      port: null,
      weight: null,
      flags: null,
      tag: null,
      ...r,
    }));
    return [200, paged(fake, 'domain_records', list, path, query)];
  }
  if (path === '/v2/droplets') return [200, paged(fake, 'droplets', state.droplets, path, query)];
  if (path === '/v2/reserved_ips') return [200, paged(fake, 'reserved_ips', state.reservedIps, path, query)];
  if (path === '/v2/load_balancers') return [200, paged(fake, 'load_balancers', state.loadBalancers, path, query)];
  return [404, error('not_found', 'The resource you were accessing could not be found.')];
}

function answer(fake: FakeDigitalOcean, request: SeenRequest): [number, unknown, Record<string, string>?] {
  if (request.headers.authorization !== `Bearer ${fake.token}`)
    return [401, error('unauthorized', 'Unable to authenticate you')];
  const reset = String(Math.floor(Date.now() / 1000) + (fake.throttle.resetIn ?? 1));
  if (fake.throttle.remaining > 0) {
    fake.throttle.remaining -= 1;
    const headers: Record<string, string> = {
      'ratelimit-limit': '5000',
      'ratelimit-remaining': '0',
      'ratelimit-reset': reset,
    };
    if (fake.throttle.retryAfter !== '') headers['retry-after'] = fake.throttle.retryAfter;
    return [429, error('too_many_requests', 'API Rate limit exceeded.'), headers];
  }
  if (fake.serverErrors > 0) {
    fake.serverErrors -= 1;
    return [500, error('server_error', 'Unexpected server-side error')];
  }
  if (fake.forbidden.some((p) => request.path.startsWith(p)))
    return [403, error('forbidden', 'You are not authorized to perform this operation')];
  const [status, body] = listing(fake, request.path, request.query);
  return [status, body, { 'ratelimit-limit': '5000', 'ratelimit-remaining': '4999', 'ratelimit-reset': reset }];
}

/** Starts the local DigitalOcean API on 127.0.0.1 with the given account. */
export async function startFakeDigitalOcean(state: FakeDigitalOceanState, token: string): Promise<FakeDigitalOcean> {
  const server = http.createServer();
  const tracked = await listenTracked(server);
  const baseUrl = `http://127.0.0.1:${tracked.port}`;
  const fake: FakeDigitalOcean = {
    baseUrl,
    token,
    state,
    pageSize: 200,
    linkOrigin: baseUrl,
    throttle: { remaining: 0, retryAfter: '0' },
    serverErrors: 0,
    forbidden: [],
    delayMs: 0,
    requests: [],
    get connections() {
      return tracked.connections;
    },
    stop: () => tracked.stop(),
  };
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const request = parsedRequest(req);
    fake.requests.push(request);
    const [status, body, headers] =
      request.method === 'GET' ? answer(fake, request) : [405, error('method_not_allowed', 'Method not allowed')];
    sendJsonAfter(fake.delayMs, res, status, body, { 'content-type': 'application/json; charset=utf-8', ...headers });
  });
  return fake;
}
