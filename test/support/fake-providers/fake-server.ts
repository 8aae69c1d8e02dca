import http from 'node:http';
import type https from 'node:https';
import { listenTracked } from '../http-server.ts';

/**
 * What the local provider servers share: JSON answers, the requests they saw, and a node:http
 * server on 127.0.0.1 port 0 that records every request before the provider's routes answer it
 * (so a test can assert the auth headers sent, or that a denied run sent nothing).
 */

/** One request as a fake provider saw it. */
export interface FakeRequest {
  method: string;
  /** The path with its query, as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** One request as a fake REST provider saw it, parsed for routing (path and query apart). */
export interface ParsedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** When it arrived (epoch milliseconds). */
  at: number;
}

/** The request, parsed for routing and for the tests' assertions. */
export function parsedRequest(req: http.IncomingMessage): ParsedRequest {
  const url = new URL(req.url ?? '/', 'http://localhost');
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    at: Date.now(),
  };
}

/** A JSON answer (`content-type: application/json` unless the headers say otherwise). */
export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The same answer after `delayMs` (a slow provider), unless the client has gone by then. */
export function sendJsonAfter(
  delayMs: number,
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  setTimeout(() => {
    if (!res.destroyed) sendJson(res, status, body, headers);
  }, delayMs);
}

/** Calls `handle` for each request once its whole body (as text) is read: token endpoints take forms. */
export function onRequestWithBody(
  server: http.Server | https.Server,
  handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
): void {
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
}

/** A running local provider server. */
export interface RecordingServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Stops it, dropping open connections (a request left unanswered included). */
  close(): Promise<void>;
}

/** Starts a node:http server on 127.0.0.1 that pushes each request onto `requests`, then lets `handle` answer. */
export async function startRecordingServer(
  requests: FakeRequest[],
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<RecordingServer> {
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handle(req, res);
  });
  const tracked = await listenTracked(server);
  return { url: `http://127.0.0.1:${tracked.port}`, close: () => tracked.stop() };
}
