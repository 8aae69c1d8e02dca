import { appError, type AppError } from '../errors/app-error.ts';
import { eventKinds, type EventKind } from '../events/event.types.ts';
import { hasNul } from '../shared/text.ts';
import { severities, type Severity } from '../vulnerabilities/vulnerability.types.ts';
import { webhookFormats, type WebhookFormat } from './webhook-format.types.ts';

/**
 * The fields of a webhook as the API takes them, and what is wrong with each: every problem is a
 * 1051 naming the field (the body schema's errors call these too, so both say the same).
 */

/** Limits of the fields. */
export const webhookLimits = { name: 255, url: 2048, recipients: 50, assets: 1000, digestMinutes: 1440 } as const;

/** A create or update body as its schema admits it (every field optional here; create requires some). */
export interface WebhookBody {
  team_id?: unknown;
  name?: string;
  format?: WebhookFormat;
  url?: string | null;
  recipients?: string[];
  events?: EventKind[];
  min_severity?: Severity | null;
  assets?: string[];
  digest_minutes?: number;
  enabled?: boolean;
  rotate_secret?: boolean;
}

/** 1051 naming the field and saying what is wrong with it. */
export function invalidField(field: string, what: string): AppError {
  return appError(1051, `Request body malformed: ${field} ${what}`, [field]);
}

/** What is wrong with a name, or undefined. */
export function nameProblem(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return 'is required';
  if (typeof raw !== 'string') return 'must be a string';
  const name = raw.trim();
  if (name === '') return 'must not be empty';
  if ([...name].length > webhookLimits.name) return `must be at most ${webhookLimits.name} characters`;
  if (hasNul(name)) return 'must not contain a NUL character (U+0000)';
  return undefined;
}

/** What is wrong with a URL's form (the egress guard checks its host later), or undefined. */
export function urlProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return 'must be a string: an http or https URL';
  if (raw.length > webhookLimits.url) return `must be at most ${webhookLimits.url} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (user:password@)';
  if (url.hostname === '') return 'must name a host';
  return undefined;
}

const emailPattern = /^[^@\s<>",;]{1,64}@[^@\s<>",;]{1,253}\.[^@\s<>",;.]{2,}$/;

/** What is wrong with a list of e-mail recipients, or undefined. */
export function recipientsProblem(raw: unknown): string | undefined {
  if (!Array.isArray(raw)) return 'must be a list of e-mail addresses';
  if (raw.length === 0) return 'must name at least one e-mail address';
  if (raw.length > webhookLimits.recipients) return `must have at most ${webhookLimits.recipients} addresses`;
  const bad = raw.find((r) => typeof r !== 'string' || !emailPattern.test(r.trim()));
  return bad === undefined ? undefined : `must be e-mail addresses, got ${JSON.stringify(bad)}`;
}

/** What is wrong with the subscribed kinds, or undefined. */
export function eventsProblem(raw: unknown): string | undefined {
  if (!Array.isArray(raw)) return `must be a list of event kinds (${eventKinds.join(', ')})`;
  if (raw.length === 0) return 'must name at least one event kind';
  const bad = raw.find((k) => typeof k !== 'string' || !(eventKinds as readonly string[]).includes(k));
  return bad === undefined ? undefined : `has an unknown event kind ${JSON.stringify(bad)} (docs/events.md lists them)`;
}

/** 1051 for a field that failed the body schema, saying what is wrong with its value. */
export function invalidWebhookField(field: string, raw: unknown): AppError {
  const problems: Record<string, () => string | undefined> = {
    name: () => nameProblem(raw),
    format: () => `must be one of ${webhookFormats.join(', ')}`,
    url: () => (raw === null ? undefined : urlProblem(raw)),
    recipients: () => recipientsProblem(raw),
    events: () => eventsProblem(raw),
    min_severity: () => `must be one of ${severities.join(', ')}, or null`,
    assets: () => 'must be a list of asset tokens of the team',
    digest_minutes: () => `must be an integer from 0 to ${webhookLimits.digestMinutes}`,
    enabled: () => 'must be true or false',
    rotate_secret: () => 'must be true or false',
  };
  return invalidField(field, problems[field]?.() ?? 'is invalid');
}
