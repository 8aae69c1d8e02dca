import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { errorCatalogue, type ErrorCode } from '../../src/core/errors/error-catalogue.ts';
import type { Store } from '../../src/core/store.ts';
import { zoneTransferFailed, type ZoneEngine } from '../../src/core/zones/zone-engine.ts';
import { buildApp } from '../../src/http/app.ts';
import { httpStatusOf } from '../../src/http/error-status.ts';
import type { RouteDef } from '../../src/http/route.ts';
import { allRoutes } from '../../src/http/routes.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { mutateOne, Prng, randomText, randomZoneText, validValue, type SchemaLike } from '../support/fuzz-inputs.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';
import { parseResponse } from '../support/raw-http.ts';

// Bounded, seeded, loopback only: PERIMETER_FUZZ_SEED and PERIMETER_FUZZ_REQUESTS replay or
// lengthen a run. The engines that reach out (zone transfers, endpoint validation, ownership
// checks) are held to 127.0.0.1, and the DNS resolver is a local test server.
const seed = Number(process.env['PERIMETER_FUZZ_SEED'] ?? 20261122);
const injectCount = Number(process.env['PERIMETER_FUZZ_REQUESTS'] ?? 2000);
const rawCount = Math.ceil(injectCount / 10);
const faultRate = 0.03;

const otherMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const contentTypes = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  '*/*',
  'garbage',
];
const v3Paths = [
  '/ips',
  '/technologies',
  '/ports',
  '/breaches',
  '/connectors',
  '/connectors/{id}',
  '/connectors/external-id',
  '/openapi.json',
];

/** One request of the run, kept to report a failure. */
interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
  isFaulty: boolean;
}

/** A store whose every repository call and transaction throws while `isArmed()` (injected faults). */
function faultyStore(store: Store, isArmed: () => boolean): Store {
  const fail = () => {
    throw new Error('injected fault');
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value === 'function')
        return (...args: unknown[]) =>
          isArmed() ? fail() : (value as (...a: unknown[]) => unknown).apply(target, args);
      if (value === null || typeof value !== 'object') return value;
      return new Proxy(value, {
        get(repo, name, repoReceiver) {
          const method = Reflect.get(repo, name, repoReceiver) as unknown;
          if (typeof method !== 'function') return method;
          return (...args: unknown[]) =>
            isArmed() ? fail() : (method as (...a: unknown[]) => unknown).apply(repo, args);
        },
      });
    },
  });
}

const isLoopback = (host: string) => /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1' || host === '[::1]';

/**
 * Every problem with one answer, empty when it is in the catalogue's shape: a v3 problem under
 * /rest/v3, else a v2 body. `isPathUnread`: the server may not have read the path (a request
 * cut short inside its head), so a v2 body is right for a /rest/v3 path too.
 */
