/**
 * The formats a webhook delivers in, and the ports of the e-mail channel. `json` is the generic
 * body (the wire event, signed as Standard Webhooks says); `slack` a Block Kit message for an
 * incoming-webhook URL; `teams` an Adaptive Card for a Teams workflow webhook; `email` a message
 * (one per event, or one digest per period) sent through the operator's SMTP server.
 */
export const webhookFormats = ['json', 'slack', 'teams', 'email'] as const;

/** One delivery format. */
export type WebhookFormat = (typeof webhookFormats)[number];

export type { ChatFormatter, EmailContent, EmailFormatter, FormatContext } from './formats/format.types.ts';

/** An e-mail as the channel sends it. */
export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** Sends an e-mail (engine/mail over SMTP); answers the server's final reply, throws on refusal or time-out. */
export interface EmailSender {
  send(message: EmailMessage, signal: AbortSignal): Promise<string>;
}
