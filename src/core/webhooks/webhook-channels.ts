import type { EmailSender } from './webhook-format.types.ts';

/**
 * The ports of delivery: how a webhook's receiver is reached. The jobs layer wires them to the
 * engine (an HTTP client whose connections pass the egress guard, the SMTP sender), so the core
 * never opens a connection itself.
 */

/** What a receiver answered (a 2xx is success; anything else a failure). */
export interface HttpAnswer {
  status: number;
  /** The first KiB of the answer's body, as text. */
  excerpt: string;
}

/** The channels a webhook delivers through. */
export interface WebhookChannels {
  /** POSTs the body to the URL through the egress guard; throws on a network error, a refusal or a time-out. */
  post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<HttpAnswer>;
  /**
   * Why the host of a URL may not be reached (the egress guard's reason for the first denied
   * address it resolves to, or that it does not resolve), or undefined when it may.
   */
  hostProblem(host: string, signal: AbortSignal): Promise<string | undefined>;
  /** Sends e-mail; undefined when no SMTP server is configured (no email webhook can exist then). */
  email: EmailSender | undefined;
}
