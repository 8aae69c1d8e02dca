import { generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import http from 'node:http';
import { listenTracked } from '../http-server.ts';
import { onRequestWithBody, sendJson } from './fake-server.ts';

/**
 * A local Google OAuth token endpoint + Cloud DNS v1 + Compute Engine v1 on 127.0.0.1, answering
 * as Google's published APIs do: the JWT bearer grant (the RS256 assertion is verified against
 * the service account's public key; `invalid_grant` otherwise), managedZones and rrsets lists
 * with pageToken / nextPageToken, Compute's aggregated lists (`items` keyed by scope, with
 * NO_RESULTS_ON_PAGE warnings), and Google's error body
 * (`{"error":{"code","message","errors":[…],"status"}}`) for 401, 403 and 429.
 */

export interface GcpRrsetSeed {
  name: string;
  type: string;
  ttl: number;
  rrdatas: string[];
}

export interface GcpZoneSeed {
  name: string;
  dnsName: string;
  visibility?: 'public' | 'private';
  rrsets: GcpRrsetSeed[];
}

export interface GcpAddressSeed {
  scope: string;
  name: string;
  address: string;
  addressType: 'EXTERNAL' | 'INTERNAL';
  status: 'IN_USE' | 'RESERVED' | 'RESERVING';
}

export interface GcpForwardingRuleSeed {
  scope: string;
  name: string;
  IPAddress: string;
  loadBalancingScheme: string;
}

export interface SeenGcpRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeGcp {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  projectId: string;
  clientEmail: string;
  /** The service account's key file text, as the console downloads it. */
  keyFile: string;
  zones: GcpZoneSeed[];
  addresses: GcpAddressSeed[];
  forwardingRules: GcpForwardingRuleSeed[];
  pageSize: { zones: number; rrsets: number; addresses: number; forwardingRules: number };
  /** The APIs answer 429 RESOURCE_EXHAUSTED to this many requests. */
  throttleCount: number;
  /** Seconds of Retry-After on each 429, or undefined for none (Google usually sends none). */
  retryAfterSeconds: number | undefined;
  /** The APIs answer 403 PERMISSION_DENIED. */
  isForbidden: boolean;
  /** Milliseconds the APIs wait before each answer. */
  delayMs: number;
  requests: SeenGcpRequest[];
  tokens: Set<string>;
  stop(): Promise<void>;
}

/** A service account key file for a project, with a fresh RSA key; the server trusts `publicKey`. */
export function serviceAccountKey(projectId: string, clientEmail: string): { keyFile: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '1'.repeat(21),
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
    universe_domain: 'googleapis.com',
  });
  return { keyFile, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJson(res, status, body, { 'content-type': 'application/json; charset=UTF-8', ...headers });
}

function googleError(code: number, status: string, message: string, reason: string) {
  return { error: { code, message, errors: [{ message, domain: 'global', reason }], status } };
}

