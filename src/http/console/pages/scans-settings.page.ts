import { roleAllows } from '../../../core/accounts/account-policy.ts';
import {
  invalidLoginSelector,
  profileSettingRanges,
  scanRegions,
  type ProfileSettingsInput,
} from '../../../core/scans/scan-profile-settings.ts';
import { updateProfileSettings } from '../../../core/scans/scan-profile.service.ts';
import type { ScanProfile } from '../../../core/scans/scan.types.ts';
// The face checks login selectors with the engine's compiler, as the v2 settings route does.
import { compileSelector } from '../../../engine/fingerprint/css-selector.ts';
import { profileRoutes as v2ProfileRoutes } from '../../v2/profiles.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import { refusalOf, routeBodyCheck, type FormRefusal } from './form-refusal.ts';
import { settingsForm } from './settings-form.ts';
import { formOfPost, isFieldNamed, type SettingsForm, type TextField } from './scans-settings-form.ts';
import {
  bodyWithSecrets,
  formWithoutSecrets,
  hasPassword,
  keptValueMarker,
  type SecretsView,
} from './scans-settings-secrets.ts';
import { profileOf, profilePath } from './scans-shared.page.ts';

/**
 * The settings form of a scan profile: every field of the settings, read by every role, saved
 * by an Admin. The form becomes the JSON body of v2's PUT /profiles/<token>/settings/, checked
 * by that route's own validator (the first failing field's code and message: 2641 to 2673,
 * 1051) and saved by the same core service with the same login selector check, so every rule
 * answers with the API's message. Stored secrets (the password, secret login values, credential
 * header values, cookie values) never show (scans-settings-secrets.ts): the body checked is the
 * form merged with them.
 */

/** One input of the form: its label, its hint, and whether it takes several lines. */
interface TextInput {
  field: TextField;
  label: string;
  hint: string;
  /** The hint for members who only read the settings, where it differs. */
  readHint?: string;
  kind?: 'lines' | 'password' | 'region';
}

const { requests_per_second: rps, report_lifespan_days: lifespan } = profileSettingRanges;

