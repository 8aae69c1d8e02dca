import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { runAdmin } from '../../src/cli/admin.commands.ts';
import { defaultConfig, type Config } from '../../src/config/config.ts';
import { computeSignature } from '../../src/core/teams/api-key.service.ts';
import { buildApp } from '../../src/http/app.ts';
import type { JobQueue } from '../../src/jobs/job-queue.ts';
import { bossSchemaOf } from '../../src/storage/job-queue/pgboss-job-store.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { openDatabase, type Database } from '../../src/storage/database.ts';
import { TestDnsServer } from './dns-server.ts';

/** Which store the integration suite runs on: PERIMETER_TEST_STORE=postgres, else SQLite. */
export const testStore: 'sqlite' | 'postgres' =
  process.env['PERIMETER_TEST_STORE'] === 'postgres' ? 'postgres' : 'sqlite';
/** The PostgreSQL server of the tests (its database; each test store has a schema of its own). */
export const postgresTestUrl = process.env['PERIMETER_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The test runner's tag of this run (PostgreSQL): it drops the run's schemas at the end. */
const testRun = process.env['PERIMETER_TEST_RUN'];

/** A fresh PostgreSQL schema name for one test file's store: `<kind>_<run>_<pid>_<random>`. */
export function testSchemaName(kind: string): string {
  return `${kind}_${testRun ?? 'x'}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

/** Opens the test store of a data folder (SQLite) or a schema (PostgreSQL), as any process of a test would. */
export function openTestDatabase(dataDir: string, schema: string): Promise<Database> {
  return testStore === 'postgres'
    ? openDatabase({ databaseUrl: postgresTestUrl, dataDir, pgSchema: schema, poolSize: 4 })
    : openDatabase({ dataDir });
}

/**
 * The test store as a process's configuration names it: what a thread of the process (webhook
 * deliveries) opens beside the database the test hands the runtime.
 */
export function testStoreConfig(
  dataDir: string,
  schema: string,
): Pick<Config, 'dataDir' | 'databaseUrl' | 'databaseSchema'> {
  return testStore === 'postgres'
    ? { dataDir, databaseUrl: postgresTestUrl, databaseSchema: schema }
    : { dataDir, databaseUrl: undefined, databaseSchema: undefined };
}

/** Options of a request sent through inject(). */
export interface SendOptions {
  /** v2 key sent as X-Service-Key, or v3 key sent as Authorization. */
  key?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or Buffer as is. */
  body?: unknown;
  /** Signs the request with this secret (v2). */
  secret?: string;
  timestamp?: number;
  /** The relative URL the signature covers; by default the URL as sent, minus `/rest`. */
  signedPath?: string;
}

/** A created key. */
export interface TestKey {
  key: string;
  secret?: string;
}

/** A running server on a fresh store, with helpers to set up teams and send requests. */
export interface Harness {
  app: FastifyInstance;
  runtime: Runtime;
  config: Config;
  /** The runtime's job queue (not worked unless a test calls work()). */
  jobs: JobQueue;
  /** PostgreSQL schema of this harness (unused on SQLite). */
  schema: string;
  /** Opens a second connection pool on the same store, as another process would; the caller closes it. */
  openDatabase(): Promise<Database>;
  send(method: string, url: string, options?: SendOptions): Promise<LightMyRequestResponse>;
  /** Runs `perimeter admin …` and returns what it printed. */
  admin(...argv: string[]): Promise<string>;
  /** Creates a team and a v2 key (JSON through the CLI); returns the key. */
  team(name: string, options?: { plan?: string }): Promise<TestKey>;
  key(team: string, ...flags: string[]): Promise<TestKey>;
  close(): Promise<void>;
}

/** Starts a harness on a fresh database (a temp SQLite file or a fresh PostgreSQL schema). */
export async function createHarness(overrides: Partial<Config> = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-test-'));
  const schema = testSchemaName('t');
  // DNS goes to a server on loopback, never to the system's resolver: a harness whose test names
  // no resolver gets one that answers NXDOMAIN for every name (ownership checks of added assets ask it).
  const dns = overrides.dnsResolvers === undefined ? new TestDnsServer() : undefined;
  await dns?.start();
  const config = testConfig(dataDir, schema, dns, overrides);
  const database = await openTestDatabase(dataDir, schema);
  const log = pino({ level: process.env['TEST_LOG'] ?? 'silent' });
  const runtime = await openRuntime(config, { database, log });
  const app = await buildApp({ ...runtime, logger: log });

  const harness: Harness = {
    app,
    runtime,
    config,
    jobs: runtime.jobs,
    schema,
    openDatabase: () => openTestDatabase(dataDir, schema),
    send: (method, url, options = {}) => injectRequest(app, method, url, options),
    async admin(...argv) {
      const lines: string[] = [];
      await runAdmin(runtime, ['admin', ...argv].slice(1), { out: (t) => lines.push(t) });
      return lines.join('\n');
    },
    async team(name, options = {}) {
      await harness.admin('team', 'create', name, '--json', ...(options.plan ? ['--plan', options.plan] : []));
      return harness.key(name);
    },
    async key(team, ...flags) {
      return JSON.parse(await harness.admin('key', 'create', '--team', team, '--json', ...flags)) as TestKey;
    },
    async close() {
      await app.close();
      await runtime.close();
      await dns?.stop();
      await removeTestStore(dataDir, schema, database);
    },
  };
  return harness;
}

/** The configuration of a harness: loopback egress only, silent logs, the test DNS server unless the test names resolvers. */
function testConfig(
  dataDir: string,
  schema: string,
  dns: TestDnsServer | undefined,
  overrides: Partial<Config>,
): Config {
  return {
    ...defaultConfig,
    ...testStoreConfig(dataDir, schema),
    egressAllow: ['127.0.0.0/8', '::1/128'],
    logLevel: 'silent',
    verifyTimeoutMs: 5000,
    ...(dns === undefined ? {} : { dnsResolvers: [dns.address] }),
    ...overrides,
  };
}

/** Sends a request through inject(): a JSON body, the key where the surface reads it, a v2 signature when asked. */
async function injectRequest(
  app: FastifyInstance,
  method: string,
  url: string,
  options: SendOptions,
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let payload: string | Buffer | undefined;
  if (options.body !== undefined) {
    payload =
      typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.key !== undefined) {
    if (url.startsWith('/rest/v3')) headers['authorization'] ??= options.key;
    else headers['x-service-key'] ??= options.key;
  }
  if (options.secret !== undefined && options.key !== undefined)
    signRequest(headers, method, url, { ...options, secret: options.secret, key: options.key }, payload);
  return app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
}

/** Adds the v2 timestamp and signature headers of a request signed with the key's secret. */
function signRequest(
  headers: Record<string, string>,
  method: string,
  url: string,
  options: SendOptions & { secret: string; key: string },
  payload: string | Buffer | undefined,
): void {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  // inject() drops an empty query (`…/domains?` arrives as `…/domains`): sign what arrives.
  const path = options.signedPath ?? url.replace(/^\/rest/, '').replace(/\?$/, '');
  const body = payload === undefined ? Buffer.alloc(0) : Buffer.from(payload);
  headers['x-service-timestamp'] = timestamp;
  headers['x-service-signature'] = computeSignature(options.secret, {
    method,
    path,
    key: options.key,
    timestamp,
    body,
  });
}

/** Removes a harness's data folder, and its PostgreSQL schemas when no test runner drops them. */
async function removeTestStore(dataDir: string, schema: string, database: Database): Promise<void> {
  rmSync(dataDir, { recursive: true, force: true });
  // Under the test runner, the run's schemas are dropped once every file has finished: a
  // DROP SCHEMA while another file's migrator reads the catalogue makes that one fail.
  if (testStore === 'postgres' && testRun === undefined) {
    const client = new pg.Client({ connectionString: postgresTestUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${bossSchemaOf(database)} CASCADE`);
    await client.end();
  }
}

/** The whole v2 error body the API answers for a code (for deepEqual assertions). */
export function v2Error(code: number, message: string, parameters?: string[]): Record<string, unknown> {
  const base = parameters === undefined ? { code, message } : { code, message, parameters };
  return { ...base, error: { ...base, more_info: `/docs#error-${code}` } };
}
