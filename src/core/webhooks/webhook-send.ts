import { wireEvent, type WireEvent } from '../events/wire-event.ts';
import type { EventRecord } from '../events/event.types.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import type { ServiceLogger } from '../shared/service-logger.ts';
import { emailMessage } from './formats/email.ts';
import { slackMessage } from './formats/slack.ts';
import { teamsMessage } from './formats/teams.ts';
import type { WebhookChannels } from './webhook-channels.ts';
import type { FormatContext } from './webhook-format.types.ts';
import { signedHeaders } from './webhook-signing.ts';
import type { Webhook, WebhookStore } from './webhook.types.ts';

/** The longest answer excerpt kept in the delivery log, in bytes. */
export const excerptBytes = 1024;

/** What sending needs: the store, the server key's box, the channels and the settings. */
export interface WebhookSendDeps {
  store: WebhookStore;
  box: Pick<SecretBox, 'decrypt'>;
  channels: WebhookChannels;
  /** The console's base URL, without a trailing slash (links in chat and e-mail messages). */
  consoleBase: string;
  /** Time limit of one delivery, in milliseconds (10 s). */
  timeoutMs: number;
  /** Back-off of failing webhooks and the window after which one is disabled. */
  retry: { baseMs: number; capMs: number; windowMs: number };
  log: ServiceLogger;
}

/** The outcome of one send. */
export interface SendOutcome {
  isSuccess: boolean;
  httpStatus: number | null;
  error: string | null;
  excerpt: string | null;
  durationMs: number;
}

/** The first KiB of a text, cut on a character boundary. */
export function excerptOf(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= excerptBytes) return text;
  return bytes
    .subarray(0, excerptBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

/** The body a webhook of an http format sends for one event. */
export function httpBody(format: Webhook['format'], event: WireEvent, context: FormatContext): string {
  if (format === 'slack') return JSON.stringify(slackMessage(event, context));
  if (format === 'teams') return JSON.stringify(teamsMessage(event, context));
  return JSON.stringify(event);
}

/** What a run of sends to one webhook reads once: the format context and the unsealed secret. */
export interface PreparedSend {
  context: FormatContext;
  /** The unsealed signing secret (http formats), or null (email). */
  secret: string | null;
  /** The sealed secret it was unsealed from (a rotation makes it stale). */
  sealed: string;
}

/** Reads the team and unseals the secret of a webhook once, for all the sends of a run. */
export async function prepareSend(deps: WebhookSendDeps, webhook: Webhook): Promise<PreparedSend> {
  const team = await deps.store.teams.findById(webhook.teamId);
  return {
    context: { teamName: team?.name ?? webhook.teamToken, webhookName: webhook.name, consoleBase: deps.consoleBase },
    secret: webhook.format === 'email' ? null : deps.box.decrypt(webhook.secretSealed),
    sealed: webhook.secretSealed,
  };
}

/** A failure's words, without a stack. */
function errorText(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError')
    return `no answer within ${timeoutMs} ms`;
  const error = err as Error & { cause?: Error };
  const cause = error.cause?.message;
  return cause !== undefined && cause !== '' ? `${error.message}: ${cause}` : error.message;
}

/**
 * Sends events to a webhook once, now: one event per HTTP request (the http formats; signed as
 * Standard Webhooks says, `webhook-id` being the event's wire id), or all of them in one e-mail
 * (email; a digest when several). `prepared` (prepareSend) spares a run re-reading the team and
 * unsealing the secret for every event. Never throws for the receiver's fault: a failure is an outcome.
 */
export async function sendToWebhook(
  deps: WebhookSendDeps,
  webhook: Webhook,
  events: readonly WireEvent[],
  signal: AbortSignal,
  prepared?: PreparedSend,
): Promise<SendOutcome> {
  const started = Date.now();
  const limit = AbortSignal.any([signal, AbortSignal.timeout(deps.timeoutMs)]);
  try {
    const { context, secret } =
      prepared !== undefined && prepared.sealed === webhook.secretSealed ? prepared : await prepareSend(deps, webhook);
    if (webhook.format === 'email') {
      if (deps.channels.email === undefined) throw new Error('no SMTP server is configured (PERIMETER_SMTP_URL)');
      const reply = await deps.channels.email.send({ to: webhook.recipients, ...emailMessage(events, context) }, limit);
      return {
        isSuccess: true,
        httpStatus: null,
        error: null,
        excerpt: excerptOf(reply),
        durationMs: Date.now() - started,
      };
    }
    const event = events[0];
    if (event === undefined || webhook.url === null) throw new Error('nothing to send');
    const body = httpBody(webhook.format, event, context);
    const answer = await deps.channels.post(
      webhook.url,
      signedHeaders(secret ?? '', event.id, body, new Date()),
      body,
      limit,
    );
    const isSuccess = answer.status >= 200 && answer.status < 300;
    return {
      isSuccess,
      httpStatus: answer.status,
      error: isSuccess ? null : `HTTP ${answer.status}`,
      excerpt: excerptOf(answer.excerpt),
      durationMs: Date.now() - started,
    };
  } catch (err) {
    return {
      isSuccess: false,
      httpStatus: null,
      error: errorText(err, limit, deps.timeoutMs).slice(0, 1000),
      excerpt: null,
      durationMs: Date.now() - started,
    };
  }
}

/** The wire events of log events. */
export function wireEvents(events: readonly EventRecord[]): WireEvent[] {
  return events.map(wireEvent);
}
