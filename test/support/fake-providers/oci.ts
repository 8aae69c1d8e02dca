import { createVerify, randomUUID, type KeyObject } from 'node:crypto';
import type http from 'node:http';
import { sendJson, startRecordingServer, type FakeRequest } from './fake-server.ts';

/**
 * Oracle Cloud's DNS (20180115) and Networking (20160918) APIs on 127.0.0.1, answering as the OCI
 * API reference shows for the calls the adapter makes: GET /20180115/zones (ZoneSummary list),
 * GET /20180115/zones/{zoneNameOrId}/records (a RecordCollection: {"items": [...]}) and
 * GET /20160918/publicIps (PublicIp list), each paged by `limit`/`page` with an `opc-next-page`
 * header. Every request must carry a draft-cavage signature (`Signature version="1",keyId=…`)
 * whose keyId is `tenancy/user/fingerprint` and whose RSA-SHA256 signature verifies with the
 * test's public key; otherwise 401 NotAuthenticated. Errors are OCI's {code, message} bodies with
 * an opc-request-id header. A test can throttle (429 TooManyRequests), refuse or forbid (404
 * NotAuthorizedOrNotFound, as OCI answers for a compartment the user may not read).
 */

/** A record as OCI's DNS API returns it. */
export interface FakeOciRecord {
  domain: string;
  rtype: string;
  rdata: string;
  ttl: number;
}

/** A zone of the compartment. */
export interface FakeOciZone {
  name: string;
  records: FakeOciRecord[];
}

/** A public IP of the compartment. */
export interface FakeOciPublicIp {
  displayName: string;
  ipAddress: string;
  lifetime: 'EPHEMERAL' | 'RESERVED';
  lifecycleState?: string;
}

/** The account the server knows. */
export interface FakeOciAccount {
  keyId: string;
  publicKey: KeyObject;
  compartmentId: string;
  zones: FakeOciZone[];
  publicIps: FakeOciPublicIp[];
}

/** The running server and its switches. */
export interface FakeOci {
  url: string;
  account: FakeOciAccount;
  requests: FakeRequest[];
  /** The largest page the server gives, whatever `limit` asks. */
  pageSize: number;
  throttleNext: number;
  refuseCredentials: boolean;
  forbid: boolean;
  /** How many signatures verified (every answered request's). */
  verifiedSignatures: number;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJson(res, status, body, { 'opc-request-id': randomUUID(), ...headers });
}

/** The Authorization header's parameters (`Signature version="1",keyId="…",…`). */
function signatureParams(header: string | undefined): Record<string, string> | undefined {
  if (header === undefined || !header.startsWith('Signature ')) return undefined;
  const params: Record<string, string> = {};
  for (const match of header.slice('Signature '.length).matchAll(/(\w+)="([^"]*)"/g))
    params[match[1] ?? ''] = match[2] ?? '';
  return params;
}

/** Verifies the draft-cavage signature of a request with the account's public key. */
function isSignedBy(req: http.IncomingMessage, account: FakeOciAccount): boolean {
  const params = signatureParams(req.headers.authorization);
  if (params?.keyId !== account.keyId || params.algorithm !== 'rsa-sha256' || params.signature === undefined)
    return false;
  const names = (params.headers ?? '').split(' ');
  if (!names.includes('(request-target)') || !names.includes('host') || !names.includes('x-date')) return false;
  const lines = names.map((name) =>
    name === '(request-target)'
      ? `(request-target): ${(req.method ?? '').toLowerCase()} ${req.url ?? ''}`
      : `${name}: ${String(req.headers[name] ?? '')}`,
  );
  return createVerify('RSA-SHA256').update(lines.join('\n')).verify(account.publicKey, params.signature, 'base64');
}

/** One page of a list, with the opc-next-page header when more remain. */
function page<T>(items: readonly T[], url: URL, pageSize: number): { items: T[]; headers: Record<string, string> } {
  const offset =
    Number(
      Buffer.from(url.searchParams.get('page') ?? '', 'base64url')
        .toString()
        .replace('offset-', ''),
    ) || 0;
  const limit = Math.min(Number(url.searchParams.get('limit') ?? pageSize) || pageSize, pageSize);
  const slice = items.slice(offset, offset + limit);
  const next =
    offset + limit < items.length ? Buffer.from(`offset-${offset + limit}`).toString('base64url') : undefined;
  return { items: slice, headers: next === undefined ? {} : { 'opc-next-page': next } };
}

