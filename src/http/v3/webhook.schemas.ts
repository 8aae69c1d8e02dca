import { FormatRegistry, Type } from '@sinclair/typebox';
import { eventKinds } from '../../core/events/event.types.ts';
import { severities } from '../../core/vulnerabilities/vulnerability.types.ts';
import { webhookFormats } from '../../core/webhooks/webhook-format.types.ts';
import { nameProblem, urlProblem, webhookLimits } from '../../core/webhooks/webhook-input.ts';
import { V3ListQuery } from './list-query.ts';

// Lengths count characters of the trimmed text, and URLs are read as WHATWG URLs: rules the core owns.
FormatRegistry.Set('webhook-name', (v) => nameProblem(v) === undefined);
FormatRegistry.Set('webhook-url', (v) => urlProblem(v) === undefined);

const Format = Type.Union(
  webhookFormats.map((f) => Type.Literal(f)),
  {
    description:
      '`json` (the event as GET /rest/v3/events shows it), `slack` (a Block Kit message for an incoming webhook), `teams` (an Adaptive Card for a ' +
      'Teams workflow webhook) or `email` (through the SMTP server the operator configured). Default `json`.',
  },
);
const Kind = Type.Union(eventKinds.map((k) => Type.Literal(k)));
const Severity = Type.Union(severities.map((s) => Type.Literal(s)));

/** A webhook on the wire; `secret` only in the answer of a create, or of an update that rotated it. */
export const Webhook = Type.Object({
  id: Type.String({ format: 'uuid' }),
  team_id: Type.String({ description: 'Token of the team the webhook belongs to.' }),
  name: Type.String(),
  format: Format,
  url: Type.Union([Type.String(), Type.Null()], { description: 'The receiver (http formats); null for email.' }),
  recipients: Type.Array(Type.String(), { description: 'E-mail recipients (email format); empty otherwise.' }),
  events: Type.Array(Kind, { description: 'The event kinds delivered.' }),
  min_severity: Type.Union([Severity, Type.Null()], {
    description: 'Only events with a severity (findings, breaches) at or above it; null: every event of the kinds.',
  }),
  assets: Type.Array(Type.String(), {
    description: 'Tokens of the root assets whose events are delivered; empty: every asset.',
  }),
  digest_minutes: Type.Integer({
    description: 'E-mail only: minutes events wait to leave together as one digest (0: each alone).',
  }),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it was disabled, while it is.' }),
  failing_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When its current run of failed deliveries started; null when the last one succeeded.',
  }),
  consecutive_failures: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  secret: Type.Optional(
    Type.String({
      description:
        'The signing secret (`whsec_` + base64 of 32 bytes): only in the answer of a create, or of an update with `rotate_secret`; never shown again.',
    }),
  ),
});

const fields = {
  name: Type.String({
    format: 'webhook-name',
    description: `Non-empty after trimming, at most ${webhookLimits.name} characters.`,
  }),
  format: Format,
  url: Type.Union([Type.String({ format: 'webhook-url' }), Type.Null()], {
    description:
      `The receiver of the http formats: http or https, no credentials, at most ${webhookLimits.url} characters. Its host must resolve to addresses ` +
      'the egress guard allows (a private, loopback or other special-purpose address is refused unless PERIMETER_EGRESS_ALLOW opens it).',
  }),
  recipients: Type.Array(Type.String(), {
    minItems: 1,
    maxItems: webhookLimits.recipients,
    description: `Email only: 1 to ${webhookLimits.recipients} e-mail addresses.`,
  }),
  events: Type.Array(Kind, { minItems: 1, description: 'The event kinds to deliver (docs/events.md), at least one.' }),
  min_severity: Type.Union([Severity, Type.Null()], {
    description: 'Only events whose severity is at least this (events without a severity are then left out).',
  }),
  assets: Type.Array(Type.String(), {
    maxItems: webhookLimits.assets,
    description:
      "Tokens of the team's assets whose events are delivered (a subdomain stands for its root); empty or absent: every asset.",
  }),
  digest_minutes: Type.Integer({
    minimum: 0,
    maximum: webhookLimits.digestMinutes,
    description: `Email only: 0 (each event its own e-mail, the default) to ${webhookLimits.digestMinutes} minutes of digest.`,
  }),
  enabled: Type.Boolean({ description: 'Default true.' }),
};

/** The body of "Create webhook". */
export const WebhookCreateBody = Type.Object({
  team_id: Type.Optional(
    Type.String({
      description:
        "Token of one of the key's teams. Optional for a key tied to one team, required for a key tied to several.",
    }),
  ),
  name: fields.name,
  format: Type.Optional(fields.format),
  url: Type.Optional(fields.url),
  recipients: Type.Optional(fields.recipients),
  events: fields.events,
  min_severity: Type.Optional(fields.min_severity),
  assets: Type.Optional(fields.assets),
  digest_minutes: Type.Optional(fields.digest_minutes),
  enabled: Type.Optional(fields.enabled),
});

/** The body of "Update webhook": any field; `rotate_secret` makes a new secret. */
export const WebhookUpdateBody = Type.Object({
  name: Type.Optional(fields.name),
  format: Type.Optional(fields.format),
  url: Type.Optional(fields.url),
  recipients: Type.Optional(fields.recipients),
  events: Type.Optional(fields.events),
  min_severity: Type.Optional(fields.min_severity),
  assets: Type.Optional(fields.assets),
  digest_minutes: Type.Optional(fields.digest_minutes),
  enabled: Type.Optional(fields.enabled),
  rotate_secret: Type.Optional(
    Type.Boolean({ description: 'True: a new secret replaces the old one at once, answered (once) as `secret`.' }),
  ),
});

/** One logged delivery attempt. */
export const WebhookDelivery = Type.Object({
  id: Type.String({ format: 'uuid' }),
  event_id: Type.String({ format: 'uuid', description: 'The event id: the `webhook-id` header of the delivery.' }),
  type: Kind,
  attempt: Type.Integer({ description: '1 for the first attempt at the event, counting up with each failure.' }),
  outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
  http_status: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's status (null: none, or e-mail).",
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  response_excerpt: Type.Union([Type.String(), Type.Null()], {
    description: "The first KiB of the receiver's answer (e-mail: the SMTP server's reply).",
  }),
  duration_ms: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  is_test: Type.Boolean({ description: 'Sent by the test operation (a `webhook.test` event, never in the log).' }),
  is_redelivery: Type.Boolean({ description: 'Sent again by the redeliver operation.' }),
});

/** The path parameter of one webhook. */
export const WebhookIdParam = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The webhook id (a UUID).' }),
});

/** The path parameters of one delivery. */
export const DeliveryIdParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The webhook id (a UUID).' }),
  delivery_id: Type.String({ format: 'uuid', description: 'The delivery id (a UUID).' }),
});

/** The query of the webhook and delivery lists: cursor and limit. */
export const WebhookListQuery = Type.Object({
  cursor: V3ListQuery.properties.cursor,
  limit: V3ListQuery.properties.limit,
});