const groups: Array<{
  legend: string;
  switches: Array<{ field: keyof SettingsForm; label: string }>;
  inputs: TextInput[];
}> = [
  {
    legend: 'Scope',
    switches: [
      { field: 'crawl_subdomains', label: 'Crawl subdomains of the endpoint' },
      { field: 'scan_common_ports', label: 'Scan the common web ports too' },
    ],
    inputs: [
      {
        field: 'start_urls',
        label: 'Start URLs',
        hint: 'One a line: paths (/shop?page=1) or URLs inside the scope where the crawl begins, besides /, robots.txt and sitemap.xml.',
        kind: 'lines',
      },
      {
        field: 'whitelisted_paths',
        label: 'Paths to scan only',
        hint: 'One a line, each starting with /. Empty: every path.',
        kind: 'lines',
      },
      {
        field: 'blacklisted_paths',
        label: 'Paths never scanned',
        hint: 'One a line, each starting with /.',
        kind: 'lines',
      },
      {
        field: 'blacklisted_subdomains',
        label: 'Subdomains never scanned',
        hint: 'One a line, the subdomain part only (admin, api.eu).',
        kind: 'lines',
      },
      { field: 'whitelisted_ports', label: 'Ports to scan only', hint: 'Comma-separated, 1 to 65535.' },
      { field: 'blacklisted_ports', label: 'Ports never scanned', hint: 'Comma-separated, 1 to 65535.' },
    ],
  },
  {
    legend: 'Requests',
    switches: [{ field: 'render_javascript', label: 'Render pages in a browser (JavaScript applications)' }],
    inputs: [
      {
        field: 'requests_per_second',
        label: 'Requests per second',
        hint: `${rps.min} to ${rps.max}, or 0 for no limit.`,
      },
      {
        field: 'custom_headers',
        label: 'Custom headers',
        hint: `Sent with every request: one a line, as Name: value. The value of a credential header (Authorization, Cookie, X-Api-Key, a name with auth, token, key, secret or session) shows as ${keptValueMarker}: left so, the stored value stays.`,
        readHint:
          'Sent with every request: one a line, as Name: value. The value of a credential header (Authorization, Cookie, X-Api-Key, a name with auth, token, key, secret or session) shows as (set) only.',
        kind: 'lines',
      },
      {
        field: 'custom_cookies',
        label: 'Custom cookies',
        hint: `One a line, as name=value, optionally followed by ; Secure and ; HttpOnly. A stored value shows as ${keptValueMarker}: left so, it stays.`,
        readHint:
          'One a line, as name=value, optionally followed by ; Secure and ; HttpOnly. Values show as (set) only.',
        kind: 'lines',
      },
    ],
  },
  {
    legend: 'Authentication',
    switches: [],
    inputs: [
      {
        field: 'basic_auth_username',
        label: 'Basic authentication: user name',
        hint: 'No colon. Empty, with no password: no basic authentication.',
      },
      {
        field: 'basic_auth_password',
        label: 'Basic authentication: password',
        hint: 'Never shown again once saved.',
        kind: 'password',
      },
      {
        field: 'session_cookie',
        label: 'Session cookie',
        hint: `name=value (; Secure; HttpOnly): the cookie of a logged-in session. Empty: none. A stored value shows as ${keptValueMarker}: left so, it stays.`,
        readHint:
          'name=value (; Secure; HttpOnly): the cookie of a logged-in session, its value shown as (set) only. Empty: none.',
      },
    ],
  },
  {
    legend: 'Login form (the scanner logs in before it crawls)',
    switches: [],
    inputs: [
      {
        field: 'login_url',
        label: 'Login form page',
        hint: 'A path (/login) or a URL of the application. Empty, with the other login fields: no login.',
      },
      {
        field: 'login_fields',
        label: 'Login form values',
        hint: `One a line, as field=value: the user name and the password the scanner types. A value whose field name looks like a secret (password, token, key, PIN, OTP) shows as ${keptValueMarker}: left so, the stored value stays.`,
        readHint:
          'One a line, as field=value: the user name and the password the scanner types. A value whose field name looks like a secret (password, token, key, PIN, OTP) shows as (set) or (not set) only.',
        kind: 'lines',
      },
      {
        field: 'login_logged_in_text',
        label: 'Text only on a logged-in page',
        hint: 'Tells the scanner it is logged in (optional).',
      },
      {
        field: 'login_logged_in_selector',
        label: 'CSS selector only on a logged-in page',
        hint: 'For example a#logout (optional).',
      },
      {
        field: 'login_logged_out_text',
        label: 'Text only on a logged-out page',
        hint: 'Tells the scanner it was logged out (optional).',
      },
      {
        field: 'login_logged_out_selector',
        label: 'CSS selector only on a logged-out page',
        hint: 'For example form#login (optional).',
      },
    ],
  },
  {
    legend: 'Reports and region',
    switches: [],
    inputs: [
      {
        field: 'report_lifespan_days',
        label: 'Keep reports (days)',
        hint: `${lifespan.min} to ${lifespan.max}, or 0 for the service's lifetime. The latest report always stays.`,
      },
      {
        field: 'scan_region',
        label: 'Scan region',
        hint: 'Changing it needs the enterprise plan. Scans run from this service’s own workers.',
        kind: 'region',
      },
    ],
  },
];

/** What the form knows of the stored password: who reads it, whether one is set, and whether one was just typed. */
interface PasswordState {
  view: SecretsView;
  isSet: boolean;
  wasTyped: boolean;
}

/**
 * The password never shows: an Admin gets an empty password input (empty keeps the stored one)
 * and a switch that removes it; another role reads "set" or "not set".
 */
function passwordInput(input: TextInput, state: PasswordState, attrs: Html): Html {
  const { field } = input;
  const now = state.isSet ? 'A password is set' : 'No password is set';
  if (state.view === 'read')
    return html`<label for="${field}">${input.label}</label>
<input id="${field}" value="${state.isSet ? 'set' : 'not set'}" readonly${attrs}>
<p class="hint" id="${`${field}-hint`}">Shown as set or not set only; an Admin changes it.</p>`;
  const retype = state.wasTyped ? 'The password typed was not saved: type it again. ' : '';
  const keep = state.isSet ? '; leave empty to keep it.' : '; empty: none.';
  const remove = state.isSet
    ? html`<label class="check" for="basic_auth_password_remove"><input type="checkbox" id="basic_auth_password_remove" name="basic_auth_password_remove" value="true"> <span>Remove the password</span></label>`
    : '';
  return html`<label for="${field}">${input.label}</label>
<input id="${field}" name="${field}" type="password" value="" autocomplete="new-password" spellcheck="false"${attrs}>
${remove}
<p class="hint" id="${`${field}-hint`}">${retype}${now}${keep}</p>`;
}

