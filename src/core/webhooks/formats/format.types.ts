import type { WireEvent } from '../../events/wire-event.ts';

/**
 * What the human formats (Slack, Teams, e-mail) read and answer, declared beside them (a
 * subfolder may not import the folder above it: npm run depcheck); webhook-format.types.ts
 * re-exports them for the rest of the webhooks area.
 */

/** An event as it goes on the wire. */
export type FormatEvent = WireEvent;

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
export type ChatFormatter = (event: FormatEvent, context: FormatContext) => unknown;

/** An e-mail's subject and bodies, as the e-mail format renders them. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** Renders one or several events (a digest) as an e-mail's subject and bodies. */
export type EmailFormatter = (events: readonly FormatEvent[], context: FormatContext) => EmailContent;
