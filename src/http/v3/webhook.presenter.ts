import { toWireTime } from '../../core/shared/time.ts';
import type { Webhook, WebhookDelivery } from '../../core/webhooks/webhook.types.ts';

/** The v3 wire shape of a webhook; `secret` only when given (create, rotation). */
export function presentWebhook(webhook: Webhook, assets: string[], secret?: string): Record<string, unknown> {
  return {
    id: webhook.publicId,
    team_id: webhook.teamToken,
    name: webhook.name,
    format: webhook.format,
    url: webhook.url,
    recipients: webhook.recipients,
    events: webhook.kinds,
    min_severity: webhook.minSeverity,
    assets,
    digest_minutes: webhook.digestMinutes,
    enabled: webhook.enabled,
    disabled_reason: webhook.disabledReason,
    failing_since: webhook.failingSince === null ? null : toWireTime(webhook.failingSince),
    consecutive_failures: webhook.consecutiveFailures,
    created_at: toWireTime(webhook.created),
    updated_at: toWireTime(webhook.updated),
    ...(secret === undefined ? {} : { secret }),
  };
}

/** The v3 wire shape of a delivery. */
export function presentDelivery(delivery: WebhookDelivery): Record<string, unknown> {
  return {
    id: delivery.publicId,
    event_id: delivery.eventPublicId,
    type: delivery.kind,
    attempt: delivery.attempt,
    outcome: delivery.outcome,
    http_status: delivery.httpStatus,
    error: delivery.error,
    response_excerpt: delivery.responseExcerpt,
    duration_ms: delivery.durationMs,
    created_at: toWireTime(delivery.created),
    is_test: delivery.isTest,
    is_redelivery: delivery.isRedelivery,
  };
}
