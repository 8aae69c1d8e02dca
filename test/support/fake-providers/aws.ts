import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { expectedSignature, parseAuthorization, type SigV4Authorization } from './aws-sigv4.ts';
import {
  badSignature,
  denied,
  el,
  failure,
  invalidKey,
  success,
  throttled,
  type AwsService,
  type XmlAnswer,
} from './aws-xml.ts';
import {
  describeAddresses,
  describeInstances,
  describeLoadBalancers,
  describeRegions,
  listHostedZones,
  listRecordSets,
  recordSetOrder,
  type FakeAwsAccount,
  type FakeAwsPageSizes,
} from './aws-services.ts';

export type { FakeAwsAccount, FakeHostedZone, FakeInstance, FakeRecordSet, FakeRegion } from './aws-services.ts';

/**
 * A local AWS for the connector tests: one node:http server on 127.0.0.1 that answers STS,
 * Route 53, EC2 and ELBv2 as their API references show, telling the services apart by the
 * SigV4 credential scope of each request (as AWS's own endpoints are told apart by host). Every
 * request must be signed with a known key: the signature is recomputed and checked, and
 * temporary keys need their session token. Switches make it throttle, refuse the credentials,
 * deny an operation or hang one; every request is recorded.
 */

/** A request the server received. */
export interface RecordedAwsRequest {
  service: string;
  region: string;
  operation: string;
  path: string;
  accessKeyId: string | undefined;
  params: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

/** How the server starts. */
export interface FakeAwsOptions {
  account: FakeAwsAccount;
  /** Long-term keys: access key id → secret. */
  keys: Record<string, string>;
  /** The role STS lets the caller assume, and the external ID its trust policy requires. */
  role?: { arn: string; externalId: string };
  pageSizes?: Partial<FakeAwsPageSizes>;
}

interface SessionKey {
  secret: string;
  sessionToken?: string;
}

/** The running server with its switches. */
export interface FakeAws {
  url: string;
  requests: RecordedAwsRequest[];
  /** Temporary access key ids STS issued, in order. */
  issuedKeys: string[];
  /** Answer the next `times` requests (of `operation` when given) with the service's throttling error. */
  throttle(times: number, operation?: string): void;
  /** Answer every request as AWS answers an unknown access key. */
  refuseCredentials: boolean;
  /** Operations answered with the service's access-denied error. */
  denied: Set<string>;
  /** Operations never answered (the connection stays open until the client gives up or the server closes). */
  stalled: Set<string>;
  close(): Promise<void>;
}

const defaultPageSizes: FakeAwsPageSizes = { zones: 100, recordSets: 300, instances: 1000, loadBalancers: 400 };

/** The operation a request asks for: the Action of a query body, or Route 53's REST path. */
function operationOf(service: string, method: string, url: URL, params: URLSearchParams): string {
  if (service !== 'route53') return params.get('Action') ?? '';
  if (method === 'GET' && url.pathname === '/2013-04-01/hostedzone') return 'ListHostedZones';
  if (method === 'GET' && /^\/2013-04-01\/hostedzone\/[^/]+\/rrset$/.test(url.pathname))
    return 'ListResourceRecordSets';
  return `${method} ${url.pathname}`;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Everything a request may read or change. */
interface ServerState {
  options: FakeAwsOptions;
  pageSizes: FakeAwsPageSizes;
  keys: Map<string, SessionKey>;
  throttles: { times: number; operation?: string }[];
  fake: Omit<FakeAws, 'url' | 'close'>;
}

/** SigV4 and session checks, as AWS makes them before looking at the operation. */
function authenticate(
  state: ServerState,
  auth: SigV4Authorization | undefined,
  service: AwsService,
  req: http.IncomingMessage,
  body: Buffer,
): XmlAnswer | undefined {
  if (auth === undefined)
    return failure(service, 403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
  const key = state.keys.get(auth.accessKeyId);
  if (state.fake.refuseCredentials || key === undefined) return invalidKey(service);
  const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
  if (expectedSignature(auth, request, key.secret) !== auth.signature) return badSignature(service);
  if (key.sessionToken !== undefined && req.headers['x-amz-security-token'] !== key.sessionToken)
    return invalidKey(service);
  return undefined;
}

/** STS AssumeRole: the role's trust policy requires the configured external ID. */
function assumeRole(state: ServerState, params: URLSearchParams): XmlAnswer {
  const role = state.options.role;
  const arn = params.get('RoleArn') ?? '';
  if (role === undefined || arn !== role.arn || params.get('ExternalId') !== role.externalId)
    return failure(
      'sts',
      403,
      'AccessDenied',
      `User: arn:aws:iam::111122223333:user/perimeter is not authorized to perform: sts:AssumeRole on resource: ${arn}`,
    );
  const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
  const secret = randomBytes(20).toString('base64');
  const sessionToken = randomBytes(48).toString('base64');
  state.keys.set(accessKeyId, { secret, sessionToken });
  state.fake.issuedKeys.push(accessKeyId);
  const seconds = Number(params.get('DurationSeconds') ?? '3600');
  const expiration = new Date(Date.now() + seconds * 1000).toISOString();
  const session = params.get('RoleSessionName') ?? '';
  const inner =
    `<Credentials>${el('AccessKeyId', accessKeyId)}${el('SecretAccessKey', secret)}${el('SessionToken', sessionToken)}` +
    `${el('Expiration', expiration)}</Credentials>` +
    `<AssumedRoleUser>${el('Arn', `${arn.replace(':iam::', ':sts::').replace(':role/', ':assumed-role/')}/${session}`)}` +
    `${el('AssumedRoleId', `AROA3XFRBF535PLBIFPI4:${session}`)}</AssumedRoleUser><PackedPolicySize>6</PackedPolicySize>`;
  return success('sts', 'AssumeRole', inner);
}

/** The answer of an authenticated, allowed request. */
function answer(
  state: ServerState,
  call: { service: AwsService; operation: string; region: string; url: URL; params: URLSearchParams },
) {
  const { account } = state.options;
  const { service, operation, url, params } = call;
  const zoneId = /^\/2013-04-01\/hostedzone\/([^/]+)\/rrset$/.exec(url.pathname)?.[1];
  switch (`${service} ${operation}`) {
    case 'sts AssumeRole':
      return assumeRole(state, params);
    case 'route53 ListHostedZones':
      return listHostedZones(account, url.searchParams, state.pageSizes.zones);
    case 'route53 ListResourceRecordSets': {
      const zone = account.zones.find((z) => z.id === zoneId);
      if (zone === undefined)
        return failure('route53', 404, 'NoSuchHostedZone', `No hosted zone found with ID: ${zoneId}`);
      return listRecordSets(zone, url.searchParams, state.pageSizes.recordSets);
    }
    case 'ec2 DescribeRegions':
      return describeRegions(account);
  }
  const region = account.regions[call.region];
  // A region the account has not enabled refuses the keys, as AWS does.
  if (region === undefined) return invalidKey(service);
  switch (`${service} ${operation}`) {
    case 'ec2 DescribeAddresses':
      return describeAddresses(region);
    case 'ec2 DescribeInstances':
      return describeInstances(region, params, state.pageSizes.instances);
    case 'elasticloadbalancing DescribeLoadBalancers':
      return describeLoadBalancers(region, params, state.pageSizes.loadBalancers);
  }
  return failure(service, 400, 'InvalidAction', `Could not find operation ${operation}`);
}

function takeThrottle(state: ServerState, operation: string): boolean {
  const t = state.throttles.find((t) => t.times > 0 && (t.operation === undefined || t.operation === operation));
  if (t === undefined) return false;
  t.times -= 1;
  return true;
}

/** Records a request, then answers it (or never, when its operation is stalled). */
async function handle(state: ServerState, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const body = await readBody(req);
  const url = new URL(req.url ?? '/', 'http://local');
  const auth = parseAuthorization(req.headers.authorization);
  const service = (auth?.service ?? (url.pathname.startsWith('/2013-04-01/') ? 'route53' : 'sts')) as AwsService;
  const params = service === 'route53' ? url.searchParams : new URLSearchParams(body.toString('utf8'));
  const operation = operationOf(service, req.method ?? 'GET', url, params);
  const region = auth?.region ?? '';
  const { fake } = state;
  fake.requests.push({
    service,
    region,
    operation,
    path: url.pathname,
    accessKeyId: auth?.accessKeyId,
    params,
    headers: req.headers,
  });
  if (fake.stalled.has(operation)) return;
  const reply =
    authenticate(state, auth, service, req, body) ??
    (fake.denied.has(operation) ? denied(service, operation, 'arn:aws:iam::123456789012:user/reader') : undefined) ??
    (takeThrottle(state, operation) ? throttled(service) : undefined) ??
    answer(state, { service, operation, region, url, params });
  res.writeHead(reply.status, { 'content-type': 'text/xml', ...reply.headers });
  res.end(reply.body);
}

/** Starts the server on 127.0.0.1, port 0. */
export async function startFakeAws(options: FakeAwsOptions): Promise<FakeAws> {
  for (const zone of options.account.zones) zone.recordSets.sort(recordSetOrder);
  const throttles: ServerState['throttles'] = [];
  const state: ServerState = {
    options,
    pageSizes: { ...defaultPageSizes, ...options.pageSizes },
    keys: new Map(Object.entries(options.keys).map(([id, secret]) => [id, { secret }])),
    throttles,
    fake: {
      requests: [],
      issuedKeys: [],
      throttle: (times, operation) => throttles.push({ times, operation }),
      refuseCredentials: false,
      denied: new Set(),
      stalled: new Set(),
    },
  };
  const server = http.createServer((req, res) => void handle(state, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state.fake, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
