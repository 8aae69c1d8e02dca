import { roleAllows } from '../../../core/accounts/account-policy.ts';
import {
  assetSettingFields,
  type AssetSettings,
  type AssetSettingsInput,
} from '../../../core/assets/asset-settings.ts';
import { getAssetSettings, updateAssetSettings } from '../../../core/assets/asset.service.ts';
import { assetRoutes as v2AssetRoutes } from '../../v2/assets.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import { assetPath, targetOf, tokenOf } from './assets-shared.page.ts';
import { invalidMark, refusalOf, routeBodyCheck, type FormRefusal } from './form-refusal.ts';
import { settingsForm } from './settings-form.ts';

/**
 * The settings form of an asset. Nothing is checked here: the form's fields become the JSON body
 * of v2's `PUT /domains/{token}/settings/`, checked by that route's own validator (one 2422
 * listing every problem) and saved by the same core service, so every rule answers with the
 * API's message. Port lists are sent as the comma-separated text the API accepts, the rate as a
 * number when it is digits (else as the text, which the schema refuses with its message).
 */

type BooleanField = {
  [K in keyof AssetSettings]: AssetSettings[K] extends boolean ? K : never;
}[keyof AssetSettings];

/** The form as it shows: the switches, and the text of the other fields as typed. */
interface FormValues {
  switches: Record<BooleanField, boolean>;
  requests_per_second: string;
  port_scanning_avoid_list: string;
  port_scanning_force_list: string;
  custom_headers: string;
}

/** A labelled switch of the form. */
interface Switch {
  field: BooleanField;
  label: string;
  hint?: string;
}

const groups: Array<{ legend: string; switches: Switch[] }> = [
  {
    legend: 'Surface monitoring',
    switches: [
      { field: 'monitoring', label: 'Monitor the surface', hint: 'Verified domains only, within the plan’s capacity.' },
      { field: 'scrape', label: 'Find subdomains by scraping (DNS, certificates, pages)' },
      { field: 'brute_force', label: 'Find subdomains by brute force', hint: 'Only while scraping is on.' },
      { field: 'subdomain_takeover_tests', label: 'Test subdomains for takeover' },
      { field: 'include_discovered_ports_in_surface_monitoring', label: 'Include discovered ports in monitoring' },
    ],
  },
  {
    legend: 'TLS',
    switches: [
      { field: 'enable_tls_discovery', label: 'Discover TLS services' },
      { field: 'enable_active_tls_assessments', label: 'Active TLS assessments' },
      { field: 'enable_passive_tls_assessments', label: 'Passive TLS assessments' },
      { field: 'enable_certificate_assessments', label: 'Certificate assessments' },
      { field: 'ssl_audit', label: 'SSL audit', hint: 'Deprecated.' },
    ],
  },
  {
    legend: 'Scanning',
    switches: [
      { field: 'fingerprinting', label: 'Fingerprint technologies' },
      { field: 'stateless_tests', label: 'Stateless tests' },
    ],
  },
  {
    legend: 'Port scanning',
    switches: [
      { field: 'enable_port_scanning', label: 'Scan ports' },
      { field: 'port_scanning_include_recommended_ports', label: 'Include the recommended ports' },
    ],
  },
];

const booleanFields = groups.flatMap((g) => g.switches.map((s) => s.field));

function valuesOf(settings: AssetSettings): FormValues {
  return {
    switches: Object.fromEntries(booleanFields.map((f) => [f, settings[f]])) as Record<BooleanField, boolean>,
    requests_per_second: String(settings.requests_per_second),
    port_scanning_avoid_list: settings.port_scanning_avoid_list.join(', '),
    port_scanning_force_list: settings.port_scanning_force_list.join(', '),
    custom_headers: Object.entries(settings.custom_headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
  };
}

function formValuesOf(form: URLSearchParams): FormValues {
  return {
    switches: Object.fromEntries(booleanFields.map((f) => [f, form.get(f) !== null])) as Record<BooleanField, boolean>,
    requests_per_second: form.get('requests_per_second') ?? '',
    port_scanning_avoid_list: form.get('port_scanning_avoid_list') ?? '',
    port_scanning_force_list: form.get('port_scanning_force_list') ?? '',
    custom_headers: form.get('custom_headers') ?? '',
  };
}

/** The custom headers typed one a line, `Name: value`, as the API's object (a line without a colon is a name). */
function headersOf(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    const name = (colon === -1 ? line : line.slice(0, colon)).trim();
    headers[name] = colon === -1 ? '' : line.slice(colon + 1).trim();
  }
  return headers;
}

/** The JSON body v2 would receive for the form (every field; nothing checked here). */
function bodyOf(values: FormValues): Record<string, unknown> {
  const rate = values.requests_per_second.trim();
  const body: Record<string, unknown> = {
    ...values.switches,
    custom_headers: headersOf(values.custom_headers),
    port_scanning_avoid_list: values.port_scanning_avoid_list,
    port_scanning_force_list: values.port_scanning_force_list,
    requests_per_second: /^\d+$/.test(rate) ? Number(rate) : rate,
  };
  return Object.fromEntries(assetSettingFields.map((f) => [f, body[f]]));
}

