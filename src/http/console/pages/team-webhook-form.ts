import { listAssets } from '../../../core/assets/asset.service.ts';
import { eventKinds, type EventKind } from '../../../core/events/event.types.ts';
import type { WebhookBody } from '../../../core/webhooks/webhook-input.ts';
import { webhookFormats, type WebhookFormat } from '../../../core/webhooks/webhook-format.types.ts';
import type { Webhook } from '../../../core/webhooks/webhook.types.ts';
import { severities } from '../../../core/vulnerabilities/vulnerability.types.ts';
import type { ConsoleContext } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { parseDocuments } from './findings.page.ts';
import { problemFor, type FormProblem } from './team-shared.ts';

/**
 * The webhook form the Webhooks pages share (create, and edit on a webhook's page): every field
 * of the API's body (name, format, URL or e-mail recipients and digest, event kinds as
 * checkboxes grouped by area, minimum severity, assets as a multi-select of the team's root
 * assets), and how the posted form becomes the API's JSON body. A refused form comes back as
 * typed, the field its message names marked.
 */

/** Kinds a webhook can subscribe to: every logged kind (a test event is sent only by "Send test event"). */
export const subscribableKinds = eventKinds.filter((k) => k !== 'webhook.test');

/** The kinds grouped by area (the part before the dot), in catalogue order. */
export const kindAreas: ReadonlyArray<readonly [area: string, kinds: readonly EventKind[]]> = (() => {
  const areas: Array<[string, EventKind[]]> = [];
  for (const kind of subscribableKinds) {
    const area = kind.slice(0, kind.indexOf('.'));
    const group = areas.find(([a]) => a === area);
    if (group === undefined) areas.push([area, [kind]]);
    else group[1].push(kind);
  }
  return areas;
})();

/** A webhook's kinds in words: "all kinds", or the kinds an area has in full by the area's name. */
export function kindsText(kinds: readonly string[]): string {
  if (subscribableKinds.every((k) => kinds.includes(k))) return 'all kinds';
  const parts: string[] = [];
  for (const [area, inArea] of kindAreas) {
    const chosen = inArea.filter((k) => kinds.includes(k));
    if (chosen.length === 0) continue;
    parts.push(chosen.length === inArea.length && inArea.length > 1 ? `${area}.*` : chosen.join(', '));
  }
  return parts.join(', ');
}

/** What the format names beside its value. */
const formatLabels: Record<WebhookFormat, string> = {
  json: 'JSON (signed, Standard Webhooks)',
  slack: 'Slack (incoming webhook URL)',
  teams: 'Microsoft Teams (workflow webhook URL)',
  email: 'E-mail',
};

/** A form's values as typed: text fields by name, lists (events, assets) by name. */
export interface WebhookFormValues {
  name: string;
  format: string;
  url: string;
  recipients: string;
  digest_minutes: string;
  min_severity: string;
  events: string[];
  assets: string[];
  enabled: boolean;
}

/** The values a posted form carries. */
export function formValuesOf(form: URLSearchParams): WebhookFormValues {
  return {
    name: (form.get('name') ?? '').slice(0, 1024),
    format: form.get('format') ?? 'json',
    url: (form.get('url') ?? '').slice(0, 4096),
    recipients: (form.get('recipients') ?? '').slice(0, 16_384),
    digest_minutes: form.get('digest_minutes') ?? '0',
    min_severity: form.get('min_severity') ?? '',
    events: form.getAll('events').slice(0, 100),
    assets: form.getAll('assets').slice(0, 1000),
    enabled: form.get('enabled') === 'true',
  };
}

/** The values of a stored webhook (an edit form before any change). */
export function storedValuesOf(webhook: Webhook, assetTokens: readonly string[]): WebhookFormValues {
  return {
    name: webhook.name,
    format: webhook.format,
    url: webhook.url ?? '',
    recipients: webhook.recipients.join('\n'),
    digest_minutes: String(webhook.digestMinutes),
    min_severity: webhook.minSeverity ?? '',
    events: [...webhook.kinds],
    assets: [...assetTokens],
    enabled: webhook.enabled,
  };
}

/** A text as an integer when it is one (the API's schema refuses anything else, naming the field). */
function integerOf(text: string): number | string {
  return /^-?\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : text;
}