/** The JWT bearer grant: the assertion must be signed by the account's key and ask for the token URL. */
function tokenAnswer(fake: FakeGcp, publicKey: string, form: URLSearchParams, res: http.ServerResponse): void {
  if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
    return send(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type: ' });
  const [header, payload, signature] = (form.get('assertion') ?? '').split('.');
  const isSigned =
    header !== undefined &&
    payload !== undefined &&
    signature !== undefined &&
    verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'));
  if (!isSigned) return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  if (claims.iss !== fake.clientEmail || claims.aud !== 'https://oauth2.googleapis.com/token')
    return send(res, 400, {
      error: 'invalid_grant',
      error_description:
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
    });
  if (typeof claims.scope !== 'string' || claims.scope === '')
    return send(res, 400, {
      error: 'invalid_scope',
      error_description: 'Invalid OAuth scope or ID token audience provided.',
    });
  const token = `ya29.fake-${randomBytes(16).toString('hex')}`;
  fake.tokens.add(token);
  send(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
}

/** A slice of a list and the next page's token. */
function slice<T>(items: T[], url: URL, size: number): { items: T[]; nextPageToken?: string } {
  const token = url.searchParams.get('pageToken');
  const from = token === null ? 0 : Number(Buffer.from(token, 'base64url').toString('utf8'));
  const page = items.slice(from, from + size);
  return from + size >= items.length
    ? { items: page }
    : { items: page, nextPageToken: Buffer.from(String(from + size)).toString('base64url') };
}

/** One page of an aggregated list: the page's resources grouped by scope, empty scopes warned. */
function aggregated<T extends { scope: string }>(
  fake: FakeGcp,
  kind: string,
  key: string,
  all: T[],
  url: URL,
  size: number,
) {
  const { items, nextPageToken } = slice(all, url, size);
  const byScope: Record<string, unknown> = {
    'regions/asia-east1': {
      warning: {
        code: 'NO_RESULTS_ON_PAGE',
        message: "There are no results for scope 'regions/asia-east1' on this page.",
        data: [{ key: 'scope', value: 'regions/asia-east1' }],
      },
    },
  };
  for (const item of items) {
    const { scope, ...resource } = item;
    const region = scope.startsWith('regions/')
      ? { region: `https://www.googleapis.com/compute/v1/projects/${fake.projectId}/${scope}` }
      : {};
    const list = ((byScope[scope] as Record<string, unknown[]> | undefined)?.[key] ?? []) as unknown[];
    list.push({ kind: `compute#${kind}`, id: String(list.length + 1), ...resource, ...region });
    byScope[scope] = { [key]: list };
  }
  const selfLink = `https://www.googleapis.com/compute/v1/projects/${fake.projectId}/aggregated/${key}`;
  return {
    kind: `compute#${kind}AggregatedList`,
    id: `projects/${fake.projectId}/aggregated/${key}`,
    items: byScope,
    selfLink,
    ...(nextPageToken === undefined ? {} : { nextPageToken }),
  };
}

function apiAnswer(fake: FakeGcp, req: http.IncomingMessage, url: URL, res: http.ServerResponse): void {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (bearer === undefined || !fake.tokens.has(bearer)) {
    const message =
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
    return send(res, 401, googleError(401, 'UNAUTHENTICATED', message, 'authError'), {
      'www-authenticate': 'Bearer realm="https://accounts.google.com/"',
    });
  }
  if (fake.throttleCount > 0) {
    fake.throttleCount -= 1;
    const message = `Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute' of service 'dns.googleapis.com' for consumer 'project_number:123456789012'.`;
    const headers: Record<string, string> =
      fake.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fake.retryAfterSeconds) };
    return send(res, 429, googleError(429, 'RESOURCE_EXHAUSTED', message, 'rateLimitExceeded'), headers);
  }
  if (fake.isForbidden) {
    const message = `Forbidden: the caller does not have permission on project ${fake.projectId}`;
    return send(res, 403, googleError(403, 'PERMISSION_DENIED', message, 'forbidden'));
  }
  const project = `/projects/${fake.projectId}`;
  const p = url.pathname;
  if (p === `/dns/v1${project}/managedZones`) {
    const zones = fake.zones.map((z, i) => ({
      kind: 'dns#managedZone',
      name: z.name,
      dnsName: z.dnsName,
      id: String(1000 + i),
      description: '',
      nameServers: ['ns-cloud-a1.googledomains.com.'],
      creationTime: '2024-01-01T00:00:00.000Z',
      visibility: z.visibility ?? 'public',
    }));
    const { items, nextPageToken } = slice(zones, url, fake.pageSize.zones);
    return send(res, 200, {
      kind: 'dns#managedZonesListResponse',
      managedZones: items,
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    });
  }
  const rrsets = new RegExp(`^/dns/v1${project}/managedZones/([^/]+)/rrsets$`).exec(p);
  const zone = fake.zones.find((z) => rrsets !== null && z.name === decodeURIComponent(rrsets[1]!));
  if (zone !== undefined) {
    const sets = zone.rrsets.map((s) => ({ kind: 'dns#resourceRecordSet', ...s }));
    const { items, nextPageToken } = slice(sets, url, fake.pageSize.rrsets);
    return send(res, 200, {
      kind: 'dns#resourceRecordSetsListResponse',
      rrsets: items,
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    });
  }
  if (p === `/compute/v1${project}/aggregated/addresses`)
    return send(res, 200, aggregated(fake, 'address', 'addresses', fake.addresses, url, fake.pageSize.addresses));
  if (p === `/compute/v1${project}/aggregated/forwardingRules`)
    return send(
      res,
      200,
      aggregated(fake, 'forwardingRule', 'forwardingRules', fake.forwardingRules, url, fake.pageSize.forwardingRules),
    );
  send(res, 404, googleError(404, 'NOT_FOUND', `The requested resource '${p}' was not found`, 'notFound'));
}

/** Starts the local Google APIs with an empty project; seed zones, addresses and rules. */
export async function startFakeGcp(): Promise<FakeGcp> {
  const projectId = 'perimeter-test-1';
  const clientEmail = `reader@${projectId}.iam.gserviceaccount.com`;
  const { keyFile, publicKey } = serviceAccountKey(projectId, clientEmail);
  const server = http.createServer();
  const fake: FakeGcp = {
    endpoint: '',
    projectId,
    clientEmail,
    keyFile,
    zones: [],
    addresses: [],
    forwardingRules: [],
    pageSize: { zones: 100, rrsets: 100, addresses: 100, forwardingRules: 100 },
    throttleCount: 0,
    retryAfterSeconds: undefined,
    isForbidden: false,
    delayMs: 0,
    requests: [],
    tokens: new Set(),
    stop: async () => undefined,
  };
  onRequestWithBody(server, (req, res, body) => {
    fake.requests.push({ method: req.method ?? '?', path: req.url ?? '/', headers: req.headers, body });
    const url = new URL(req.url ?? '/', fake.endpoint);
    if (req.method === 'POST' && url.pathname === '/token')
      return tokenAnswer(fake, publicKey, new URLSearchParams(body), res);
    if (req.method !== 'GET')
      return send(res, 405, googleError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed', 'methodNotAllowed'));
    setTimeout(() => apiAnswer(fake, req, url, res), fake.delayMs);
  });
  const tracked = await listenTracked(server);
  fake.endpoint = `http://127.0.0.1:${tracked.port}`;
  fake.stop = tracked.stop;
  return fake;
}