function shapeProblems(
  request: FuzzRequest,
  status: number,
  contentType: string,
  body: string,
  isPathUnread = false,
): string[] {
  const problems: string[] = [];
  if (status >= 500 && !request.isFaulty) problems.push(`${status} without an injected fault`);
  if (status >= 500 && request.isFaulty && status !== 500)
    problems.push(`${status} for an injected fault (expected 500)`);
  if (status < 400 || request.method === 'HEAD') return problems;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return [...problems, `error body is not JSON: ${body.slice(0, 120)}`];
  }
  const path = request.url.split('?')[0] ?? '';
  if (path.startsWith('/rest/v3') && !(isPathUnread && 'code' in json)) {
    if (!contentType.startsWith('application/problem+json')) problems.push(`v3 error with Content-Type ${contentType}`);
    const keys = Object.keys(json).sort().join(',');
    if (keys !== 'detail,instance,status,title,type') problems.push(`v3 problem keys ${keys}`);
    for (const field of ['type', 'title', 'detail', 'instance'])
      if (typeof json[field] !== 'string') problems.push(`v3 problem ${field} is not a string`);
    if (json['status'] !== status) problems.push(`v3 problem status ${String(json['status'])} for HTTP ${status}`);
    return problems;
  }
  if (!contentType.startsWith('application/json')) problems.push(`v2 error with Content-Type ${contentType}`);
  const code = json['code'];
  if (typeof code !== 'number' || !(code in errorCatalogue))
    return [...problems, `v2 code ${String(code)} is not in the catalogue`];
  if (httpStatusOf[code as ErrorCode] !== status) problems.push(`v2 code ${code} answered with HTTP ${status}`);
  if (typeof json['message'] !== 'string' || json['message'] === '')
    problems.push('v2 message is not a non-empty string');
  const parameters = json['parameters'];
  if (parameters !== undefined && (!Array.isArray(parameters) || parameters.some((p) => typeof p !== 'string')))
    problems.push('v2 parameters is not an array of strings');
  const mirror = json['error'] as Record<string, unknown> | undefined;
  if (
    mirror?.['code'] !== code ||
    mirror['message'] !== json['message'] ||
    mirror['more_info'] !== `/docs#error-${code}`
  )
    problems.push('v2 error mirror does not match');
  if (request.isFaulty && status === 500 && code !== 1910) problems.push(`injected fault answered ${code}, not 1910`);
  return problems;
}

