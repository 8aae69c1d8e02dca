import assert from 'node:assert/strict';
import type net from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/http/app.ts';
import { createHarness, type Harness } from './harness.ts';
import { exchangeRaw, type RawResponse } from './raw-http.ts';

// What the tests of requests no operation can read (test/integration/protocol-errors-*.test.ts)
// share: a harness served on a loopback port by an app whose log lines are kept, and the
// assertions of a refusal answered through the catalogue.

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** The harness's runtime served on a loopback port by an app whose log lines are kept. */
async function serveWithLog(h: Harness): Promise<{ app: FastifyInstance; port: number; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const app = await buildApp({ ...h.runtime, logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as net.AddressInfo).port, lines };
}

/** Asserts a refusal that closed the connection cleanly: no reset, the server's FIN, `Connection: close`. */
export function assertCleanClose(res: RawResponse): void {
  assert.equal(res.errorCode, undefined, `the client saw ${res.errorCode}`);
  assert.equal(res.isEndedByServer, true, 'the server closed its side with a FIN');
  assert.equal(res.headers['connection'], 'close');
}

/** A v2 catalogue answer with the expected status and body, a request id, and a clean close. */
export function assertV2Refusal(res: RawResponse, expected: { status: number; body: Record<string, unknown> }): void {
  assert.equal(res.status, expected.status, res.raw);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  assert.match(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
  assert.deepEqual(JSON.parse(res.body), expected.body);
  assertCleanClose(res);
}

/** A v3 problem body. */
export function problem(
  status: number,
  title: string,
  code: number,
  detail: string,
  instance: string,
): Record<string, unknown> {
  return { type: `/problems/${code}`, title, status, detail, instance };
}

/** Sends the parts on one connection as separate TCP segments, 50 ms apart, and reads until the server closes. */
export const exchangeSegments = (
  port: number,
  parts: string[],
  options: { isHalfClosed?: boolean } = {},
): Promise<RawResponse> => exchangeRaw(port, parts, { segmentGapMs: 50, ...options });

/**
 * A fresh harness with the team `protocol`, its runtime also served on a loopback port (`served`)
 * with its log lines kept. Its fields are set by open() (call it in a `before`).
 */
export class ProtocolFixture {
  h!: Harness;
  key!: string;
  served!: { app: FastifyInstance; port: number; lines: LogLine[] };

  async open(): Promise<void> {
    this.h = await createHarness();
    this.key = (await this.h.team('protocol')).key;
    this.served = await serveWithLog(this.h);
  }

  async close(): Promise<void> {
    await this.served.app.close();
    await this.h.close();
  }
}
