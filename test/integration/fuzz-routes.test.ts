import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouteDef } from '../../src/http/route.ts';
import { allRoutes } from '../../src/http/routes.ts';
import { injectCount, seed, shapeProblems, useFuzzApp, type FuzzRequest } from '../support/fuzz-app.ts';
import { mutateOne, randomText, randomZoneText, validValue, type SchemaLike } from '../support/fuzz-inputs.ts';
import { testStore } from '../support/harness.ts';

// Fuzzing every route through the app (in process, `inject`): every field of every operation set
// to each hostile value, then PERIMETER_FUZZ_REQUESTS seeded requests with one part made hostile
// and store faults injected. Every answer must be in the catalogue's shape, with no 5xx but the
// injected faults, and no error or warning logged but theirs. The app, its real resources and the
// shape check are in test/support/fuzz-app.ts; the raw-socket fuzzing is in fuzz-raw-sockets.test.ts.

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

describe(`fuzzing every route (${testStore}, seed ${seed})`, () => {
  const fx = useFuzzApp();
  const { keys, logLines, real, rng } = fx;

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
      endpoint: () => `127.0.0.1:${fx.site.port}`,
      nameServer: () => fx.dns.address,
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
    fx.isArmed = request.isFaulty;
    let res;
    try {
      res = await fx.app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: request.headers,
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      });
    } finally {
      fx.isArmed = false;
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