describe(`fuzzing every route (${testStore}, seed ${seed})`, () => {
  let h: Harness;
  let dns: TestDnsServer;
  let site: TestHttpServer;
  let app: FastifyInstance;
  let port = 0;
  let isArmed = false;
  const logLines: Array<{ level: number; msg: string; err?: { message?: string } }> = [];
  const keys = { v2: '', other: '', v3: '' };
  const real: Record<string, string[]> = {};
  const rng = new Prng(seed);

  before(async () => {
    dns = new TestDnsServer();
    await dns.start();
    site = await startHttpServer({ '/': 'hello' });
    h = await createHarness({ dnsResolvers: [dns.address], endpointValidationTimeoutMs: 1000 });
    keys.v2 = (await h.team('fuzz')).key;
    keys.other = (await h.team('fuzz-other')).key;
    keys.v3 = (await h.key('fuzz', '--v3')).key;
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => void logLines.push(JSON.parse(line) as (typeof logLines)[number]) },
    );
    const engine = h.runtime.zoneEngine;
    const zoneEngine: ZoneEngine = {
      ...engine,
      transferZone: (server, zone, signal) =>
        isLoopback(server.host)
          ? engine.transferZone(server, zone, signal)
          : (async function* () {
              yield* [];
              throw zoneTransferFailed('denied', zone, server, 'the fuzz test reaches loopback only');
            })(),
    };
    app = await buildApp({
      ...h.runtime,
      logger,
      store: faultyStore(h.runtime.store, () => isArmed),
      zoneEngine,
      verification: { checkInBackground: () => undefined } as unknown as typeof h.runtime.verification,
      scanEngine: {
        probe: (endpoint, scope, signal, timeoutMs) =>
          isLoopback(endpoint.host)
            ? h.runtime.scanEngine.probe(endpoint, scope, signal, timeoutMs)
            : Promise.resolve({ isReachable: false, observations: ['the fuzz test reaches loopback only'] }),
      },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;

    // Real resources of every kind, so path parameters name existing things often enough.
    const send = (method: string, url: string, body?: unknown) =>
      h.send(method, url, { key: keys.v2, ...(body === undefined ? {} : { body }) });
    for (const name of ['example.test', '127.0.0.1', 'second.test'])
      real['asset'] = [
        ...(real['asset'] ?? []),
        (await send('POST', '/rest/v2/assets/', { name })).json().token as string,
      ];
    await h.admin('asset', 'verify', 'example.test', '--team', 'fuzz');
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'fuzz');
    real['asset']!.push(
      (await send('POST', '/rest/v2/assets/', { name: 'www.example.test' })).json().asset.token as string,
    );
    await send(
      'POST',
      '/rest/v2/zone/file/?origin=example.test',
      '$TTL 300\n@ IN SOA ns1 hm 1 2 3 4 5\nns1 IN A 192.0.2.1\napi IN A 192.0.2.2\n',
    );
    const profile = await send('POST', '/rest/v2/profiles/', {
      asset_token: real['asset']![1],
      endpoint: `127.0.0.1:${site.port}`,
    });
    assert.equal(profile.statusCode, 200, profile.body);
    real['profile'] = [profile.json().token as string];
    const group = (await send('POST', '/rest/v2/groups/', { name: 'fuzzers' })).json();
    real['group'] = [group.token as string];
    real['pattern'] = [
      (await send('POST', `/rest/v2/groups/${group.token}/assetpatterns/`, { pattern: '*.example.test' })).json()
        .token as string,
    ];
    await send('POST', '/rest/v2/members/', [{ email: 'fuzz@example.test', role: 'Editor' }]);
    const users = (await send('GET', '/rest/v2/members/')).json() as Array<{ user_token: string }>;
    real['user'] = users.map((u) => u.user_token);
    real['groupMember'] = [];
    for (const user of users) {
      const member = await send('POST', `/rest/v2/groups/${group.token}/members/`, { userToken: user.user_token });
      if (member.statusCode === 200) real['groupMember'].push(member.json().token as string);
    }
    await h.admin('seed', '--team', 'fuzz', '--vulnerabilities', '5');
    const vulnerabilities = (await send('GET', '/rest/v2/vulnerabilities/')).json().vulnerabilities as Array<{
      uuid: string;
    }>;
    real['vulnerability'] = vulnerabilities.map((v) => v.uuid);
    real['tag'] = [
      (await send('POST', `/rest/v2/vulnerabilities/uuid/${real['vulnerability'][0]}/tags/`, { name: 'fuzzed' })).json()
        .uuid as string,
    ];
    real['lookup'] = [
      (await send('POST', '/rest/v2/zone/lookup/file/', 'www.example.test\napi.example.test\n')).json()
        .lookup_job_uuid as string,
    ];
  });
  after(async () => {
    await app.close();
    await h.close();
    await site.stop();
    await dns.stop();
  });

  const realFor: Record<string, string> = {
    assetToken: 'asset',
    domainToken: 'asset',
    scanProfileToken: 'profile',
    groupToken: 'group',
    assetPatternToken: 'pattern',
    groupMemberToken: 'groupMember',
    uuid: 'vulnerability',
    tagUuid: 'tag',
    lookupJobUUID: 'lookup',
    reportToken: 'profile',
    asset_token: 'asset',
    domain_token: 'asset',
    exclude_asset_token: 'asset',
    scan_profile_token: 'profile',
    group_token: 'group',
    tag: 'tag',
    exclude_tag: 'tag',
    userToken: 'user',
    body: 'group',
  };

  /** Valid values of fields the schemas leave open: real tokens, loopback servers, zones the team has. */
  const known = (field: string): string | undefined => {
    const pool = real[realFor[field] ?? ''];
    if (pool !== undefined && pool.length > 0) return rng.pick(pool);
    const fixed: Record<string, () => string> = {
      endpoint: () => `127.0.0.1:${site.port}`,
      nameServer: () => dns.address,
      zone: () => 'example.test',
      origin: () => 'example.test',
      pattern: () => rng.pick(['*.example.test', 'api.*.example.test', '192.0.2.0/24']),
      email: () => `${rng.hex(6)}@example.test`,
      marker: () => '',
      from: () => String(Math.floor(Date.now() / 1000) - rng.int(0, 1e6)),
      to: () => String(Math.floor(Date.now() / 1000)),
      severity: () => rng.pick(['high', 'medium', 'low', 'information']),
      host: () => rng.pick(['www.example.test', 'example.test', '127.0.0.1']),
      title: () => 'fuzz',
      include_subdomains: () => rng.pick(['true', 'false']),
    };
    return (
      fixed[field]?.() ??
      (/_(before|after)$/.test(field) ? new Date(Date.now() - rng.int(0, 1e9)).toISOString() : undefined)
    );
  };

  function safeEncode(text: string): string {
    try {
      return encodeURIComponent(text);
    } catch {
      return '%ED%A0%80'; // a lone surrogate, as a client that does not check would send it
    }
  }

  /** A hostile path parameter: garbage, sometimes as a raw (possibly malformed) escape sequence. */
  function hostileParam(): string {
    const roll = rng.next();
    if (roll < 0.15) return rng.hex(32);
    if (roll < 0.25) return rng.uuid();
    const text = randomText(rng);
    return /^[\w.%-]*$/.test(text) ? text : safeEncode(text);
  }

  function queryOf(def: RouteDef | undefined, isTarget: boolean): string {
    const props = (def?.query as SchemaLike | undefined)?.properties ?? {};
    const values = new Map<string, unknown>();
    for (const [name, schema] of Object.entries(props))
      if (rng.chance(0.3)) values.set(name, validValue(rng, schema, name.replace(/\[\]$/, ''), known));
    if (isTarget) {
      const names = Object.keys(props);
      const name = names.length > 0 && rng.chance(0.85) ? rng.pick(names) : randomText(rng).slice(0, 12);
      values.set(name, rng.chance(0.8) ? randomText(rng) : [randomText(rng), randomText(rng)]);
    }
    const parts = [...values].flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map(
        (v) => `${safeEncode(name)}=${safeEncode(typeof v === 'string' ? v : JSON.stringify(v))}`,
      ),
    );
    if (isTarget && rng.chance(0.15))
      parts.push(
        rng.pick(['%', '%ZZ=1', '&&', 'a[]=1&a=2', 'pageSize=1&pageSize=2', 'marker=%00', '=x', 'pageSize=1e3']),
      );
    return parts.length === 0 ? '' : `?${parts.join('&')}`;
  }

  function bodyOf(def: RouteDef | undefined, isTarget: boolean): string | undefined {
    if (def?.rawBody !== undefined)
      return isTarget ? randomZoneText(rng) + (rng.chance(0.3) ? `\n${randomText(rng)}` : '') : randomZoneText(rng);
    const valid = validValue(rng, def?.body as SchemaLike | undefined, 'body', known);
    if (!isTarget) return def?.body === undefined && rng.chance(0.7) ? undefined : JSON.stringify(valid);
    const roll = rng.next();
    if (roll < 0.1)
      return rng.pick([
        '',
        '{',
        '{"a":',
        'null',
        '[]',
        '""',
        '\u0000',
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{}}}',
        JSON.stringify(valid).slice(0, -1),
      ]);
    return JSON.stringify(mutateOne(rng, valid));
  }

  function headersOf(surface: 'v2' | 'v3', isTarget: boolean): Record<string, string> {
    const headers: Record<string, string> = {};
    const own = surface === 'v3' ? keys.v3 : keys.v2;
    const roll = rng.next();
    const key = !isTarget
      ? own
      : roll < 0.2
        ? keys.other
        : roll < 0.35
          ? surface === 'v3'
            ? keys.v2
            : keys.v3
          : roll < 0.6
            ? rng.hex(rng.pick([31, 32, 33]))
            : roll < 0.75
              ? own
              : undefined;
    if (key !== undefined) {
      if (surface === 'v3') headers['authorization'] = rng.chance(0.8) ? key : `Bearer ${key}`;
      else if (rng.chance(0.85)) headers['x-service-key'] = key;
      else headers['authorization'] = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    }
    headers['content-type'] = isTarget && rng.chance(0.5) ? rng.pick(contentTypes) : 'application/json';
    if (!isTarget) return headers;
    if (rng.chance(0.2))
      headers['authorization'] = rng.pick([
        'Basic',
        'Basic !!!',
        'Bearer',
        'Digest x',
        `Basic ${Buffer.from(':').toString('base64')}`,
        `Basic ${Buffer.from(`${rng.hex(32)}:`).toString('base64')}`,
      ]);
    if (rng.chance(0.2)) {
      headers['x-service-signature'] = rng.pick(['', 'AAAA', rng.hex(44)]);
      headers['x-service-timestamp'] = rng.pick(['', '0', String(Math.floor(Date.now() / 1000)), 'yesterday', '1e12']);
    }
    if (rng.chance(0.2)) headers['x-request-id'] = rng.pick(['ok-1', 'bad id', 'a'.repeat(200), '']);
    return headers;
  }

  const targets = ['param', 'query', 'body', 'body', 'header', 'method', 'path', 'none'] as const;

  /** A valid request to a real operation, with one part made hostile. */
  function nextRequest(routes: RouteDef[]): FuzzRequest {
    const isV3 = rng.chance(0.06);
    const def = isV3 ? undefined : rng.pick(routes);
    const surface = isV3 ? 'v3' : 'v2';
    const target = rng.pick(targets);
    let path = isV3 ? rng.pick(v3Paths) : rng.pick([def!.path, ...(def!.aliases ?? [])]);
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const hostile = target === 'param' && names.length > 0 ? rng.pick(names) : undefined;
    path = path.replace(/\{(\w+)\}/g, (_, name: string) =>
      name === hostile ? hostileParam() : (known(name) ?? rng.hex(32)),
    );
    let prefix = `/rest/${surface}`;
    if (target === 'path') {
      const mutation = rng.next();
      if (mutation < 0.3) path = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
      else if (mutation < 0.45) path = path.toUpperCase();
      else if (mutation < 0.6) path = path.replace('/', '//');
      else if (mutation < 0.8) path = `${path}${safeEncode(randomText(rng))}/`;
      else prefix = rng.pick(['/rest/v1', '/rest/v3', '/rest/v2x', '/rest', '', '/REST/v2']);
    }
    const methods = def === undefined ? ['GET'] : [def.method, ...(def.alsoMethods ?? [])];
    const method = target === 'method' ? rng.pick(otherMethods) : rng.pick(methods);
    const isFaulty = rng.chance(faultRate);
    const payload = method === 'GET' || method === 'HEAD' ? undefined : bodyOf(def, target === 'body');
    return {
      method,
      url: `${prefix}${path}${queryOf(def, target === 'query')}`,
      headers: headersOf(surface, target === 'header'),
      payload,
      isFaulty,
    };
  }

  /** Sends one request (faults armed when it says so) and returns what was wrong with the answer. */
  async function answerProblems(request: FuzzRequest): Promise<{ status: number; problems: string[]; body: string }> {
    isArmed = request.isFaulty;
    let res;
    try {
      res = await app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: request.headers,
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      });
    } finally {
      isArmed = false;
    }
    return {
      status: res.statusCode,
      problems: shapeProblems(request, res.statusCode, String(res.headers['content-type'] ?? ''), res.body),
      body: res.body,
    };
  }

  it(
    'answers every field of every operation set to each hostile value through the catalogue, without a 5xx',
    { timeout: 120_000 },
    async () => {
      const hostileTexts = ['\u0000', 'a\u0000b', 'x'.repeat(3000), '\uD800😀é', '%ZZ%00', ''];
      const hostileJson: unknown[] = [...hostileTexts, 2 ** 64, -1, null, ['a'], { a: 1 }];
      const failures: string[] = [];
      let count = 0;
      const check = async (request: FuzzRequest, what: string) => {
        count += 1;
        const { status, problems, body } = await answerProblems(request);
        if (problems.length > 0)
          failures.push(
            `${what}: ${problems.join('; ')}\n  ${JSON.stringify(request).slice(0, 400)}\n  → ${status} ${body.slice(0, 300)}`,
          );
      };
      for (const def of allRoutes()) {
        const base = `/rest/${def.surface}`;
        const names = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
        const pathWith = (name?: string, value?: string) =>
          def.path.replace(/\{(\w+)\}/g, (_, n: string) => (n === name ? value! : (known(n) ?? rng.hex(32))));
        const headers = { 'x-service-key': keys.v2, 'content-type': 'application/json' };
        const body = () =>
          def.rawBody !== undefined
            ? 'www.example.test\n'
            : def.body === undefined
              ? undefined
              : JSON.stringify(validValue(rng, def.body as SchemaLike, 'body', known));
        const request = (url: string, payload: string | undefined): FuzzRequest => ({
          method: def.method,
          url,
          headers,
          payload,
          isFaulty: false,
        });
        for (const name of names) {
          for (const text of hostileTexts)
            await check(
              request(`${base}${pathWith(name, safeEncode(text))}`, body()),
              `${def.method} ${def.path} param ${name}`,
            );
        }
        for (const name of Object.keys((def.query as SchemaLike | undefined)?.properties ?? {})) {
          for (const text of hostileTexts)
            await check(
              request(`${base}${pathWith()}?${safeEncode(name)}=${safeEncode(text)}`, body()),
              `${def.method} ${def.path} query ${name}`,
            );
        }
        if (def.rawBody !== undefined) {
          for (const text of hostileTexts)
            await check(
              request(
                `${base}${pathWith()}${def.path.startsWith('/zone/file') ? '?origin=example.test' : ''}`,
                `www.example.test\n${text}\n`,
              ),
              `${def.method} ${def.path} body`,
            );
          continue;
        }
        if (def.body === undefined) continue;
        const valid = validValue(rng, def.body as SchemaLike, 'body', known);
        for (const leaf of leafPaths(valid)) {
          for (const value of hostileJson)
            await check(
              request(`${base}${pathWith()}`, JSON.stringify(setAt(valid, leaf, value))),
              `${def.method} ${def.path} body ${leaf.join('.')}`,
            );
        }
      }
      assert.ok(count > 1000, `only ${count} requests`);
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} bad answers of ${count}`);
    },
  );

  it(
    `answers ${injectCount} fuzzed requests without a 5xx (but injected faults) and always in the catalogue's shape`,
    { timeout: 120_000 },
    async () => {
      const routes = allRoutes();
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      let faults = 0;
      for (let i = 0; i < injectCount; i += 1) {
        const request = nextRequest(routes);
        const { status, problems, body } = await answerProblems(request);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status >= 500) faults += 1;
        if (problems.length > 0)
          failures.push(
            `#${i} ${problems.join('; ')}\n  ${JSON.stringify(request)}\n  → ${status} ${body.slice(0, 300)}`,
          );
      }
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} bad answers (seed ${seed})`);
      // The run reached past authentication and validation, not only 401s and 404s.
      assert.ok((statuses.get(200) ?? 0) > injectCount / 20, `statuses: ${JSON.stringify([...statuses])}`);
      assert.ok((statuses.get(400) ?? 0) > injectCount / 20, `statuses: ${JSON.stringify([...statuses])}`);
      assert.ok(faults > 0, 'some injected faults reached the store');
      const unexpected = logLines.filter((l) => l.level >= 50 && l.err?.message !== 'injected fault');
      assert.deepEqual(unexpected.slice(0, 5), [], 'error-level log lines other than the injected faults');
      assert.deepEqual(logLines.filter((l) => l.level === 40).slice(0, 5), [], 'warn-level log lines');
    },
  );

  it(
    `answers ${rawCount} requests mangled byte by byte on loopback sockets with a catalogue body`,
    { timeout: 60_000 },
    async () => {
      const failures: string[] = [];
      const templates = [
        () =>
          `GET /rest/v2/assets/${rng.pick(real['asset']!)}/subdomains/?pageSize=5 HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys.v2}\r\nConnection: close\r\n\r\n`,
        () =>
          `POST /rest/v2/groups/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys.v2}\r\nContent-Type: application/json\r\nContent-Length: 16\r\nConnection: close\r\n\r\n{"name":"fuzz"}\n`,
        () =>
          `POST /rest/v2/zone/lookup/file/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys.v2}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n11\r\nwww.example.test\n\r\n0\r\n\r\n`,
        () => `GET /rest/v3/ips?limit=5 HTTP/1.1\r\nHost: x\r\nAuthorization: ${keys.v3}\r\nConnection: close\r\n\r\n`,
        () =>
          `DELETE /rest/v2/groups/${rng.hex(32)}/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys.v2}\r\nConnection: close\r\n\r\n`,
      ];
      const oddBytes = [0x00, 0x01, 0x0a, 0x0d, 0x20, 0x25, 0x7f, 0x80, 0xff, 0x3a, 0x2f];
      for (let i = 0; i < rawCount; i += 1) {
        const bytes = Buffer.from(rng.pick(templates)(), 'latin1');
        let mangled: Buffer = bytes;
        for (let n = rng.int(1, 3); n > 0; n -= 1) {
          const at = rng.int(0, mangled.length - 1);
          const roll = rng.next();
          if (roll < 0.5) mangled[at] = rng.chance(0.6) ? rng.pick(oddBytes) : rng.int(0, 255);
          else if (roll < 0.75)
            mangled = Buffer.concat([mangled.subarray(0, at), Buffer.from([rng.pick(oddBytes)]), mangled.subarray(at)]);
          else mangled = Buffer.concat([mangled.subarray(0, at), mangled.subarray(at + 1)]);
        }
        const outcome = await exchangeOnce(port, mangled);
        const text = mangled.toString('latin1');
        // Node skips empty lines before the request line, and so does the answer's surface.
        const path = /^(?:\r?\n)*\S+ (\/\S*)/.exec(text)?.[1] ?? '';
        if (outcome.response === undefined) {
          // Only a request still incomplete when the client closed may go unanswered.
          if (outcome.errorCode !== undefined)
            failures.push(`#${i} ${outcome.errorCode} without an answer: ${JSON.stringify(text.slice(0, 200))}`);
          continue;
        }
        const request: FuzzRequest = {
          method: text.split(' ')[0] ?? '',
          url: path.startsWith('/rest/v3') ? path : `/rest/v2${path}`,
          headers: {},
          payload: undefined,
          isFaulty: false,
        };
        const { status, headers, body } = outcome.response;
        const isHeadComplete = text.includes('\r\n\r\n') || text.includes('\n\n');
        const problems = shapeProblems(request, status, headers['content-type'] ?? '', body, !isHeadComplete);
        if (problems.length > 0)
          failures.push(
            `#${i} ${problems.join('; ')}\n  ${JSON.stringify(text.slice(0, 300))}\n  → ${status} ${body.slice(0, 200)}`,
          );
      }
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} bad answers (seed ${seed})`);
    },
  );
});

/** Paths (keys and indexes) of every leaf of a JSON value, the value itself when it has none. */
function leafPaths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return [at];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  if (entries.length === 0) return [at];
  return entries.flatMap(([key, v]) => leafPaths(v, [...at, key]));
}

/** A copy of the value with the leaf at the path replaced. */
function setAt(value: unknown, path: Array<string | number>, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<
    string | number,
    unknown
  >;
  copy[head!] = setAt(copy[head!], rest, leaf);
  return copy;
}

/**
 * Sends the bytes, half-closes, and reads the first response (or none). A reset is reported:
 * the server answers and closes cleanly, or keeps waiting for the rest of an incomplete request.
 */
function exchangeOnce(
  port: number,
  bytes: Buffer,
): Promise<{ response: ReturnType<typeof parseResponse>; errorCode: string | undefined }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    let errorCode: string | undefined;
    const done = () => resolve({ response: parseResponse(raw), errorCode });
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.on('data', (d) => {
      raw += d.toString('latin1');
      if (parseResponse(raw) !== undefined) socket.destroy();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (errorCode ??= err.code));
    socket.on('close', () => {
      clearTimeout(timer);
      done();
    });
    socket.end(bytes);
  });
}
