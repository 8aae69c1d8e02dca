import type { TSchema } from '@sinclair/typebox';
import type { RouteDef } from '../../src/http/route.ts';
import { allRoutes } from '../../src/http/routes.ts';
import { finding, scan, scanTarget } from './findings.ts';
import { createHarness, type Harness } from './harness.ts';
import {
  jiraBody,
  seedConnectors,
  seedImport,
  seedInventory,
  seedJira,
  seedWebhooks,
  walkNucleiLine,
} from './api-walk-v3-seed.ts';
export { seedJira } from './api-walk-v3-seed.ts';

/**
 * A walk over every operation of both surfaces on one seeded team: for each route a success,
 * malformed inputs (each parameter, each body field, wrong types, missing fields, unknown query
 * parameters), a missing key and unknown tokens. Used by the recorded-answers comparison
 * (scripts/record-answers.ts) and by the response-contract test.
 */

export interface WalkRequest {
  /** What the request tries: `success`, `no-key`, `unknown`, `malformed …`. */
  kind: string;
  route: RouteDef;
  method: string;
  url: string;
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The seeded tokens the walk fills paths and bodies with. */
export interface Seed {
  h: Harness;
  v2: string;
  v3: string;
  teamToken: string;
  tokens: Record<string, string>;
}

const t = (day: number, hour = 12) => Date.UTC(2026, 0, day, hour);

/** Sends a seeding request with the walk's key of the surface and fails on anything but a success. */
export type Must = (
  method: string,
  url: string,
  body?: unknown,
  key?: string,
) => Promise<Record<string, unknown> & Array<Record<string, unknown>>>;

/** A fresh harness with one team owning assets, a profile, vulnerabilities, groups, members, patterns, inventory and a connector. */
export async function seedWalk(): Promise<Seed> {
  const h = await createHarness();
  const v2 = (await h.team('walk', { plan: 'enterprise' })).key;
  const v3 = (await h.key('walk', '--v3')).key;
  const team = (await h.runtime.store.teams.findByName('walk'))!;
  const tokens: Record<string, string> = {};
  const must: Must = async (method, url, body, key = url.startsWith('/rest/v3') ? v3 : v2) => {
    const res = await h.send(method, url, { key, ...(body === undefined ? {} : { body }) });
    if (res.statusCode >= 300) throw new Error(`seed ${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json() as Record<string, unknown> & Array<Record<string, unknown>>;
  };
  await seedAssetsAndProfiles(h, must, v2, tokens);
  await seedScanFindings(h, must, tokens);
  await seedMembersAndGroups(must, tokens);
  const reports = (await h.send('GET', `/rest/v2/reports/${tokens['profile']}/`, { key: v2 })).json() as Array<{
    token?: string;
  }>;
  tokens['report'] = String(reports[0]?.token ?? 'b'.repeat(32));
  await seedInventory(h, team.id);
  await seedConnectors(must, tokens);
  await seedWebhooks(must, tokens);
  const seed = { h, v2, v3, teamToken: team.token, tokens };
  await seedImport(seed);
  await seedJira(seed);
  return seed;
}

/** Three root assets, a subdomain asset and two scan profiles. */
async function seedAssetsAndProfiles(
  h: Harness,
  must: Must,
  v2: string,
  tokens: Record<string, string>,
): Promise<void> {
  for (const name of ['example.com', 'other.example', 'gone.example'])
    tokens[name] = String((await must('POST', '/rest/v2/assets/', { name }))['token']);
  const sub = await h.send('POST', '/rest/v2/assets/', { key: v2, body: { name: 'www.example.com' } });
  tokens['www.example.com'] = String((sub.json() as { asset: { token: string } }).asset.token);
  tokens['profile'] = String(
    (await must('POST', '/rest/v2/profiles/', { endpoint: 'https://example.com', unique: true }))['token'],
  );
  tokens['profile2'] = String(
    (await must('POST', '/rest/v2/profiles/', { endpoint: 'https://www.example.com', unique: true }))['token'],
  );
}

/** A scan of example.com under the first profile with three findings, the second one tagged. */
async function seedScanFindings(h: Harness, must: Must, tokens: Record<string, string>): Promise<void> {
  const target = await scanTarget(h, 'walk', 'example.com');
  await scan(
    h,
    target,
    [
      finding('xss', { severity: 'high' }),
      finding('sqli'),
      finding('hsts', { severity: 'low', host: 'www.example.com' }),
    ],
    { profile: tokens['profile'], at: new Date(t(2)) },
  );
  const vulns = (await must('GET', '/rest/v2/vulnerabilities/'))['vulnerabilities'] as Array<{ uuid: string }>;
  tokens['vuln'] = vulns[0]!.uuid;
  tokens['vuln2'] = vulns[1]!.uuid;
  tokens['tag'] = String(
    (await must('POST', `/rest/v2/vulnerabilities/uuid/${tokens['vuln2']}/tags/`, { name: 'walked' }))['uuid'],
  );
}

/** Two members and two groups, the first with a member and two asset patterns. */
async function seedMembersAndGroups(must: Must, tokens: Record<string, string>): Promise<void> {
  await must('POST', '/rest/v2/members/', [
    { email: 'jane@example.com', role: 'Editor' },
    { email: 'joe@example.com', role: 'Viewer' },
  ]);
  const members = (await must('GET', '/rest/v2/members/')) as unknown as Array<{ email: string; user_token: string }>;
  tokens['user'] = members.find((m) => m.email === 'jane@example.com')!.user_token;
  tokens['user2'] = members.find((m) => m.email === 'joe@example.com')!.user_token;
  tokens['group'] = String((await must('POST', '/rest/v2/groups/', { name: 'Walkers', description: 'd' }))['token']);
  tokens['group2'] = String((await must('POST', '/rest/v2/groups/', { name: 'Gone' }))['token']);
  const gm = await must('POST', `/rest/v2/groups/${tokens['group']}/members/`, { userToken: tokens['user'] });
  tokens['groupMember'] = String(gm['token'] ?? gm['group_member_token'] ?? '');
  const ap = await must('POST', `/rest/v2/groups/${tokens['group']}/assetpatterns/`, { pattern: '*.example.com' });
  tokens['pattern'] = String(ap['token']);
  tokens['pattern2'] = String(
    (await must('POST', `/rest/v2/groups/${tokens['group']}/assetpatterns/`, { pattern: 'other.example' }))['token'],
  );
}

/** The seeded value of each path parameter, per operation where one name means different things. */
function paramValue(seed: Seed, def: RouteDef, name: string): string {
  const k = seed.tokens;
  const deleting = def.method === 'DELETE';
  switch (name) {
    case 'assetToken':
      return deleting ? k['gone.example']! : k['example.com']!;
    case 'domainToken':
      return k['example.com']!;
    case 'scanProfileToken':
      return def.operationId === 'deleteScanProfile' ? k['profile2']! : k['profile']!;
    case 'uuid':
      return def.path.startsWith('/domains/') || def.path.startsWith('/findings/')
        ? k['vuln']!
        : deleting
          ? k['vuln2']!
          : k['vuln']!;
    case 'tagUuid':
      return k['tag']!;
    case 'groupToken':
      return def.operationId === 'deleteGroup' ? k['group2']! : k['group']!;
    case 'groupMemberToken':
      return k['groupMember']!;
    case 'assetPatternToken':
      return deleting ? k['pattern2']! : k['pattern']!;
    case 'reportToken':
      return k['report']!;
    case 'lookupJobUUID':
      return '3f0c2a9e-5b1d-4c7e-9a2f-0d4b6e8c1a3f';
    case 'scan_token':
      return k['report']!;
    case 'asset_token':
      return k['example.com']!;
    case 'id':
      if (def.path.startsWith('/webhooks')) return deleting ? k['webhook2']! : k['webhook']!;
      if (def.path.startsWith('/imports')) return k['import']!;
      return deleting ? k['connector2']! : k['connector']!;
    case 'delivery_id':
      return k['delivery']!;
    default:
      throw new Error(`no seeded value for {${name}} of ${def.operationId}`);
  }
}

/** A well-formed value nothing was created under. */
function unknownValue(name: string): string {
  if (/uuid/i.test(name)) return '3f0c2a9e-5b1d-4c7e-9a2f-0d4b6e8c1a3f';
  if (name === 'id') return '987654';
  return 'c'.repeat(32);
}

/** Malformed values of a path parameter. */
function malformedValues(name: string): string[] {
  if (name === 'id') return ['abc', '-1', '1.5'];
  return ['zz', 'A'.repeat(32), '0123456789abcdef0123456789abcdeg', 'not-a-uuid-at-all', '%00'];
}

/** A body each operation accepts. */
function validBody(seed: Seed, def: RouteDef): unknown {
  const k = seed.tokens;
  switch (def.operationId) {
    case 'addAsset':
      return { name: 'added.example' };
    case 'updateAssetSettings':
      return {
        brute_force: false,
        custom_headers: { 'x-walk': '1' },
        enable_active_tls_assessments: true,
        enable_certificate_assessments: true,
        enable_passive_tls_assessments: true,
        enable_tls_discovery: true,
        fingerprinting: true,
        include_discovered_ports_in_surface_monitoring: false,
        monitoring: false,
        requests_per_second: 10,
        scrape: true,
        ssl_audit: false,
        stateless_tests: true,
        subdomain_takeover_tests: true,
        port_scanning_avoid_list: [8080],
        port_scanning_force_list: '8443',
      };
    case 'createScanProfile':
      return { endpoint: 'https://api.example.com', unique: true, name: 'walked' };
    case 'updateScanProfileSettings':
      return {
        blacklisted_paths: ['/logout'],
        requests_per_second: 10,
        custom_headers: [{ name: 'X-Walk', value: '1' }],
        scan_common_ports: false,
        report_lifespan_days: 30,
      };
    case 'setScanSchedule':
      return { frequency: 'weekly', start: '2030-01-01T10:00:00Z' };
    case 'zoneTransfer':
      return { nameServer: '127.0.0.1:9', zone: 'example.com' };
    case 'tagVulnerability':
      return { name: 'second' };
    case 'inviteMembers':
      return [{ email: 'new@example.com', role: 'Admin' }];
    case 'listAssetsOfGroups':
      return [k['group']];
    case 'createGroup':
      return { name: 'Created', description: 'x' };
    case 'updateGroup':
      return { name: 'Walkers', description: 'updated' };
    case 'addGroupMember':
      return { userToken: k['user2'] };
    case 'createAssetPattern':
      return { pattern: 'shop.example.com' };
    case 'updateAssetPattern':
      return { pattern: '*.example.com' };
    case 'legacyAddDomain':
      return { name: 'legacy.example' };
    case 'createConnector':
      return { name: 'created', provider: 'CLOUD_E', options: { token: 'x' } };
    case 'putJiraConnection':
      return jiraBody;
    case 'createWebhook':
      return { name: 'created', url: 'http://127.0.0.1:9/created', events: ['port.opened'] };
    case 'updateWebhook':
      return { name: 'renamed', min_severity: 'high' };
    default:
      return undefined;
  }
}

/** Values of the wrong type for a schema. */
function wrongValues(schema: TSchema): unknown[] {
  const type = schema['type'] as string | undefined;
  if (type === 'string') return [123, true, ['a'], { a: 1 }, '', 'x'.repeat(300)];
  if (type === 'integer' || type === 'number') return ['5', 1.5, -1, 100000, true];
  if (type === 'boolean') return ['true', 1, null];
  if (type === 'array') return ['a', 1, [null], [{}], [123]];
  if (type === 'object') return ['a', 1, [], { bogus: 1 }];
  return ['a', 1, true, [], {}, null];
}

/** Malformed query values tried on every query parameter. */
const badQueryValues = ['x', '', '-1', '0', '1.5', '101', '99999', 'a,b', 'HIGH', '2026-13-45', '%00', 'Zm9v'];

const queryExtras: Record<string, string[]> = {
  listVulnerabilities: [
    '?severity[]=high&severity[]=low',
    '?severity=high,medium',
    '?severity=high&severity=critical',
    '?status[]=new&status[]=bogus',
    '?asset_token[]=ABCDEF',
    '?tag=3f0c2a9e-5b1d-4c7e-9a2f-0d4b6e8c1a3f',
    '?page_size=1',
    '?pageSize=1&page_size=2',
    '?pageSize=1&pageSize=2',
    '?created_after=1700000000',
    '?created_after=2026-01-01T00:00:00%2B0100',
    '?marker=',
    '?marker=bogus',
    '?title[]=Title%20of%20xss',
    '?host[]=APP.example.com',
    '?scan_source[]=application-scanning,bogus',
    '?severityV3=high',
  ],
  listRootAssets: [
    '?include_subdomains=true',
    '?include_subdomains=1',
    '?include_subdomains=TRUE',
    '?pageSize=1',
    '?page_size=1',
    '?from=1700000000',
    '?pageSize=1&pageSize=2',
  ],
  listPorts: ['?status=OPEN,CLOSED', '?port=22,443', '?port=22&port=70000', '?status[]=OPEN'],
  listBreaches: ['?status_updated_after=2020-01-01T00:00:00Z', '?status=NEW'],
  listIps: ['?limit=1', '?limit=1000', '?limit=1001', '?cursor=%20'],
};

/** One route's part of the walk: its filled URL, key and valid body, and where its failure requests go. */
interface RouteWalk {
  seed: Seed;
  def: RouteDef;
  key: string;
  url: string;
  body: unknown;
  /** The valid body, for requests that carry one when the route takes a body. */
  withBody: { body?: unknown };
  /** The URL with some path parameters replaced. */
  fill: (override: Record<string, string>) => string;
  add: (kind: string, request: Omit<WalkRequest, 'kind' | 'route' | 'method'>) => void;
}

/** Every request of the walk, in a fixed order: the successes on the fresh seed (deletions last among them), then the failures. */
export function walkRequests(seed: Seed): WalkRequest[] {
  const out: WalkRequest[] = [];
  const successes: WalkRequest[] = [];
  const deletions: WalkRequest[] = [];
  for (const def of allRoutes()) {
    const w = routeWalk(seed, def, out);
    keyAndPathRequests(w);
    queryRequests(w);
    rawBodyRequests(w);
    bodyFieldRequests(w);
    uploadRequests(w);
    (def.method === 'DELETE' ? deletions : successes).push(successRequest(w));
  }
  return [...successes, ...deletions, ...out];
}

/** The route's URL, key and valid body on the seed; its failure requests go to `out`. */
function routeWalk(seed: Seed, def: RouteDef, out: WalkRequest[]): RouteWalk {
  const base = `/rest/${def.surface}`;
  const fill = (override: Record<string, string> = {}) =>
    base + def.path.replace(/\{(\w+)\}/g, (_m, n: string) => override[n] ?? paramValue(seed, def, n));
  const body = validBody(seed, def);
  return {
    seed,
    def,
    key: def.surface === 'v2' ? seed.v2 : seed.v3,
    url: fill(),
    body,
    withBody: def.body !== undefined ? { body } : {},
    fill,
    add: (kind, request) => out.push({ kind, route: def, method: def.method, ...request }),
  };
}

/** No key, the other surface's key, and each path parameter unknown or malformed. */
function keyAndPathRequests({ seed, def, key, url, withBody, fill, add }: RouteWalk): void {
  add('no-key', { url, ...withBody });
  add('wrong-surface-key', { url, key: def.surface === 'v2' ? seed.v3 : seed.v2 });
  for (const name of [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)) {
    add(`unknown ${name}`, { url: fill({ [name]: unknownValue(name) }), key, ...withBody });
    for (const bad of malformedValues(name)) add(`malformed ${name}`, { url: fill({ [name]: bad }), key, ...withBody });
  }
}

/** An unknown query parameter, each declared one with bad values or twice, and the route's extra queries. */
function queryRequests({ def, key, url, withBody, add }: RouteWalk): void {
  add('unknown query parameter', { url: `${url}?bogus=1`, key, ...withBody });
  const query = def.query as { properties?: Record<string, TSchema> } | undefined;
  for (const name of Object.keys(query?.properties ?? {})) {
    for (const bad of badQueryValues)
      add(`query ${name}`, { url: `${url}?${encodeURIComponent(name)}=${bad}`, key, ...withBody });
    add(`query ${name} twice`, {
      url: `${url}?${encodeURIComponent(name)}=1&${encodeURIComponent(name)}=2`,
      key,
      ...withBody,
    });
  }
  for (const extra of queryExtras[def.operationId] ?? []) add('query', { url: url + extra, key, ...withBody });
}

/** Bodies of a non-GET route: none, empty with a JSON type, malformed JSON, every JSON kind, plain text. */
function rawBodyRequests({ def, key, url, body, add }: RouteWalk): void {
  if (def.method === 'GET' || def.isStreamingBody) return;
  add('body absent', { url, key });
  add('body empty json', { url, key, body: '', headers: { 'content-type': 'application/json' } });
  add('body blank json', { url, key, body: ' \n', headers: { 'content-type': 'application/json' } });
  for (const raw of ['{', '[1,', 'nul', '"text"', 'null', '[]', '42', 'true', '{}', '[{}]', '{"a":1}'] as const)
    add(`body ${raw}`, { url, key, body: raw, headers: { 'content-type': 'application/json' } });
  add('body text/plain', { url, key, body: JSON.stringify(body ?? {}), headers: { 'content-type': 'text/plain' } });
}

/** The valid body with each field wrong, null or missing, or an extra one; an array body with bad items. */
function bodyFieldRequests({ def, key, url, body, add }: RouteWalk): void {
  const bodySchema = def.body as { type?: string; properties?: Record<string, TSchema>; items?: TSchema } | undefined;
  if (bodySchema?.type === 'object' && body !== undefined && typeof body === 'object') {
    for (const [field, schema] of Object.entries(bodySchema.properties ?? {})) {
      const { [field]: _dropped, ...without } = body as Record<string, unknown>;
      add(`body missing ${field}`, { url, key, body: without });
      for (const wrong of wrongValues(schema))
        add(`body ${field} wrong`, { url, key, body: { ...(body as object), [field]: wrong } });
      add(`body ${field} null`, { url, key, body: { ...(body as object), [field]: null } });
    }
    add('body extra field', { url, key, body: { ...(body as object), bogus: 1 } });
  }
  if (bodySchema?.type === 'array' && Array.isArray(body)) {
    add('body array of wrong items', { url, key, body: [1, 'x', null] });
    if (typeof body[0] === 'object')
      add('body array bad item', { url, key, body: [{ ...(body[0] as object), email: 5 }] });
    add('body array empty', { url, key, body: [] });
  }
}

/** An empty and a garbage upload, for a route that streams its body. */
function uploadRequests({ def, key, url, add }: RouteWalk): void {
  if (!def.isStreamingBody) return;
  add('upload empty', { url, key, body: '', headers: { 'content-type': 'text/plain' } });
  add('upload garbage', {
    url: `${url}?origin=example.com`,
    key,
    body: 'this is not a zone\n',
    headers: { 'content-type': 'text/plain' },
  });
}

/** The request that succeeds on the fresh seed (an upload sends a small zone or name list). */
function successRequest({ seed, def, key, url, body }: RouteWalk): WalkRequest {
  const success: WalkRequest = {
    kind: 'success',
    route: def,
    method: def.method,
    // The issue links of one vulnerability: the query names it.
    url: def.operationId === 'listJiraIssues' ? `${url}?vulnerability=${seed.tokens['vuln']}` : url,
    key,
    ...(body === undefined ? {} : { body }),
  };
  if (def.isStreamingBody) {
    success.url =
      def.operationId === 'uploadZoneFile'
        ? `${url}?origin=example.com`
        : def.operationId === 'createImport'
          ? `${url}?format=nuclei`
          : url;
    success.body =
      def.operationId === 'uploadZoneFile'
        ? '$ORIGIN example.com.\n@ 3600 IN A 192.0.2.1\nmail 3600 IN A 192.0.2.2\n'
        : def.operationId === 'createImport'
          ? walkNucleiLine
          : 'lookup.example.com\n';
    success.headers = { 'content-type': 'text/plain' };
  }
  return success;
}

/** Sends one walk request. */
export function sendWalk(seed: Seed, r: WalkRequest) {
  return seed.h.send(r.method, r.url, {
    ...(r.key === undefined ? {} : { key: r.key }),
    ...(r.body === undefined ? {} : { body: r.body }),
    ...(r.headers === undefined ? {} : { headers: r.headers }),
  });
}
