import { isIP } from 'node:net';
import { connect, type ConnectionOptions, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import type { HttpHeader } from '../../core/vulnerabilities/vulnerability.types.ts';
import { refuseLookup } from '../net/egress-guard.ts';
import type { ProbeContext } from './handshake-probe.ts';

/** The answer to the one HTTPS GET / sent over the ordinary handshake (for HSTS). */
export interface HttpHeadResult {
  request: { method: string; url: string; body: string; headers: HttpHeader[] };
  status: number;
  headers: HttpHeader[];
}

/** What an ordinary client handshake showed. */
export type OrdinaryHandshake =
  | {
      kind: 'connected';
      /** `TLSv1.3`, as Node prints it. */
      protocol: string;
      /** IANA name of the negotiated suite (`TLS_AES_256_GCM_SHA384`). */
      suiteName: string;
      /** DER certificates, leaf first: what the server presented (Node may add the root it knows). */
      chain: Buffer[];
      /** The GET / answer when one was asked for; a string tells why there is none. */
      http?: HttpHeadResult | string;
    }
  | { kind: 'failed'; reason: string };

/** What the handshake sends besides the target. */
export interface OrdinaryHandshakeOptions {
  serverName: string | undefined;
  /** Send GET / after the handshake and read the response head. */
  httpHead?: { hostHeader: string; customHeaders: Array<{ name: string; value: string }> };
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);
const MAX_HEAD = 64 * 1024;

/** DER of each certificate from the leaf up, stopping where the issuer is the certificate itself. */
function peerChain(socket: TLSSocket): Buffer[] {
  const chain: Buffer[] = [];
  let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  const seen = new Set<string>();
  while (cert !== undefined && cert.raw !== undefined && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    chain.push(cert.raw);
    cert = cert.issuerCertificate;
  }
  return chain;
}

function requestHeaders(options: NonNullable<OrdinaryHandshakeOptions['httpHead']>): HttpHeader[] {
  const headers: HttpHeader[] = [
    { name: 'Host', value: options.hostHeader },
    { name: 'User-Agent', value: 'perimeter-tls/1.0' },
    { name: 'Accept', value: '*/*' },
  ];
  for (const header of options.customHeaders) {
    // A header that cannot travel safely (bad name, CR/LF in the value) is dropped, not sent half-formed.
    if (!TOKEN.test(header.name) || /[\r\n\0]/.test(header.value) || RESERVED_HEADERS.has(header.name.toLowerCase()))
      continue;
    headers.push({ name: header.name, value: header.value });
  }
  headers.push({ name: 'Connection', value: 'close' });
  return headers;
}

/** Status and headers of an HTTP/1.x response head; undefined when it is not one. */
function parseHead(head: string): { status: number; headers: HttpHeader[] } | undefined {
  const lines = head.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (match === null) return undefined;
  const headers: HttpHeader[] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  return { status: Number(match[1]), headers };
}

/** The options of an ordinary handshake's connection: any certificate, any protocol from TLS 1.0, no name resolved. */
function connectOptions(
  address: string,
  port: number,
  serverName: string | undefined,
  wantsHttp: boolean,
): ConnectionOptions {
  return {
    host: address,
    port,
    ...(serverName === undefined ? {} : { servername: serverName }),
    rejectUnauthorized: false,
    minVersion: 'TLSv1',
    ciphers: 'DEFAULT:@SECLEVEL=0',
    lookup: refuseLookup,
    ...(wantsHttp ? { ALPNProtocols: ['http/1.1'] } : {}),
  };
}

/** Why a connection failed, in a few words: its error code, or its message. */
function socketErrorReason(err: NodeJS.ErrnoException): string {
  return err.code === 'ERR_SSL_WRONG_VERSION_NUMBER' ? 'not TLS (wrong version number)' : (err.code ?? err.message);
}

/**
 * One handshake as an ordinary client makes it (Node's TLS stack, every protocol from TLS 1.0
 * and OpenSSL's default suites at security level 0, so that old servers still answer),
 * without verifying the certificate: the chain is judged apart. With `httpHead`, sends GET /
 * over the same connection and reads the response head. The egress guard checks the address
 * first; names are never resolved here (refuseLookup).
 */
export function ordinaryHandshake(
  address: string,
  port: number,
  options: OrdinaryHandshakeOptions,
  context: ProbeContext,
): Promise<OrdinaryHandshake> {
  if (context.signal.aborted) return Promise.reject(context.signal.reason);
  const decision = context.guard.check(address);
  if (!decision.isAllowed)
    return Promise.resolve({ kind: 'failed', reason: `refused by the egress guard (${decision.reason ?? 'denied'})` });
  const serverName =
    options.serverName !== undefined && isIP(options.serverName) === 0 ? options.serverName : undefined;
  return new Promise((resolve, reject) => {
    let result: Extract<OrdinaryHandshake, { kind: 'connected' }> | undefined;
    let head = Buffer.alloc(0);
    let request: HttpHeadResult['request'] | undefined;
    const socket = connect(connectOptions(address, port, serverName, options.httpHead !== undefined));
    let timer = setTimeout(
      () => finish({ kind: 'failed', reason: `no handshake within ${context.timeoutMs} ms` }),
      context.timeoutMs,
    );
    const finish = (outcome: OrdinaryHandshake | Error): void => {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onAbort = (): void =>
      finish(context.signal.reason instanceof Error ? context.signal.reason : new Error('aborted'));
    context.signal.addEventListener('abort', onAbort, { once: true });
    const httpFailed = (reason: string): void => {
      if (result !== undefined) finish({ ...result, http: reason });
    };
    socket.once('secureConnect', () => {
      const cipher = socket.getCipher();
      result = {
        kind: 'connected',
        protocol: socket.getProtocol() ?? 'unknown',
        suiteName: cipher.standardName ?? cipher.name,
        chain: peerChain(socket),
      };
      if (options.httpHead === undefined) {
        finish(result);
        return;
      }
      clearTimeout(timer);
      timer = setTimeout(() => httpFailed(`no HTTP response within ${context.timeoutMs} ms`), context.timeoutMs);
      const headers = requestHeaders(options.httpHead);
      const url = `https://${options.httpHead.hostHeader}/`;
      request = { method: 'GET', url, body: '', headers };
      socket.write(`GET / HTTP/1.1\r\n${headers.map((h) => `${h.name}: ${h.value}\r\n`).join('')}\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      if (result === undefined || request === undefined) return;
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0 && head.length < MAX_HEAD) return;
      const parsed = parseHead(head.subarray(0, end < 0 ? MAX_HEAD : end).toString('latin1'));
      if (parsed === undefined) httpFailed('the answer to GET / is not HTTP/1.x');
      else finish({ ...result, http: { request, ...parsed } });
    });
    socket.once('end', () =>
      result === undefined
        ? finish({ kind: 'failed', reason: 'the server closed the connection during the handshake' })
        : httpFailed('the server closed the connection before an HTTP response'),
    );
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const reason = socketErrorReason(err);
      if (result === undefined) finish({ kind: 'failed', reason: `handshake failed: ${reason}` });
      else httpFailed(`HTTP request failed: ${reason}`);
    });
  });
}
