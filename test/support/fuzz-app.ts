import assert from 'node:assert/strict';
import type net from 'node:net';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { errorCatalogue, type ErrorCode } from '../../src/core/errors/error-catalogue.ts';
import type { Store } from '../../src/core/store.ts';
import { zoneTransferFailed, type ZoneEngine } from '../../src/core/zones/zone-engine.ts';
import { buildApp } from '../../src/http/app.ts';
import { httpStatusOf } from '../../src/http/error-status.ts';
import { TestDnsServer } from './dns-server.ts';
import { Prng } from './fuzz-inputs.ts';
import { createHarness, type Harness } from './harness.ts';
import { startHttpServer, type TestHttpServer } from './http-server.ts';

// What the fuzz test files (test/integration/fuzz-*.test.ts) share: the run's seed and size, the
// app they fuzz (its store failing on demand, its outbound engines held to loopback), the real
// resources it holds, and the check of an answer's shape against the error catalogue.
//
// Bounded, seeded, loopback only: PERIMETER_FUZZ_SEED and PERIMETER_FUZZ_REQUESTS replay or
// lengthen a run. The engines that reach out (zone transfers, endpoint validation, ownership
// checks) are held to 127.0.0.1, and the DNS resolver is a local test server.
export const seed = Number(process.env['PERIMETER_FUZZ_SEED'] ?? 20261122);
export const injectCount = Number(process.env['PERIMETER_FUZZ_REQUESTS'] ?? 2000);
export const rawCount = Math.ceil(injectCount / 10);

/** One request of the run, kept to report a failure. */
export interface FuzzRequest {
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
 * /rest/v3, else a v2 body, or outside /rest (`isOutsideApi`) the console's not-found page.
 * `isPathUnread`: the server may not have read the path (a request cut short inside its head), so
 * a v2 body is right for a /rest/v3 path too.
 */
export function shapeProblems(
  request: FuzzRequest,
  status: number,
  contentType: string,
  body: string,
  isPathUnread = false,
  isOutsideApi = !/^\/rest(\/|$)/.test(request.url.split('?')[0] ?? ''),
): string[] {
  const problems: string[] = [];
  if (status >= 500 && !request.isFaulty) problems.push(`${status} without an injected fault`);
  if (status >= 500 && request.isFaulty && status !== 500)
    problems.push(`${status} for an injected fault (expected 500)`);
  if (status < 400 || request.method === 'HEAD') return problems;
  // Outside /rest the console answers a path nothing serves with its not-found page (errors the
  // server raises before routing, a malformed URL, keep the v2 body).
  if (isOutsideApi && contentType.startsWith('text/html')) {
    if (status !== 404) problems.push(`console page with HTTP ${status} (expected the not-found page, 404)`);
    if (!body.includes('<h1>Not found</h1>')) problems.push('console answer is not the not-found page');
    return problems;
  }
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

/** The app one fuzz file runs against, and what it holds; read once the file's `before` has run. */
export class FuzzApp {
  h!: Harness;
  dns!: TestDnsServer;
  site!: TestHttpServer;
  app!: FastifyInstance;
  port = 0;
  /** While true, every store call throws (an injected fault). */
  isArmed = false;
  readonly logLines: Array<{ level: number; msg: string; err?: { message?: string } }> = [];
  readonly keys = { v2: '', other: '', v3: '' };
  /** Tokens and ids of real resources by kind, so path parameters name existing things often enough. */
  readonly real: Record<string, string[]> = {};
  readonly rng = new Prng(seed);

  /** Starts the DNS and HTTP servers, the harness with its teams and keys, and the app on loopback. */
  async start(): Promise<void> {
    this.dns = new TestDnsServer();
    await this.dns.start();
    this.site = await startHttpServer({ '/': 'hello' });
    const h = await createHarness({ dnsResolvers: [this.dns.address], endpointValidationTimeoutMs: 1000 });
    this.h = h;
    this.keys.v2 = (await h.team('fuzz')).key;
    this.keys.other = (await h.team('fuzz-other')).key;
    this.keys.v3 = (await h.key('fuzz', '--v3')).key;
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => void this.logLines.push(JSON.parse(line) as FuzzApp['logLines'][number]) },
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
    this.app = await buildApp({
      ...h.runtime,
      logger,
      store: faultyStore(h.runtime.store, () => this.isArmed),
      zoneEngine,
      verification: { checkInBackground: () => undefined } as unknown as typeof h.runtime.verification,
      scanEngine: {
        probe: (endpoint, scope, signal, timeoutMs) =>
          isLoopback(endpoint.host)
            ? h.runtime.scanEngine.probe(endpoint, scope, signal, timeoutMs)
            : Promise.resolve({ isReachable: false, observations: ['the fuzz test reaches loopback only'] }),
      },
    });
    await this.app.listen({ port: 0, host: '127.0.0.1' });
    this.port = (this.app.server.address() as net.AddressInfo).port;
  }

  /** Real resources of every kind, so path parameters name existing things often enough. */
  async addRealResources(): Promise<void> {
    const { h, keys, real, site } = this;
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
  }

  async stop(): Promise<void> {
    await this.app.close();
    await this.h.close();
    await this.site.stop();
    await this.dns.stop();
  }
}

/** Starts the app and its real resources before the file's tests (call inside its describe), stops it after. */
export function useFuzzApp(): FuzzApp {
  const fx = new FuzzApp();
  before(async () => {
    await fx.start();
    await fx.addRealResources();
  });
  after(() => fx.stop());
  return fx;
}
