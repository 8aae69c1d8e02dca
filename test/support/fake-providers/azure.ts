import { randomBytes, randomUUID } from 'node:crypto';
import https from 'node:https';
import type http from 'node:http';
import { listenTracked, opensslCertificate } from '../http-server.ts';
import { onRequestWithBody, sendJson } from './fake-server.ts';

/**
 * A local Microsoft Entra ID + Azure Resource Manager on 127.0.0.1 over TLS (Azure's SDKs refuse
 * bearer tokens and authorities over plain http), answering as the published APIs do: the
 * tenant's OpenID configuration and v2.0 token endpoint (client credentials), and ARM's DNS zone,
 * record set and public IP address lists with `value` / `nextLink` paging, ARM error bodies
 * (`{"error":{"code","message"}}`), 429 TooManyRequests with Retry-After, and Entra's
 * AADSTS7000215 `invalid_client` answer to a wrong secret.
 */

/** A record set as ARM holds it: relative name (`@` for the apex), type, and its properties. */
export interface AzureRecordSetSeed {
  name: string;
  type: string;
  properties: Record<string, unknown>;
}

export interface AzureZoneSeed {
  name: string;
  resourceGroup: string;
  zoneType?: 'Public' | 'Private';
  recordSets: AzureRecordSetSeed[];
}

export interface AzurePublicIpSeed {
  name: string;
  resourceGroup: string;
  location: string;
  ipAddress?: string;
  fqdn?: string;
}

/** What the server saw of one request. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeAzure {
  /** https://127.0.0.1:<port> */
  endpoint: string;
  /** The PEM certificate the server presents (the client's CA). */
  ca: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  subscriptionId: string;
  zones: AzureZoneSeed[];
  publicIps: AzurePublicIpSeed[];
  pageSize: { zones: number; recordSets: number; publicIps: number };
  /** ARM answers 429 to this many requests before answering again. */
  throttleCount: number;
  /** Seconds in each 429's Retry-After. */
  retryAfterSeconds: number;
  /** ARM answers 403 AuthorizationFailed. */
  isForbidden: boolean;
  /** Milliseconds ARM waits before each answer. */
  delayMs: number;
  requests: SeenRequest[];
  /** Access tokens issued so far. */
  tokens: Set<string>;
  stop(): Promise<void>;
}

const apiVersionMissing = {
  error: {
    code: 'MissingApiVersionParameter',
    message: 'The api-version query parameter (?api-version=) is required for all requests.',
  },
};

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJson(res, status, body, { 'content-type': 'application/json; charset=utf-8', ...headers });
}

function openIdConfiguration(base: string, tenant: string) {
  return {
    token_endpoint: `${base}/${tenant}/oauth2/v2.0/token`,
    token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
    jwks_uri: `${base}/${tenant}/discovery/v2.0/keys`,
    response_modes_supported: ['query', 'fragment', 'form_post'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    issuer: `${base}/${tenant}/v2.0`,
    request_uri_parameter_supported: false,
    userinfo_endpoint: `${base}/oidc/userinfo`,
    authorization_endpoint: `${base}/${tenant}/oauth2/v2.0/authorize`,
    device_authorization_endpoint: `${base}/${tenant}/oauth2/v2.0/devicecode`,
    http_logout_supported: true,
    frontchannel_logout_supported: true,
    end_session_endpoint: `${base}/${tenant}/oauth2/v2.0/logout`,
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'nonce', 'tid', 'ver'],
    kerberos_endpoint: `${base}/${tenant}/kerberos`,
    tenant_region_scope: 'EU',
    cloud_instance_name: 'microsoftonline.com',
    cloud_graph_host_name: 'graph.windows.net',
    msgraph_host: 'graph.microsoft.com',
    rbac_url: 'https://pas.windows.net',
  };
}

