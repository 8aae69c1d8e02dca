import type { WireEvent } from '../events/event.service.ts';

/**
 * The formats a webhook delivers in, and the ports of the e-mail channel. `json` is the generic
 * body (the wire event, signed as Standard Webhooks says); `slack` a Block Kit message for an
 * incoming-webhook URL; `teams` an Adaptive Card for a Teams workflow webhook; `email` a message
 * (one per event, or one digest per period) sent through the operator's SMTP server.
 */
export const webhookFormats = ['json', 'slack', 'teams', 'email'] as const;

/** One delivery format. */
export type WebhookFormat = (typeof webhookFormats)[number];

/** What a message names beside the event. */
export interface FormatContext {
  /** The team's name. */
  teamName: string;
  /** The webhook's name. */
  webhookName: string;
  /** The console's base URL (PERIMETER_PUBLIC_URL), without a trailing slash. */
  consoleBase: string;
}

/** Renders one event as the JSON body of a chat format (slack, teams). */
export type ChatFormatter = (event: WireEvent, context: FormatContext) => unknown;

/** An e-mail as the channel sends it. */
export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** Renders one or several events (a digest) as an e-mail's subject and bodies. */
export type EmailFormatter = (events: readonly WireEvent[], context: FormatContext) => Omit<EmailMessage, 'to'>;

/** Sends an e-mail (engine/mail over SMTP); answers the server's final reply, throws on refusal or time-out. */
export interface EmailSender {
  send(message: EmailMessage, signal: AbortSignal): Promise<string>;
}
