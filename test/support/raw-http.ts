import net from 'node:net';

/** A response read off a raw socket, with what happened to the connection. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The first socket error the client saw (`ECONNRESET` …), if any. */
  errorCode: string | undefined;
  /** True when the server closed its side cleanly (a FIN, 'end'), not by a reset. */
  isEndedByServer: boolean;
  /** Body bytes the client had written when it stopped (oversized uploads). */
  bytesSent: number;
  /** Every byte received, as latin1 text. */
  raw: string;
}

/** Parses the first HTTP/1.1 response of the bytes; undefined until its body is complete. */
export function parseResponse(
  raw: string,
): Omit<RawResponse, 'errorCode' | 'isEndedByServer' | 'bytesSent' | 'raw'> | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  const length = Number(headers['content-length'] ?? NaN);
  const body = raw.slice(end + 4);
  if (!Number.isFinite(length) || Buffer.byteLength(body, 'latin1') < length) return undefined;
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]),
    headers,
    body: Buffer.from(body.slice(0, length), 'latin1').toString('utf8'),
  };
}

/**
 * Sends bytes on a fresh connection and reads until the server closes it (or `waitMs` passes,
 * then the client closes): what a client sees of an answer, the close included. With
 * `segmentGapMs`, each part goes out as a TCP segment of its own (no Nagle delay), that long
 * after the previous one; `isHalfClosed` ends the client's side after the last part.
 */
export function exchangeRaw(
  port: number,
  data: string | Buffer | Array<string | Buffer>,
  options: { waitMs?: number; segmentGapMs?: number; isHalfClosed?: boolean } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    let errorCode: string | undefined;
    let isEndedByServer = false;
    socket.on('data', (d) => (raw += d.toString('latin1')));
    socket.on('end', () => {
      isEndedByServer = true;
      socket.end();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (errorCode ??= err.code ?? err.message));
    const timer = setTimeout(() => socket.destroy(), options.waitMs ?? 5000);
    socket.on('close', () => {
      clearTimeout(timer);
      const parsed = parseResponse(raw);
      if (parsed === undefined)
        return reject(
          new Error(`no complete response (error ${errorCode ?? 'none'}): ${JSON.stringify(raw.slice(0, 300))}`),
        );
      resolve({ ...parsed, errorCode, isEndedByServer, bytesSent: 0, raw });
    });
    const parts = Array.isArray(data) ? data : [data];
    if (options.segmentGapMs === undefined) {
      for (const part of parts) socket.write(part);
      if (options.isHalfClosed === true) socket.end();
      return;
    }
    socket.setNoDelay(true);
    socket.once('connect', async () => {
      for (const [index, part] of parts.entries()) {
        if (index > 0) await new Promise((r) => setTimeout(r, options.segmentGapMs));
        if (!socket.destroyed) socket.write(part);
      }
      if (options.isHalfClosed === true && !socket.destroyed) socket.end();
    });
  });
}

/**
 * Sends a request head, then body bytes as fast as the connection takes them, reading at the
 * same time; once a whole response arrived it stops writing and closes its side. `total`
 * bounds what it sends; chunked framing when `isChunked`.
 */
export function sendOversizedBody(
  port: number,
  head: string,
  total: number,
  options: { isChunked?: boolean; chunk?: Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunk = options.chunk ?? Buffer.from('www.example.test\n'.repeat(4096));
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    let sent = 0;
    let isAnswered = false;
    let errorCode: string | undefined;
    let isEndedByServer = false;
    const pump = (): void => {
      while (!isAnswered && sent < total && !socket.destroyed) {
        sent += chunk.length;
        const framed =
          options.isChunked === true
            ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
            : chunk;
        if (!socket.write(framed)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!isAnswered && sent >= total && options.isChunked === true) socket.write('0\r\n\r\n');
    };
    socket.on('data', (d) => {
      raw += d.toString('latin1');
      if (!isAnswered && parseResponse(raw) !== undefined) {
        isAnswered = true;
        socket.end();
      }
    });
    socket.on('end', () => (isEndedByServer = true));
    socket.on('error', (err: NodeJS.ErrnoException) => (errorCode ??= err.code ?? err.message));
    const timer = setTimeout(() => socket.destroy(), 30_000);
    socket.on('close', () => {
      clearTimeout(timer);
      const parsed = parseResponse(raw);
      if (parsed === undefined)
        return reject(
          new Error(
            `no complete response after ${sent} bytes (error ${errorCode ?? 'none'}): ${JSON.stringify(raw.slice(0, 300))}`,
          ),
        );
      resolve({ ...parsed, errorCode, isEndedByServer, bytesSent: sent, raw });
    });
    socket.write(head);
    pump();
  });
}