/** Entra's answer to a client-credentials token request. */
function tokenAnswer(fake: FakeAzure, form: URLSearchParams, res: http.ServerResponse): void {
  if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== fake.clientId) {
    send(res, 400, {
      error: 'unauthorized_client',
      error_description: 'AADSTS700016: Application not found.',
      error_codes: [700016],
    });
    return;
  }
  if (form.get('client_secret') !== fake.clientSecret) {
    send(res, 401, {
      error: 'invalid_client',
      error_description: `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${fake.clientId}'. Trace ID: ${randomUUID()} Correlation ID: ${randomUUID()} Timestamp: ${new Date().toISOString()}`,
      error_codes: [7000215],
      timestamp: new Date().toISOString(),
      trace_id: randomUUID(),
      correlation_id: randomUUID(),
      error_uri: 'https://login.microsoftonline.com/error?code=7000215',
    });
    return;
  }
  const token = `fake-arm-${randomBytes(16).toString('hex')}`;
  fake.tokens.add(token);
  send(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
}

/** One page of a list, with ARM's absolute nextLink when more remain. */
function page<T>(items: T[], url: URL, size: number, base: string): { value: T[]; nextLink?: string } {
  const skip = Number(url.searchParams.get('$skipToken') ?? '0');
  const value = items.slice(skip, skip + size);
  if (skip + size >= items.length) return { value };
  const next = new URL(url.pathname, base);
  next.searchParams.set('api-version', url.searchParams.get('api-version') ?? '');
  next.searchParams.set('$skipToken', String(skip + size));
  return { value, nextLink: next.toString() };
}

function zoneJson(fake: FakeAzure, zone: AzureZoneSeed) {
  return {
    id: `/subscriptions/${fake.subscriptionId}/resourceGroups/${zone.resourceGroup}/providers/Microsoft.Network/dnszones/${zone.name}`,
    name: zone.name,
    type: 'Microsoft.Network/dnszones',
    etag: '00000002-0000-0000-76c2-f7ad90b5d101',
    location: 'global',
    tags: {},
    properties: {
      maxNumberOfRecordSets: 10000,
      numberOfRecordSets: zone.recordSets.length,
      nameServers: ['ns1-01.azure-dns.com.', 'ns2-01.azure-dns.net.'],
      zoneType: zone.zoneType ?? 'Public',
    },
  };
}

function recordSetJson(fake: FakeAzure, zone: AzureZoneSeed, set: AzureRecordSetSeed) {
  const fqdn = set.name === '@' ? `${zone.name}.` : `${set.name}.${zone.name}.`;
  return {
    id: `${zoneJson(fake, zone).id}/${set.type}/${set.name}`,
    name: set.name,
    type: `Microsoft.Network/dnszones/${set.type}`,
    etag: randomUUID(),
    properties: { fqdn, provisioningState: 'Succeeded', ...set.properties },
  };
}

function publicIpJson(fake: FakeAzure, ip: AzurePublicIpSeed) {
  const dnsSettings =
    ip.fqdn === undefined ? {} : { dnsSettings: { domainNameLabel: ip.fqdn.split('.')[0], fqdn: ip.fqdn } };
  return {
    name: ip.name,
    id: `/subscriptions/${fake.subscriptionId}/resourceGroups/${ip.resourceGroup}/providers/Microsoft.Network/publicIPAddresses/${ip.name}`,
    etag: `W/"${randomUUID()}"`,
    location: ip.location,
    sku: { name: 'Standard', tier: 'Regional' },
    properties: {
      provisioningState: 'Succeeded',
      resourceGuid: randomUUID(),
      publicIPAddressVersion: 'IPv4',
      publicIPAllocationMethod: 'Static',
      idleTimeoutInMinutes: 4,
      ...(ip.ipAddress === undefined ? {} : { ipAddress: ip.ipAddress }),
      ...dnsSettings,
    },
  };
}

