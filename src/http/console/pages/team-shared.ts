import { isAppError } from '../../../core/errors/app-error.ts';
import { plans, type EndpointGroup } from '../../../core/teams/plans.ts';
import type { Team } from '../../../core/teams/team.types.ts';
import { httpStatusOf } from '../../error-status.ts';
import type { RouteDef } from '../../route.ts';
import type { ConsoleAnswer, ConsoleContext } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf } from '../notices.ts';
import { routeBodyCheck } from './form-refusal.ts';

/**
 * What the Team pages share: their tabs (members, groups, API keys, connectors), the frame of a
 * page, a problem to show beside a form, and the body check of an API route (its compiled
 * validator, so a bad value gets the route's own code and message).
 */

/** A refusal to show beside the form that caused it. */
export interface FormProblem {
  /** Which form (each page names its own). */
  form: string;
  code: number;
  message: string;
  /** The values as typed, to fill the form again. */
  values: Record<string, string>;
}

/** The problem of a rule's error for a form, with the HTTP status the API gives its code. */
export function problemFrom(
  err: unknown,
  form: string,
  values: Record<string, string>,
): { problem: FormProblem; status: number } {
  if (!isAppError(err)) throw err;
  return { problem: { form, code: err.code, message: err.message, values }, status: httpStatusOf[err.code] ?? 400 };
}

/** The problem's message beside its form (an alert, so a screen reader says it). */
export function problemFor(problem: FormProblem | undefined, form: string): Html {
  if (problem?.form !== form) return html``;
  const code = problem.code === 0 ? '' : html` <span class="code">(error ${problem.code})</span>`;
  return html`<p class="problem" role="alert" id="${`${form}-problem`}">${problem.message}${code}</p>`;
}

/** A value of the form a problem came from, else the default. */
export function valueFor(problem: FormProblem | undefined, form: string, name: string, fallback = ''): string {
  return problem?.form === form ? (problem.values[name] ?? fallback) : fallback;
}

/** `aria-invalid` and the link to the message, on the fields of the form a problem came from. */
export function invalidFor(problem: FormProblem | undefined, form: string): Html {
  return problem?.form === form ? html` aria-invalid="true" aria-describedby="${`${form}-problem`}"` : html``;
}

/**
 * An Admin's create form in its panel (groups, connectors): the heading, the problem the form
 * caused, the record's required name (ids `create-<form>` and `<form>-name`), then its other
 * fields and the Create button.
 */
export function createPanel(
  ctx: ConsoleContext,
  problem: FormProblem | undefined,
  form: { name: string; title: string; action: string; fields: Html },
): Html {
  return html`<section class="panel" aria-labelledby="${`create-${form.name}`}">
  <h2 id="${`create-${form.name}`}">${form.title}</h2>
  ${problemFor(problem, form.name)}
  <form method="post" action="${form.action}" class="stack">
    ${csrfField(ctx.signedIn)}
    <label for="${`${form.name}-name`}">Name</label>
    <input id="${`${form.name}-name`}" name="name" required autocomplete="off" value="${valueFor(problem, form.name, 'name')}"${invalidFor(problem, form.name)}>
    ${form.fields}
    <button type="submit" class="primary">Create</button>
  </form>
</section>`;
}

type Tab = 'members' | 'groups' | 'keys' | 'connectors' | 'webhooks' | 'jira' | 'events' | 'sso';

const tabs: Array<{ id: Tab; href: string; label: string }> = [
  { id: 'members', href: '/team', label: 'Members' },
  { id: 'groups', href: '/team/groups', label: 'Groups' },
  { id: 'keys', href: '/team/keys', label: 'API keys' },
  { id: 'connectors', href: '/team/connectors', label: 'Connectors' },
  { id: 'webhooks', href: '/team/webhooks', label: 'Webhooks' },
  { id: 'jira', href: '/team/jira', label: 'Jira' },
  { id: 'events', href: '/team/events', label: 'Events' },
  { id: 'sso', href: '/team/sso', label: 'Single sign-on' },
];

/** A Team page: the tabs, then the body, with the notice a redirect named. */
export function teamPage(ctx: ConsoleContext, tab: Tab, title: string, body: Html, status = 200): ConsoleAnswer {
  const notice = noticeOf(ctx.query);
  const nav = tabs.map(
    (t) => html`<li><a href="${t.href}"${t.id === tab ? html` aria-current="page"` : ''}>${t.label}</a></li>`,
  );
  const main = html`<h1>Team ${ctx.signedIn.team.name}</h1>
<nav class="tabs" aria-label="Team"><ul>${nav}</ul></nav>
${body}`;
  return {
    status,
    page: page({ title, signedIn: ctx.signedIn, section: 'team', ...(notice === undefined ? {} : { notice }) }, main),
  };
}

/** Whether the team's plan includes an endpoint group (groups, connectors), as the API's 1009 decides. */
export function planHas(team: Team, group: EndpointGroup): boolean {
  return (plans[team.plan].groups as readonly EndpointGroup[]).includes(group);
}

/** The note a page shows instead of its forms when the plan lacks the area. */
export function notInPlan(team: Team, what: string): Html {
  return html`<p class="hint">The team's plan (${team.plan}) does not include ${what}. Ask your operator: the plan is set with <code>perimeter admin team create --plan</code>.</p>`;
}

/**
 * Checks a body as the API route of that operation does (its compiled validator): the route's
 * code and message for a bad value. Answers the body as the route's handler would read it.
 */
export function checkedBody(
  routes: readonly RouteDef[],
  operationId: string,
  body: unknown,
  params: Record<string, string> = {},
): unknown {
  return routeBodyCheck(routes, operationId, body, params)();
}

/** A time for a table cell: ISO 8601 UTC to the minute, or a dash. */
export function whenOf(value: Date | null | undefined): Html {
  if (value === null || value === undefined) return html`<span class="muted">never</span>`;
  const iso = value.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}