function switchInput(s: Switch, values: FormValues, refusal: FormRefusal | undefined): Html {
  const hint = s.hint === undefined ? '' : html` <span class="hint" id="${`${s.field}-hint`}">${s.hint}</span>`;
  return html`<label class="check" for="${s.field}"><input type="checkbox" id="${s.field}" name="${s.field}" value="true"${values.switches[s.field] ? html` checked` : ''}${s.hint === undefined ? '' : html` aria-describedby="${`${s.field}-hint`}"`}${invalidMark(refusal, s.field)}> <span>${s.label}</span></label>${hint}`;
}

function textField(
  field: 'requests_per_second' | 'port_scanning_avoid_list' | 'port_scanning_force_list',
  label: string,
  hint: string,
  values: FormValues,
  refusal: FormRefusal | undefined,
): Html {
  return html`<label for="${field}">${label}</label>
<input id="${field}" name="${field}" value="${values[field]}" autocomplete="off" spellcheck="false"${field === 'requests_per_second' ? html` inputmode="numeric"` : ''} aria-describedby="${`${field}-hint`}"${invalidMark(refusal, field)}>
<p class="hint" id="${`${field}-hint`}">${hint}</p>`;
}

function fieldsets(values: FormValues, refusal: FormRefusal | undefined): Html {
  const sets = groups.map((g) => {
    const extra =
      g.legend === 'Scanning'
        ? html`${textField('requests_per_second', 'Requests per second', '1 to 1000, or 0 for no limit.', values, refusal)}
<label for="custom_headers">Custom headers</label>
<textarea id="custom_headers" name="custom_headers" rows="3" spellcheck="false" aria-describedby="custom_headers-hint"${invalidMark(refusal, 'custom_headers')}>${values.custom_headers}</textarea>
<p class="hint" id="custom_headers-hint">Sent with every request of a scan: one a line, as <code>X-Name: value</code>; names start with x- or X-.</p>`
        : g.legend === 'Port scanning'
          ? html`${textField('port_scanning_avoid_list', 'Ports never scanned', 'Comma-separated, for example 22, 3389.', values, refusal)}
${textField('port_scanning_force_list', 'Ports always scanned', 'Comma-separated, for example 8080, 8443.', values, refusal)}`
          : '';
    return html`<fieldset class="stack">
<legend>${g.legend}</legend>
${g.switches.map((s) => switchInput(s, values, refusal))}
${extra}
</fieldset>`;
  });
  return html`${sets}`;
}

async function settingsPage(ctx: ConsoleContext, values?: FormValues, problem?: FormRefusal): Promise<ConsoleAnswer> {
  const target = await targetOf(ctx);
  const token = tokenOf(ctx);
  const name = target.asset?.name ?? target.discovered!.name;
  const shown = values ?? valuesOf(await getAssetSettings(ctx.deps.store, ctx.signedIn.team, token));
  const { role } = ctx.signedIn.member;
  const canSave = roleAllows(role, 'administer');
  const notice = noticeOf(ctx.query);
  const body = html`<p class="hint"><a href="/assets">Assets</a> / <a href="${assetPath(token)}">${name}</a></p>
<h1>Settings of ${name}</h1>
${settingsForm({
  signedIn: ctx.signedIn,
  action: assetPath(token, '/settings'),
  problem,
  canSave,
  formClass: 'stack settings',
  fields: fieldsets(shown, problem),
})}`;
  return {
    status: problem?.status ?? 200,
    page: page(
      {
        title: `Settings of ${name}`,
        signedIn: ctx.signedIn,
        section: 'assets',
        ...(notice === undefined ? {} : { notice }),
      },
      body,
    ),
  };
}

/**
 * Saves the form as v2's update does: the asset first (the not-found page for another team's,
 * an unknown or a malformed token), then the body checked by the route's validator, then the
 * core's rules (2423 to 2426). A refusal shows the form again with the API's message and the
 * values as typed.
 */
async function saveHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  await targetOf(ctx);
  const token = tokenOf(ctx);
  const values = formValuesOf(ctx.form);
  try {
    const checked = routeBodyCheck(v2AssetRoutes, 'updateAssetSettings', bodyOf(values), { domainToken: token });
    await updateAssetSettings(
      ctx.deps.store,
      ctx.signedIn.team,
      token,
      () => checked() as AssetSettingsInput,
      ctx.deps.monitoring,
    );
  } catch (err) {
    return settingsPage(ctx, values, refusalOf(err));
  }
  return { redirect: withNotice(assetPath(token, '/settings'), 'settings-saved') };
}

/** The settings form of an asset: read by every role, saved by Admins. */
export const assetSettingsRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/assets/:token/settings', access: 'read', handler: (ctx) => settingsPage(ctx) },
  { method: 'POST', path: '/assets/:token/settings', access: 'administer', handler: saveHandler },
];
