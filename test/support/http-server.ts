import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a path answers: a body (status 200), or a status with headers, or no answer at all. */
export type Route = string | { status: number; body?: string; headers?: Record<string, string> } | { isHanging: true };

/** A running test server on 127.0.0.1 with what it saw. */
export interface TestHttpServer {
  port: number;
  /** TCP connections accepted, counted before any byte is read (TLS handshakes included). */
  connections: number;
  /** Requests as `METHOD path host-header`. */
  requests: string[];
  /** TLS server names (SNI) the clients sent; empty entries for none. */
  serverNames: string[];
  /** Routes by path; change them at run time. */
  routes: Map<string, Route>;
  stop(): Promise<void>;
}

/** A self-signed EC certificate (key and certificate in PEM) for a subject, made with the openssl CLI. */
export function opensslCertificate(subject: string, extensions: string[] = []): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-cert-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    args.push('-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', subject);
    for (const extension of extensions) args.push('-addext', extension);
    execFileSync('openssl', args, { stdio: 'ignore' });
    return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A self-signed certificate for CN=localhost, made once per process. */
let certificate: { key: string; cert: string } | undefined;

/** Returns a self-signed key and certificate (PEM), generated at test time. */
export function selfSignedCertificate(): { key: string; cert: string } {
  certificate ??= opensslCertificate('/CN=localhost');
  return certificate;
}

/** What every test server shares: connections counted, a port on 127.0.0.1, a stop that drops open sockets. */
export interface TrackedServer {
  port: number;
  /** TCP connections accepted, counted before any byte is read (TLS handshakes included). */
  readonly connections: number;
  stop(): Promise<void>;
}

/**
 * Listens on a free port of 127.0.0.1, counting connections. 'connection' fires for the raw TCP
 * socket, before TLS, so a refused-by-guard test can assert that not even a handshake reached it.
 */
export async function listenTracked(server: http.Server | https.Server): Promise<TrackedServer> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  server.on('connection', (socket: net.Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    get connections() {
      return connections;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function startServer(server: http.Server | https.Server, routes: Record<string, Route>): Promise<TestHttpServer> {
  const requests: string[] = [];
  const serverNames: string[] = [];
  const routeMap = new Map(Object.entries(routes));
  server.on('secureConnection', (socket: { servername?: string | false }) => {
    serverNames.push(typeof socket.servername === 'string' ? socket.servername : '');
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = req.url ?? '/';
    requests.push(`${req.method ?? '?'} ${path} ${req.headers.host ?? ''}`);
    const route = routeMap.get(path);
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    } else if (typeof route === 'string') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(route);
    } else if ('isHanging' in route) {
      // Never answer: the client's timeout must end the attempt.
    } else {
      res.writeHead(route.status, { 'content-type': 'text/plain', ...route.headers }).end(route.body ?? '');
    }
  });
  const tracked = await listenTracked(server);
  return {
    port: tracked.port,
    get connections() {
      return tracked.connections;
    },
    requests,
    serverNames,
    routes: routeMap,
    stop: tracked.stop,
  };
}

/** Starts a plain HTTP server on 127.0.0.1 on a free port, serving the given paths. */
export function startHttpServer(routes: Record<string, Route>): Promise<TestHttpServer> {
  return startServer(http.createServer(), routes);
}

/** Starts an HTTPS server on 127.0.0.1 on a free port with a self-signed certificate. */
export function startHttpsServer(routes: Record<string, Route>): Promise<TestHttpServer> {
  return startServer(https.createServer(selfSignedCertificate()), routes);
}