/** ARM's answer to a GET of the subscription's lists. */
function armAnswer(fake: FakeAzure, req: http.IncomingMessage, url: URL, res: http.ServerResponse): void {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (bearer === undefined || !fake.tokens.has(bearer)) {
    send(res, 401, { error: { code: 'InvalidAuthenticationToken', message: 'The access token is invalid.' } });
    return;
  }
  if (!url.searchParams.has('api-version')) return send(res, 400, apiVersionMissing);
  if (fake.throttleCount > 0) {
    fake.throttleCount -= 1;
    send(
      res,
      429,
      {
        error: {
          code: 'TooManyRequests',
          message:
            'The request is being throttled as the limit has been reached for operation type - Read_ObservationWindow_00:05:00. For more information, see - https://aka.ms/srpthrottlinglimits',
        },
      },
      { 'retry-after': String(fake.retryAfterSeconds), 'x-ms-ratelimit-remaining-subscription-reads': '0' },
    );
    return;
  }
  const sub = `/subscriptions/${fake.subscriptionId}`.toLowerCase();
  const path = url.pathname.toLowerCase();
  if (fake.isForbidden) {
    send(res, 403, {
      error: {
        code: 'AuthorizationFailed',
        message: `The client '${fake.clientId}' with object id '${fake.clientId}' does not have authorization to perform action 'Microsoft.Network/dnszones/read' over scope '/subscriptions/${fake.subscriptionId}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
      },
    });
    return;
  }
  if (path === `${sub}/providers/microsoft.network/dnszones`) {
    return send(
      res,
      200,
      page(
        fake.zones.map((z) => zoneJson(fake, z)),
        url,
        fake.pageSize.zones,
        fake.endpoint,
      ),
    );
  }
  if (path === `${sub}/providers/microsoft.network/publicipaddresses`) {
    const ips = fake.publicIps.map((ip) => publicIpJson(fake, ip));
    return send(res, 200, page(ips, url, fake.pageSize.publicIps, fake.endpoint));
  }
  const sets = new RegExp(
    `^${sub}/resourcegroups/([^/]+)/providers/microsoft.network/dnszones/([^/]+)/recordsets$`,
  ).exec(path);
  const zone = fake.zones.find((z) => sets !== null && z.resourceGroup.toLowerCase() === sets[1] && z.name === sets[2]);
  if (zone !== undefined) {
    const json = zone.recordSets.map((s) => recordSetJson(fake, zone, s));
    return send(res, 200, page(json, url, fake.pageSize.recordSets, fake.endpoint));
  }
  send(res, 404, { error: { code: 'ResourceNotFound', message: `The resource '${url.pathname}' was not found.` } });
}

function route(fake: FakeAzure, req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', fake.endpoint);
  const openId = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(url.pathname);
  if (req.method === 'GET' && openId !== null) return send(res, 200, openIdConfiguration(fake.endpoint, openId[1]!));
  if (req.method === 'POST' && url.pathname === `/${fake.tenantId}/oauth2/v2.0/token`)
    return tokenAnswer(fake, new URLSearchParams(body), res);
  if (req.method === 'GET' && url.pathname.toLowerCase().startsWith('/subscriptions/')) {
    setTimeout(() => armAnswer(fake, req, url, res), fake.delayMs);
    return;
  }
  send(res, 404, { error: { code: 'NotFound', message: `No route for ${req.method ?? '?'} ${url.pathname}` } });
}

/** Starts the local Entra ID + ARM over TLS with an empty subscription; seed `zones` and `publicIps`. */
export async function startFakeAzure(): Promise<FakeAzure> {
  const { key, cert } = opensslCertificate('/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1,DNS:localhost']);
  const server = https.createServer({ key, cert });
  const fake: FakeAzure = {
    endpoint: '',
    ca: cert,
    tenantId: randomUUID(),
    clientId: randomUUID(),
    clientSecret: `secret~${randomBytes(12).toString('base64url')}`,
    subscriptionId: randomUUID(),
    zones: [],
    publicIps: [],
    pageSize: { zones: 100, recordSets: 100, publicIps: 100 },
    throttleCount: 0,
    retryAfterSeconds: 1,
    isForbidden: false,
    delayMs: 0,
    requests: [],
    tokens: new Set(),
    stop: async () => undefined,
  };
  onRequestWithBody(server, (req, res, body) => {
    fake.requests.push({ method: req.method ?? '?', path: req.url ?? '/', headers: req.headers, body });
    route(fake, req, body, res);
  });
  const tracked = await listenTracked(server);
  fake.endpoint = `https://127.0.0.1:${tracked.port}`;
  fake.stop = tracked.stop;
  return fake;
}