/**
 * The API body a form stands for: the fields of its format only (a URL for json, slack and teams;
 * recipients, one a line or comma-separated, and the digest for email), no minimum severity for
 * "any", no assets for "every asset". `forCreate` adds `enabled`; an edit leaves it to its buttons.
 */
export function bodyOf(values: WebhookFormValues, forCreate: boolean): WebhookBody & Record<string, unknown> {
  const isEmail = values.format === 'email';
  const body: Record<string, unknown> = {
    name: values.name,
    format: values.format,
    events: values.events,
    min_severity: values.min_severity === '' ? null : values.min_severity,
    assets: values.assets,
  };
  if (isEmail) {
    body['recipients'] = values.recipients
      .split(/[\n,;]/)
      .map((r) => r.trim())
      .filter((r) => r !== '');
    body['digest_minutes'] = integerOf(values.digest_minutes === '' ? '0' : values.digest_minutes);
    if (!forCreate) body['url'] = null;
  } else body['url'] = values.url.trim();
  if (forCreate) body['enabled'] = values.enabled;
  return body as WebhookBody & Record<string, unknown>;
}

/** ` aria-invalid` pointing at the form's message, on the field the refusal names. */
function invalidMark(problem: FormProblem | undefined, form: string, field: string): Html {
  return problem?.form === form && problem.message.startsWith(`Request body malformed: ${field} `)
    ? html` aria-invalid="true" aria-errormessage="${`${form}-problem`}"`
    : html``;
}

function kindBoxes(form: string, chosen: readonly string[]): Html {
  return html`<div class="kind-areas">${kindAreas.map(
    ([area, kinds]) =>
      html`<fieldset class="kind-area"><legend>${area.replace(/_/g, ' ')}</legend>${kinds.map(
        (k) =>
          html`<label class="check" for="${`${form}-kind-${k}`}"><input type="checkbox" id="${`${form}-kind-${k}`}" name="events" value="${k}"${chosen.includes(k) ? html` checked` : ''}> <span>${k.slice(area.length + 1).replace(/_/g, ' ')}</span></label>`,
      )}</fieldset>`,
  )}</div>`;
}

/** The team's root assets (the first 100, by name) for the asset choice. */
export async function rootAssetsOf(
  ctx: ConsoleContext,
): Promise<{ assets: Array<{ name: string; token: string }>; hasMore: boolean }> {
  const { store, markers } = ctx.deps;
  const page = await listAssets(store, markers, ctx.signedIn.team, {
    scope: 'roots',
    marker: undefined,
    pageSize: 100,
  });
  return { assets: parseDocuments<{ name: string; token: string }>(page.items), hasMore: page.hasMore };
}

/** Everything a webhook form needs to be drawn. */
export interface WebhookFormSpec {
  /** `webhook` (create) or `edit`: the ids of its fields and its problem. */
  form: string;
  action: string;
  title: string;
  submit: string;
  values: WebhookFormValues;
  problem: FormProblem | undefined;
  assets: { assets: Array<{ name: string; token: string }>; hasMore: boolean };
  /** Whether an SMTP server is configured (the email format needs one). */
  hasEmail: boolean;
}

function targetFields(spec: WebhookFormSpec): Html {
  const { form, values, problem } = spec;
  const formats = webhookFormats.map(
    (f) =>
      html`<option value="${f}"${f === values.format ? html` selected` : ''}${f === 'email' && !spec.hasEmail && values.format !== 'email' ? html` disabled` : ''}>${formatLabels[f]}${f === 'email' && !spec.hasEmail ? ' — no SMTP server configured' : ''}</option>`,
  );
  return html`<label for="${`${form}-format`}">Format</label>
    <select id="${`${form}-format`}" name="format"${invalidMark(problem, form, 'format')}>${formats}</select>
    <label for="${`${form}-url`}">URL <span class="optional">(JSON, Slack and Teams formats)</span></label>
    <input id="${`${form}-url`}" name="url" type="url" inputmode="url" autocomplete="off" spellcheck="false" placeholder="https://hooks.example.com/perimeter" value="${values.url}" aria-describedby="${`${form}-url-hint`}"${invalidMark(problem, form, 'url')}>
    <p class="hint" id="${`${form}-url-hint`}">Its host must resolve to a public address (the operator's egress allow list opens others).</p>
    <fieldset class="email-fields"><legend>E-mail format only</legend>
      <label for="${`${form}-recipients`}">Recipients <span class="optional">(one a line)</span></label>
      <textarea id="${`${form}-recipients`}" name="recipients" autocomplete="off" spellcheck="false" rows="2"${invalidMark(problem, form, 'recipients')}>${values.recipients}</textarea>
      <label for="${`${form}-digest`}">Digest minutes <span class="optional">(0 sends each event alone)</span></label>
      <input id="${`${form}-digest`}" name="digest_minutes" type="number" min="0" max="1440" step="1" inputmode="numeric" value="${values.digest_minutes}"${invalidMark(problem, form, 'digest_minutes')}>
    </fieldset>`;
}