function textInput(input: TextInput, form: SettingsForm, bad: readonly string[], password: PasswordState): Html {
  const { field } = input;
  const hintId = `${field}-hint`;
  const attrs = html` aria-describedby="${hintId}"${isFieldNamed(field, bad) ? html` aria-invalid="true"` : ''}`;
  if (input.kind === 'password') return passwordInput(input, password, attrs);
  const value = form[field];
  let control: Html;
  if (input.kind === 'lines')
    control = html`<textarea id="${field}" name="${field}" rows="3" spellcheck="false"${attrs}>${value}</textarea>`;
  else if (input.kind === 'region') {
    const regions: string[] = [...scanRegions];
    if (!regions.includes(value)) regions.push(value);
    control = html`<select id="${field}" name="${field}"${attrs}>${regions.map(
      (r) => html`<option value="${r}"${r === value ? html` selected` : ''}>${r}</option>`,
    )}</select>`;
  } else
    control = html`<input id="${field}" name="${field}" value="${value}" autocomplete="off" spellcheck="false"${attrs}>`;
  return html`<label for="${field}">${input.label}</label>
${control}
<p class="hint" id="${hintId}">${password.view === 'read' ? (input.readHint ?? input.hint) : input.hint}</p>`;
}

function fieldsets(form: SettingsForm, bad: readonly string[], password: PasswordState): Html {
  return html`${groups.map(
    (g) => html`<fieldset class="stack">
<legend>${g.legend}</legend>
${g.switches.map(
  (s) =>
    html`<label class="check" for="${s.field}"><input type="checkbox" id="${s.field}" name="${s.field}" value="true"${form[s.field] ? html` checked` : ''}> <span>${s.label}</span></label>`,
)}
${g.inputs.map((i) => textInput(i, form, bad, password))}
</fieldset>`,
  )}`;
}

async function settingsPage(
  ctx: ConsoleContext,
  profile: ScanProfile,
  form?: SettingsForm,
  problem?: FormRefusal,
): Promise<ConsoleAnswer> {
  const { role } = ctx.signedIn.member;
  const canSave = roleAllows(role, 'administer');
  const view: SecretsView = canSave ? 'edit' : 'read';
  // A form shown again after a refusal keeps what was typed, but never the password.
  const shown = form === undefined ? formWithoutSecrets(profile.settings, view) : { ...form, basic_auth_password: '' };
  const password = { view, isSet: hasPassword(profile.settings), wasTyped: (form?.basic_auth_password ?? '') !== '' };
  const notice = noticeOf(ctx.query);
  const title = `Settings of ${profile.name}`;
  const body = html`<p class="hint"><a href="/scans">Scans</a> / <a href="${profilePath(profile.token)}">${profile.name}</a></p>
<h1>${title}</h1>
${settingsForm({
  signedIn: ctx.signedIn,
  action: profilePath(profile.token, '/settings'),
  problem,
  canSave,
  formClass: 'stack settings scan-settings',
  fields: html`<legend class="visually-hidden">Settings</legend>
      ${fieldsets(shown, problem?.parameters ?? [], password)}`,
})}`;
  return {
    status: problem?.status ?? 200,
    page: page({ title, signedIn: ctx.signedIn, section: 'scans', ...(notice === undefined ? {} : { notice }) }, body),
  };
}

/**
 * Saves the form as v2's update does: the profile first (the not-found page for another team's,
 * an unknown or a malformed token), then the body checked by the route's validator and the login
 * selectors by the scanner's compiler, then the core's rules (1009 for the region). A refusal
 * shows the form again with the API's message and the values as typed.
 */
async function saveHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const profile = await profileOf(ctx);
  const form = formOfPost(ctx.form);
  const removePassword = ctx.form.get('basic_auth_password_remove') !== null;
  try {
    const body = bodyWithSecrets(form, profile.settings, removePassword);
    const checked = routeBodyCheck(v2ProfileRoutes, 'updateScanProfileSettings', body, {
      scanProfileToken: profile.token,
    });
    await updateProfileSettings(ctx.deps.store, ctx.signedIn.team, profile.token, () => {
      const input = checked() as ProfileSettingsInput;
      const error = invalidLoginSelector(input, (selector) => compileSelector(selector) !== undefined);
      if (error !== undefined) throw error;
      return input;
    });
  } catch (err) {
    return settingsPage(ctx, profile, form, refusalOf(err));
  }
  return { redirect: withNotice(profilePath(profile.token, '/settings'), 'settings-saved') };
}

/** The settings form of a scan profile: read by every role, saved by Admins. */
export const scanSettingsRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/scans/:token/settings',
    access: 'read',
    handler: async (ctx) => settingsPage(ctx, await profileOf(ctx)),
  },
  { method: 'POST', path: '/scans/:token/settings', access: 'administer', handler: saveHandler },
];
