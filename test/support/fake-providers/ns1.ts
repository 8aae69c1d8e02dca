import type http from 'node:http';
import { sendJson, startRecordingServer, type FakeRequest } from './fake-server.ts';

/**
 * NS1's REST API v1 on 127.0.0.1, answering as its documentation shows for the calls the adapter
 * makes: GET /v1/zones (zone objects) and GET /v1/zones/{zone} (the zone with its records'
 * summaries: domain, type, ttl, short_answers, tier, link). Both are paged at small sizes with a
 * `Link: <https://api.nsone.net/v1/…>; rel="next"` header (absolute URLs on NS1's public host, as
 * NS1 sends them). Auth is `X-NSONE-Key`; errors are {"message": …}; throttling is 429 with the
 * X-RateLimit-Limit/Remaining/Period headers. Every request is recorded.
 */

/** A record summary as a zone document lists it. */
export interface FakeNs1Record {
  domain: string;
  type: string;
  ttl: number;
  short_answers: string[];
  link?: string | null;
}

/** The running server and its switches. */
export interface FakeNs1 {
  url: string;
  zones: Map<string, FakeNs1Record[]>;
  requests: FakeRequest[];
  zonePageSize: number;
  recordPageSize: number;
  throttleNext: number;
  /** The X-RateLimit-Period a 429 gives, in seconds. */
  ratePeriod: number;
  refuseCredentials: boolean;
  forbid: boolean;
  close(): Promise<void>;
}

function zoneDocument(name: string, records: FakeNs1Record[]) {
  return {
    id: `52051b2c9f782d58bb4df${name.length.toString(16).padStart(3, '0')}`,
    zone: name,
    ttl: 3600,
    nx_ttl: 3600,
    retry: 7200,
    refresh: 43200,
    expiry: 1209600,
    hostmaster: 'hostmaster@nsone.net',
    dns_servers: ['dns1.p01.nsone.net', 'dns2.p01.nsone.net'],
    networks: [0],
    primary: { enabled: false, secondaries: [] },
    meta: {},
    records: records.map((r, i) => ({
      id: `5f2b${String(i).padStart(20, '0')}`,
      tier: 1,
      link: null,
      ...r,
    })),
  };
}

function answer(state: FakeNs1, key: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  if (state.throttleNext > 0) {
    state.throttleNext -= 1;
    sendJson(
      res,
      429,
      { message: 'Rate limit exceeded' },
      {
        'X-RateLimit-Limit': '10',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Period': String(state.ratePeriod),
      },
    );
    return;
  }
  if (state.refuseCredentials || req.headers['x-nsone-key'] !== key) {
    sendJson(res, 401, { message: 'Unauthorized' });
    return;
  }
  if (state.forbid) {
    sendJson(res, 403, { message: 'insufficient permissions' });
    return;
  }
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const rate = { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '9', 'X-RateLimit-Period': '1' };
  if (url.pathname === '/v1/zones') {
    const names = [...state.zones.keys()].sort();
    const after = url.searchParams.get('after');
    const rest = after === null ? names : names.filter((n) => n > after);
    const page = rest.slice(0, state.zonePageSize);
    const last = page[page.length - 1];
    const link: Record<string, string> =
      rest.length > page.length && last !== undefined
        ? { Link: `<https://api.nsone.net/v1/zones?after=${last}&limit=${state.zonePageSize}>; rel="next"` }
        : {};
    sendJson(
      res,
      200,
      page.map((n) => {
        const { records: _, ...zone } = zoneDocument(n, []);
        return zone;
      }),
      { ...rate, ...link },
    );
    return;
  }
  const name = decodeURIComponent(/^\/v1\/zones\/([^/]+)$/.exec(url.pathname)?.[1] ?? '');
  const records = state.zones.get(name);
  if (records === undefined) {
    sendJson(res, 404, { message: 'zone not found' });
    return;
  }
  const offset = Number(url.searchParams.get('records_offset') ?? 0);
  const limit = Math.min(Number(url.searchParams.get('records_limit') ?? state.recordPageSize), state.recordPageSize);
  const page = records.slice(offset, offset + limit);
  const next: Record<string, string> =
    offset + limit < records.length
      ? {
          Link: `<https://api.nsone.net/v1/zones/${name}?records_offset=${offset + limit}&records_limit=${limit}>; rel="next"`,
        }
      : {};
  sendJson(res, 200, zoneDocument(name, page), { ...rate, ...next });
}

/** Starts the server with the account's key and zones. */
export async function startFakeNs1(key: string, zones: Record<string, FakeNs1Record[]>): Promise<FakeNs1> {
  const state: FakeNs1 = {
    url: '',
    zones: new Map(Object.entries(zones)),
    requests: [],
    zonePageSize: 2,
    recordPageSize: 3,
    throttleNext: 0,
    ratePeriod: 1,
    refuseCredentials: false,
    forbid: false,
    close: () => Promise.resolve(),
  };
  const server = await startRecordingServer(state.requests, (req, res) => answer(state, key, req, res));
  state.url = server.url;
  state.close = server.close;
  return state;
}