function filterFields(spec: WebhookFormSpec): Html {
  const { form, values, problem, assets } = spec;
  const severity = html`<option value=""${values.min_severity === '' ? html` selected` : ''}>any (no severity filter)</option>${severities.map(
    (s) => html`<option value="${s}"${s === values.min_severity ? html` selected` : ''}>${s} or above</option>`,
  )}`;
  // A chosen asset past the first 100 stays chosen: it is offered by its token.
  const known = new Set(assets.assets.map((a) => a.token));
  const extra = values.assets.filter((t) => !known.has(t)).map((t) => ({ name: t, token: t }));
  const options = [...assets.assets, ...extra].map(
    (a) => html`<option value="${a.token}"${values.assets.includes(a.token) ? html` selected` : ''}>${a.name}</option>`,
  );
  return html`<fieldset class="plain"><legend>Events</legend>
      <label class="check" for="${`${form}-all-kinds`}"><input type="checkbox" id="${`${form}-all-kinds`}" data-select-all="events"> <span>All kinds</span></label>
      ${kindBoxes(form, values.events)}
    </fieldset>
    <label for="${`${form}-severity`}">Minimum severity <span class="optional">(findings and breaches)</span></label>
    <select id="${`${form}-severity`}" name="min_severity"${invalidMark(problem, form, 'min_severity')}>${severity}</select>
    <label for="${`${form}-assets`}">Assets <span class="optional">(none chosen: every asset)</span></label>
    ${
      options.length === 0
        ? html`<p class="hint" id="${`${form}-assets`}">The team has no assets yet: the webhook receives the events of every asset.</p>`
        : html`<select id="${`${form}-assets`}" name="assets" multiple size="${Math.min(6, options.length)}" aria-describedby="${`${form}-assets-hint`}"${invalidMark(problem, form, 'assets')}>${options}</select>
    <p class="hint" id="${`${form}-assets-hint`}">Ctrl or ⌘ chooses several. A subdomain's events count for its root.${assets.hasMore ? ' The first 100 root assets are offered.' : ''}</p>`
    }`;
}

/**
 * The whole form in its panel: name, where to deliver, what to deliver. A `folded` form (the edit
 * form, or the create form once the team has webhooks) sits closed under its heading until opened,
 * and opens by itself to show a refusal.
 */
export function webhookForm(ctx: ConsoleContext, spec: WebhookFormSpec & { folded?: boolean }): Html {
  const { form, values, problem } = spec;
  const heading = html`<h2 id="${`${form}-title`}">${spec.title}</h2>`;
  const inner = html`${problemFor(problem, form)}
  <form method="post" action="${spec.action}" class="stack webhook-form">
    ${csrfField(ctx.signedIn)}
    <label for="${`${form}-name`}">Name</label>
    <input id="${`${form}-name`}" name="name" required maxlength="255" autocomplete="off" value="${values.name}"${invalidMark(problem, form, 'name')}>
    ${targetFields(spec)}
    ${filterFields(spec)}
    ${form === 'webhook' ? html`<label class="check" for="${`${form}-enabled`}"><input type="checkbox" id="${`${form}-enabled`}" name="enabled" value="true"${values.enabled ? html` checked` : ''}> <span>Enabled: deliver from now on</span></label>` : ''}
    <button type="submit" class="primary">${spec.submit}</button>
  </form>`;
  if (spec.folded === true)
    return html`<details class="panel fold" id="${`${form}-fold`}"${problem?.form === form ? html` open` : ''}><summary>${heading}</summary>${inner}</details>`;
  return html`<section class="panel" aria-labelledby="${`${form}-title`}">${heading}${inner}</section>`;
}
