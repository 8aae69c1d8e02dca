import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signing as the Standard Webhooks specification says: a secret `whsec_` + base64 of random
 * bytes; each delivery carries `webhook-id` (the event's wire id), `webhook-timestamp` (unix
 * seconds) and `webhook-signature` (`v1,` + base64 of HMAC-SHA256 over `${id}.${timestamp}.${body}`
 * keyed with the base64-decoded secret without its prefix).
 */

/** The prefix of every webhook secret. */
export const secretPrefix = 'whsec_';

/** A new webhook secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return secretPrefix + randomBytes(32).toString('base64');
}

/** The signature header's value of one delivery. */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The Standard Webhooks headers (and the JSON content type) of one delivery. */
export function signedHeaders(secret: string, id: string, body: string, at: Date): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signPayload(secret, id, timestamp, body),
  };
}