function zoneId(index: number): string {
  return `ocid1.dns-zone.oc1..aaaaaaaazone${String(index).padStart(8, '0')}`;
}

function zoneSummary(state: FakeOci, zone: FakeOciZone, index: number) {
  return {
    name: zone.name,
    id: zoneId(index),
    compartmentId: state.account.compartmentId,
    viewId: null,
    zoneType: 'PRIMARY',
    scope: 'GLOBAL',
    freeformTags: {},
    definedTags: {},
    systemTags: {},
    self: `${state.url}/20180115/zones/${zoneId(index)}`,
    timeCreated: '2024-03-01T10:00:00.000Z',
    version: '12',
    serial: 12,
    lifecycleState: 'ACTIVE',
    isProtected: false,
    dnssecState: 'DISABLED',
  };
}

const notAuthorized = {
  code: 'NotAuthorizedOrNotFound',
  message: 'Authorization failed or requested resource not found.',
};

function route(state: FakeOci, url: URL, res: http.ServerResponse): void {
  const { account } = state;
  if (url.pathname === '/20180115/zones' || url.pathname === '/20160918/publicIps') {
    if (state.forbid || url.searchParams.get('compartmentId') !== account.compartmentId) {
      send(res, 404, notAuthorized);
      return;
    }
  }
  if (url.pathname === '/20180115/zones') {
    const zones = account.zones.map((z, i) => zoneSummary(state, z, i));
    const p = page(zones, url, state.pageSize);
    send(res, 200, p.items, p.headers);
    return;
  }
  const records = /^\/20180115\/zones\/([^/]+)\/records$/.exec(url.pathname);
  if (records) {
    const key = decodeURIComponent(records[1] ?? '');
    const index = account.zones.findIndex((z, i) => zoneId(i) === key || z.name === key);
    const zone = account.zones[index];
    if (state.forbid || zone === undefined) {
      send(res, 404, notAuthorized);
      return;
    }
    const p = page(
      zone.records.map((r, i) => ({ ...r, recordHash: `h${i}`, isProtected: false, rrsetVersion: '12' })),
      url,
      state.pageSize,
    );
    send(res, 200, { items: p.items }, { ...p.headers, 'opc-total-items': String(zone.records.length), etag: '"12"' });
    return;
  }
  if (url.pathname === '/20160918/publicIps') {
    const lifetime = url.searchParams.get('lifetime');
    const ips = account.publicIps
      .filter((ip) => url.searchParams.get('scope') === 'REGION' && (lifetime === null || ip.lifetime === lifetime))
      .map((ip, i) => ({
        id: `ocid1.publicip.oc1.eu-frankfurt-1.aaaa${ip.lifetime.toLowerCase()}${i}`,
        displayName: ip.displayName,
        ipAddress: ip.ipAddress,
        lifetime: ip.lifetime,
        lifecycleState: ip.lifecycleState ?? 'ASSIGNED',
        scope: 'REGION',
        compartmentId: account.compartmentId,
        assignedEntityType: 'PRIVATE_IP',
        timeCreated: '2024-03-01T10:00:00.000Z',
        freeformTags: {},
        definedTags: {},
      }));
    const p = page(ips, url, state.pageSize);
    send(res, 200, p.items, p.headers);
    return;
  }
  send(res, 404, { code: 'NotAuthorizedOrNotFound', message: 'Not found' });
}

function answer(state: FakeOci, req: http.IncomingMessage, res: http.ServerResponse): void {
  if (state.throttleNext > 0) {
    state.throttleNext -= 1;
    send(res, 429, { code: 'TooManyRequests', message: 'Too many requests for the user' });
    return;
  }
  if (state.refuseCredentials || !isSignedBy(req, state.account)) {
    send(res, 401, {
      code: 'NotAuthenticated',
      message: 'The required information to complete authentication was not provided or was incorrect.',
    });
    return;
  }
  state.verifiedSignatures += 1;
  route(state, new URL(req.url ?? '/', 'http://127.0.0.1'), res);
}

/** Starts the server for one account. */
export async function startFakeOci(account: FakeOciAccount): Promise<FakeOci> {
  const state: FakeOci = {
    url: '',
    account,
    requests: [],
    pageSize: 1000,
    throttleNext: 0,
    refuseCredentials: false,
    forbid: false,
    verifiedSignatures: 0,
    close: () => Promise.resolve(),
  };
  const server = await startRecordingServer(state.requests, (req, res) => answer(state, req, res));
  state.url = server.url;
  state.close = server.close;
  return state;
}
