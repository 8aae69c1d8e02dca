import type http from 'node:http';
import { sendJson, startRecordingServer, type FakeRequest } from './fake-server.ts';

/**
 * GoDaddy's Domains API on 127.0.0.1, answering as developer.godaddy.com documents the calls the
 * adapter makes: GET /v1/domains (statuses, limit, marker: domains after the marker, in order)
 * and GET /v1/domains/{domain}/records (offset, limit), with `Authorization: sso-key key:secret`.
 * Error bodies are GoDaddy's {code, message} (429 adds retryAfterSec). A test can make it throttle
 * the next N requests, refuse the credentials or forbid access; every request is recorded.
 */

/** A record as GoDaddy's API returns it. */
export interface FakeGoDaddyRecord {
  type: string;
  name: string;
  data: string;
  ttl: number;
  priority?: number;
  port?: number;
  weight?: number;
  service?: string;
  protocol?: string;
}

/** A domain of the account. */
export interface FakeGoDaddyDomain {
  domain: string;
  status: 'ACTIVE' | 'CANCELLED' | 'EXPIRED';
  records: FakeGoDaddyRecord[];
  /** False for a domain whose DNS GoDaddy does not host: its records answer 404 NOT_FOUND. */
  isDnsHosted?: boolean;
}

/** The running server and its switches. */
export interface FakeGoDaddy {
  url: string;
  domains: FakeGoDaddyDomain[];
  requests: FakeRequest[];
  /** Answers this many next requests with 429 (retryAfterSec below). */
  throttleNext: number;
  retryAfterSec: number;
  refuseCredentials: boolean;
  forbid: boolean;
  /** The largest `limit` honoured (GoDaddy's is 1000). */
  maxLimit: number;
  close(): Promise<void>;
}

function pageParams(url: URL, maxLimit: number): { limit: number; offset: number } {
  const limit = Math.min(Number(url.searchParams.get('limit') ?? maxLimit) || maxLimit, maxLimit);
  return { limit, offset: Number(url.searchParams.get('offset') ?? 0) || 0 };
}

function answer(state: FakeGoDaddy, key: string, secret: string, req: http.IncomingMessage, res: http.ServerResponse) {
  if (state.throttleNext > 0) {
    state.throttleNext -= 1;
    sendJson(res, 429, {
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many requests received within interval',
      retryAfterSec: state.retryAfterSec,
    });
    return;
  }
  if (state.refuseCredentials || req.headers.authorization !== `sso-key ${key}:${secret}`) {
    sendJson(res, 401, {
      code: 'UNABLE_TO_AUTHENTICATE',
      message: 'Unauthorized : Could not authenticate API key/secret',
    });
    return;
  }
  if (state.forbid) {
    sendJson(res, 403, { code: 'ACCESS_DENIED', message: 'Authenticated user is not allowed access' });
    return;
  }
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const { limit, offset } = pageParams(url, state.maxLimit);
  if (url.pathname === '/v1/domains') {
    const statuses = (url.searchParams.get('statuses') ?? '').split(',').filter((s) => s !== '');
    const marker = url.searchParams.get('marker');
    const list = state.domains
      .filter((d) => statuses.length === 0 || statuses.includes(d.status))
      .map((d) => d.domain)
      .sort()
      .filter((d) => marker === null || d > marker);
    sendJson(
      res,
      200,
      list
        .slice(0, limit)
        .map((domain, i) => ({ domainId: 1000 + i, domain, status: 'ACTIVE', expires: '2030-01-01T00:00:00.000Z' })),
    );
    return;
  }
  const records = /^\/v1\/domains\/([^/]+)\/records$/.exec(url.pathname);
  const domain = records && state.domains.find((d) => d.domain === decodeURIComponent(records[1] ?? ''));
  if (!domain || domain.isDnsHosted === false) {
    sendJson(res, 404, { code: 'NOT_FOUND', message: 'The requested resource was not found' });
    return;
  }
  sendJson(res, 200, domain.records.slice(offset, offset + limit));
}

/** Starts the server with the account's key, secret and domains. */
export async function startFakeGoDaddy(
  key: string,
  secret: string,
  domains: FakeGoDaddyDomain[],
): Promise<FakeGoDaddy> {
  const state: FakeGoDaddy = {
    url: '',
    domains,
    requests: [],
    throttleNext: 0,
    retryAfterSec: 1,
    refuseCredentials: false,
    forbid: false,
    maxLimit: 1000,
    close: () => Promise.resolve(),
  };
  const server = await startRecordingServer(state.requests, (req, res) => answer(state, key, secret, req, res));
  state.url = server.url;
  state.close = server.close;
  return state;
}
