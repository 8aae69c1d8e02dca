import http from 'node:http';
import { listenTracked } from '../http-server.ts';
import { parsedRequest, sendJsonAfter, type ParsedRequest } from './fake-server.ts';

/**
 * A local Cloudflare API v4 (https://api.cloudflare.com/client/v4) for the CDN_D adapter's tests,
 * answering as the API documentation shows, so that the official SDK parses the answers itself:
 * every answer is the v4 envelope `{success, errors: [{code, message}], messages, result,
 * result_info: {page, per_page, count, total_count, total_pages}}`; GET /zones (filter
 * `account.id`) and GET /zones/{id}/dns_records page by `page` and `per_page` (clamped to this
 * server's page sizes, so tests page at small sizes), a page past the last is empty. Switches:
 * throttle the next N requests (429, code 971, Retry-After), refuse the token (403, code 10000
 * "Authentication error", as the API answers an unknown token), forbid the DNS records (403, code
 * 9109 "Unauthorized to access requested resource", a token without DNS:Read), delay answers.
 */

/** A record as the API returns it (fields beyond these are added when answering). */
export interface FakeCloudflareRecord {
  name: string;
  type: string;
  content?: string;
  ttl?: number;
  proxied?: boolean;
  priority?: number;
  data?: Record<string, unknown>;
}

export interface FakeCloudflareZone {
  id: string;
  name: string;
  accountId: string;
  records: FakeCloudflareRecord[];
}

/** One request the server saw. */
export type SeenRequest = ParsedRequest;

export interface FakeCloudflare {
  /** The API's base URL on this server (what replaces https://api.cloudflare.com/client/v4). */
  baseUrl: string;
  port: number;
  /** The token the server accepts. */
  token: string;
  zones: FakeCloudflareZone[];
  /** The largest page the server serves of zones and of records. */
  pageSize: { zones: number; records: number };
  /** Requests still to be answered 429, and the Retry-After they carry (seconds). */
  throttle: { remaining: number; retryAfter: string };
  /** `refuse-token`: every request 403 code 10000; `forbid-dns`: record listings 403 code 9109. */
  refusal: 'none' | 'refuse-token' | 'forbid-dns';
  /** Milliseconds to wait before each answer. */
  delayMs: number;
  requests: SeenRequest[];
  readonly connections: number;
  stop(): Promise<void>;
}

const prefix = '/client/v4';

function envelope(result: unknown, resultInfo?: Record<string, number>) {
  return {
    success: true,
    errors: [],
    messages: [],
    result,
    ...(resultInfo === undefined ? {} : { result_info: resultInfo }),
  };
}

function failure(code: number, message: string) {
  return { success: false, errors: [{ code, message }], messages: [], result: null };
}

/** One page of a list, as Cloudflare pages: `page` from 1, `per_page` clamped to the server's size. */
function paged<T>(items: readonly T[], query: URLSearchParams, largest: number) {
  const perPage = Math.min(Math.max(Number(query.get('per_page') ?? 20) || 20, 1), largest);
  const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const totalPages = Math.ceil(items.length / perPage);
  return envelope(slice, {
    page,
    per_page: perPage,
    count: slice.length,
    total_count: items.length,
    total_pages: totalPages,
  });
}

function zoneBody(zone: FakeCloudflareZone) {
  return {
    id: zone.id,
    name: zone.name,
    status: 'active',
    paused: false,
    type: 'full',
    development_mode: 0,
    name_servers: ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'],
    original_name_servers: null,
    original_registrar: null,
    original_dnshost: null,
    created_on: '2024-01-01T00:00:00.000000Z',
    modified_on: '2024-01-01T00:00:00.000000Z',
    activated_on: '2024-01-01T00:00:00.000000Z',
    meta: { step: 2, custom_certificate_quota: 0, page_rule_quota: 3, phishing_detected: false },
    owner: { id: null, type: 'user', email: null },
    account: { id: zone.accountId, name: `account ${zone.accountId.slice(0, 6)}` },
    permissions: ['#zone:read', '#dns_records:read'],
    plan: { id: '0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee', name: 'Free Website', price: 0, currency: 'USD' },
  };
}

function recordBody(zone: FakeCloudflareZone, record: FakeCloudflareRecord, index: number) {
  return {
    id: `${zone.id.slice(0, 16)}${String(index).padStart(16, '0')}`,
    zone_id: zone.id,
    zone_name: zone.name,
    name: record.name,
    type: record.type,
    content: record.content ?? '',
    proxiable: ['A', 'AAAA', 'CNAME'].includes(record.type),
    proxied: record.proxied ?? false,
    ttl: record.ttl ?? 1,
    settings: {},
    meta: {},
    comment: null,
    tags: [],
    created_on: '2024-01-01T00:00:00.000000Z',
    modified_on: '2024-01-01T00:00:00.000000Z',
    ...(record.priority === undefined ? {} : { priority: record.priority }),
    ...(record.data === undefined ? {} : { data: record.data }),
  };
}

/** The answer to one request: status, body and extra headers. */
function answer(fake: FakeCloudflare, request: SeenRequest): [number, unknown, Record<string, string>?] {
  if (request.headers.authorization !== `Bearer ${fake.token}` || fake.refusal === 'refuse-token')
    return [403, failure(10000, 'Authentication error')];
  if (fake.throttle.remaining > 0) {
    fake.throttle.remaining -= 1;
    return [
      429,
      failure(971, 'Please wait and consider throttling your request speed'),
      { 'retry-after': fake.throttle.retryAfter },
    ];
  }
  if (request.method !== 'GET') return [405, failure(10405, 'Method not allowed')];
  const path = request.path.slice(prefix.length);
  if (path === '/zones') {
    const account = request.query.get('account.id');
    const zones = fake.zones.filter((z) => account === null || z.accountId === account);
    return [200, paged(zones.map(zoneBody), request.query, fake.pageSize.zones)];
  }
  const match = /^\/zones\/([0-9a-f]{32})\/dns_records$/.exec(path);
  const zone = match === null ? undefined : fake.zones.find((z) => z.id === match[1]);
  if (zone === undefined)
    return [404, failure(7003, 'Could not route to ' + path + ', perhaps your object identifier is invalid?')];
  if (fake.refusal === 'forbid-dns') return [403, failure(9109, 'Unauthorized to access requested resource')];
  const records = zone.records.map((r, i) => recordBody(zone, r, i));
  return [200, paged(records, request.query, fake.pageSize.records)];
}

/** Starts the local Cloudflare API on 127.0.0.1 with the given zones. */
export async function startFakeCloudflare(zones: FakeCloudflareZone[], token: string): Promise<FakeCloudflare> {
  const server = http.createServer();
  const tracked = await listenTracked(server);
  const fake: FakeCloudflare = {
    baseUrl: `http://127.0.0.1:${tracked.port}${prefix}`,
    port: tracked.port,
    token,
    zones,
    pageSize: { zones: 50, records: 5000 },
    throttle: { remaining: 0, retryAfter: '0' },
    refusal: 'none',
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
    const [status, body, headers] = request.path.startsWith(prefix)
      ? answer(fake, request)
      : [404, failure(7000, 'No route for that URI')];
    sendJsonAfter(fake.delayMs, res, status, body, headers);
  });
  return fake;
}
