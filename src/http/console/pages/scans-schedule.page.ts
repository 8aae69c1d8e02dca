import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { removeSchedule, setSchedule, type ScheduleInput } from '../../../core/scans/schedule.service.ts';
import { scheduleFrequencies, type ScanProfile } from '../../../core/scans/scan.types.ts';
import { scanRoutes as v2ScanRoutes } from '../../v2/scans.routes.ts';
import type { ConsoleContext } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { problemOf, timeOf } from './assets-shared.page.ts';
import { invalidMark, routeBodyCheck, type FormRefusal } from './form-refusal.ts';
import { profilePath } from './scans-shared.page.ts';

/**
 * A profile's schedule: what it is, the form that sets it and the button that removes it. The
 * form's fields become the JSON body of v2's POST /scanschedules/<token>/, checked by that
 * route's own validator (5066 for the frequency, 1085 for the start, with its messages) and set
 * by the same core service.
 */

/** The schedule form as typed. */
export interface ScheduleValues {
  frequency: string;
  start: string;
}

/** A refusal of the schedule form: the API's message and what was typed. */
export interface ScheduleProblem extends FormRefusal {
  values: ScheduleValues;
}

/** How each frequency reads in the form. */
const frequencyLabels: Record<(typeof scheduleFrequencies)[number], string> = {
  never: 'Never (no schedule)',
  once: 'Once',
  daily: 'Daily',
  weekly: 'Weekly',
  biweekly: 'Every two weeks',
  monthly: 'Monthly',
};

/** The form's values. */
export function scheduleValuesOf(form: URLSearchParams): ScheduleValues {
  return { frequency: form.get('frequency') ?? '', start: form.get('start') ?? '' };
}

/**
 * The start as the API receives it: `YYYY-MM-DD HH:MM` (what people type, in UTC) gains the
 * seconds and the Z of the API's form; anything else is sent as typed, for the API's rule.
 */
function startOf(text: string): string {
  const trimmed = text.trim();
  const short = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})$/.exec(trimmed);
  return short === null ? trimmed : `${short[1]}T${short[2]}:00Z`;
}

/** Sets the schedule as v2 does: the profile first, then the body through the route's validator. */
export async function applySchedule(ctx: ConsoleContext, profile: ScanProfile, values: ScheduleValues): Promise<void> {
  const start = startOf(values.start);
  const body = start === '' ? { frequency: values.frequency } : { frequency: values.frequency, start };
  const checked = routeBodyCheck(v2ScanRoutes, 'setScanSchedule', body, { scanProfileToken: profile.token });
  await setSchedule(ctx.deps, ctx.signedIn.team, profile.token, () => checked() as ScheduleInput);
}

/** Removes the schedule as v2's DELETE /scanschedules/<token>/ does. */
export async function dropSchedule(ctx: ConsoleContext, profile: ScanProfile): Promise<void> {
  await removeSchedule(ctx.deps, ctx.signedIn.team, profile.token);
}

function scheduleFacts(profile: ScanProfile): Html {
  const { frequency, first, next } = profile.schedule;
  if (frequency === 'never') return html`<p>No schedule: scans run when started.</p>`;
  return html`<dl class="facts">
  <dt>Frequency</dt><dd>${frequencyLabels[frequency]}</dd>
  <dt>First scan</dt><dd>${timeOf(first)}</dd>
  <dt>Next scan</dt><dd>${timeOf(next)}</dd>
</dl>`;
}

/** The schedule section of a profile's page (the form for a role that may scan). */
export function scheduleSection(ctx: ConsoleContext, profile: ScanProfile, problem: ScheduleProblem | undefined): Html {
  const { member } = ctx.signedIn;
  const canSet = roleAllows(member.role, 'scan');
  const current = profile.schedule.frequency;
  const values = problem?.values ?? { frequency: current === 'never' ? 'weekly' : current, start: '' };
  const options = scheduleFrequencies.map(
    (f) => html`<option value="${f}"${f === values.frequency ? html` selected` : ''}>${frequencyLabels[f]}</option>`,
  );
  const form = canSet
    ? html`<form method="post" action="${profilePath(profile.token, '/schedule')}" class="stack">
    ${csrfField(ctx.signedIn)}
    <label for="frequency">Frequency</label>
    <select id="frequency" name="frequency"${invalidMark(problem, 'frequency')}>${options}</select>
    <label for="start">First scan <span class="optional">(UTC; empty: now)</span></label>
    <input id="start" name="start" autocomplete="off" spellcheck="false" value="${values.start}" placeholder="2026-12-01 08:00" aria-describedby="start-hint"${invalidMark(problem, 'start')}>
    <p class="hint" id="start-hint">As <code>2026-12-01 08:00</code> (UTC), <code>2026-12-01T08:00:00Z</code>, with an offset (<code>+0100</code>) or in Unix seconds. A time past runs at its next occurrence.</p>
    <button type="submit" class="primary">Save the schedule</button>
  </form>
  ${current === 'never' ? '' : html`<form method="post" action="${profilePath(profile.token, '/schedule/remove')}" class="toolbar">${csrfField(ctx.signedIn)}<button type="submit">Remove the schedule</button></form>`}`
    : html`<p class="hint">Your role (${member.role}) reads the schedule; an Editor or an Admin sets it.</p>`;
  return html`<section class="panel" aria-labelledby="schedule">
  <h2 id="schedule">Schedule</h2>
  ${problemOf(problem, 'schedule-problem')}
  ${scheduleFacts(profile)}
  ${form}
</section>`;
}
