import { appError } from '../../../core/errors/app-error.ts';
import { changeMark, tagVulnerability } from '../../../core/vulnerabilities/vulnerability-status.service.ts';
import type { Mark } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { vulnerabilityRoutes } from '../../v2/vulnerabilities.routes.ts';
import { compileRouteValidator } from '../../validation.ts';
import type { ConsoleContext } from '../console-route.ts';

/**
 * The triage actions of the console: the API's marks (set and unset accepted risk, false
 * positive, fixed) and tags, through the same core services as the v2 operations, recorded in
 * each finding's events under the member's e-mail.
 */

/** The buttons of the mark actions: `mark:<mark>` sets, `unmark:<mark>` unsets. */
export const markActions: Array<{ value: string; label: string; mark: Mark; isSet: boolean }> = [
  { value: 'mark:fixed', label: 'Mark fixed', mark: 'fixed', isSet: true },
  { value: 'unmark:fixed', label: 'Unmark fixed', mark: 'fixed', isSet: false },
  { value: 'mark:accepted_risk', label: 'Accept risk', mark: 'accepted_risk', isSet: true },
  { value: 'unmark:accepted_risk', label: 'Unaccept risk', mark: 'accepted_risk', isSet: false },
  { value: 'mark:false_positive', label: 'False positive', mark: 'false_positive', isSet: true },
  { value: 'unmark:false_positive', label: 'Not a false positive', mark: 'false_positive', isSet: false },
];

/** The most findings one form changes: a page of the list. */
export const maxSelection = 100;

const tagRoute = vulnerabilityRoutes.find((r) => r.operationId === 'tagVulnerability')!;
const tagValidator = compileRouteValidator(tagRoute);

/** A tag name checked by the v2 tag operation's own schema (its 1051 and message), trimmed. */
function checkedTagName(ctx: ConsoleContext, raw: string): string {
  const valid = tagValidator.validate({
    query: {},
    params: {},
    rawBody: Buffer.from(JSON.stringify({ name: raw })),
    deps: ctx.deps,
    team: ctx.signedIn.team,
  });
  return (valid.body as { name: string }).name.trim();
}

/**
 * Applies one action (a mark button or `tag`) to findings of the member's team; answers how
 * many it applied to. An unknown action is 1051; another team's or an unknown finding is 1900,
 * as in the API.
 */
export async function applyAction(ctx: ConsoleContext, action: string, uuids: string[]): Promise<number> {
  const { store } = ctx.deps;
  const { team, member } = ctx.signedIn;
  if (uuids.length === 0) throw appError(1051, 'Select at least one finding.');
  if (uuids.length > maxSelection) throw appError(1051, `Select at most ${maxSelection} findings at once.`);
  const actor = `member ${member.email}`;
  if (action === 'tag') {
    const name = checkedTagName(ctx, ctx.form.get('tag') ?? '');
    for (const uuid of uuids) await tagVulnerability(store, team, uuid, name);
    return uuids.length;
  }
  const mark = markActions.find((a) => a.value === action);
  if (mark === undefined) throw appError(1051, 'Unknown action.');
  for (const uuid of uuids) await changeMark(store, team, uuid, mark.mark, mark.isSet, actor);
  return uuids.length;
}
