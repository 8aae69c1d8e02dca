import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery as the receiver got it. */
export interface ReceivedDelivery {
  /** The `webhook-id` header: the event's wire id. */
  id: string;
  /** The event kind (`type` of a json body; undefined for chat formats). */
  type: string | undefined;
  body: string;
  json: unknown;
  headers: IncomingHttpHeaders;
  /** True when the signature matched the receiver's secret. */
  isSignatureValid: boolean;
  /** What the receiver answered. */
  status: number;
  at: number;
}

/**
 * A webhook receiver on 127.0.0.1: checks each request's Standard Webhooks signature with the
 * secret it is given (setSecret), records every delivery (also those it refuses) and answers
 * 200, or the status it is told to answer (answerWith: 503 for a while, 410 …).
 */
export class WebhookReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  private server: Server | undefined;
  private secret: string | undefined;
  private status = 200;
  private delayMs = 0;

  /** The URL to subscribe, e.g. http://127.0.0.1:PORT/hook. */
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = this.status;
        this.deliveries.push(this.record(body, req.headers, status));
        const answer = () => {
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(status === 200 ? 'ok' : `refused with ${status}`);
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  /** The secret signatures are checked with (the `secret` a create answered). */
  setSecret(secret: string): void {
    this.secret = secret;
  }

  /** Answers this status from now on (200 to accept again). */
  answerWith(status: number): void {
    this.status = status;
  }

  /** Delays each answer (time-out tests). */
  delay(ms: number): void {
    this.delayMs = ms;
  }

  /** The deliveries answered 2xx. */
  accepted(): ReceivedDelivery[] {
    return this.deliveries.filter((d) => d.status >= 200 && d.status < 300);
  }

  private record(body: string, headers: IncomingHttpHeaders, status: number): ReceivedDelivery {
    const id = String(headers['webhook-id'] ?? '');
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const type = (json as { type?: unknown } | undefined)?.type;
    return {
      id,
      type: typeof type === 'string' ? type : undefined,
      body,
      json,
      headers,
      isSignatureValid: this.verify(id, String(headers['webhook-timestamp'] ?? ''), body, headers['webhook-signature']),
      status,
      at: Date.now(),
    };
  }

  /** The Standard Webhooks check: any `v1,` signature of the header matches HMAC-SHA256 of `id.timestamp.body`. */
  private verify(id: string, timestamp: string, body: string, header: string | string[] | undefined): boolean {
    if (this.secret === undefined || typeof header !== 'string' || !/^\d+$/.test(timestamp)) return false;
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
    const key = Buffer.from(this.secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
    return header.split(' ').some((part) => {
      const [version, value] = part.split(',');
      if (version !== 'v1' || value === undefined) return false;
      const given = Buffer.from(value, 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }
}
