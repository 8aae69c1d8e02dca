import { Type } from '@sinclair/typebox';
import { appError } from '../../core/errors/app-error.ts';
import {
  deleteJiraConnection,
  findJiraConnection,
  invalidJiraField,
  jiraFields,
  jiraIssuesOfVulnerability,
  parseJiraSettings,
  saveJiraConnection,
} from '../../core/integrations/jira-connection.service.ts';
import type { JiraConnection as Connection } from '../../core/integrations/jira.types.ts';
import { isUuid } from '../../core/shared/ids.ts';
import { toWireTime } from '../../core/shared/time.ts';
import { NotFoundProblem } from '../errors.ts';
import { defineRoute, type FieldError, type RouteDef } from '../route.ts';
import { JiraConnection, JiraConnectionBody, JiraIssueList, JiraIssuesQuery } from './jira.schemas.ts';

const path = '/integrations/jira';
const extension = "An extension of perimeter (docs/integrations.md): the team's Jira Cloud project.";
const noConnection = 'No Jira connection for this team';

/** The wire shape of a connection: never the API token. */
function presentConnection(c: Connection) {
  return {
    base_url: c.baseUrl,
    account_email: c.accountEmail,
    project_key: c.projectKey,
    issue_type: c.issueType,
    min_severity: c.minSeverity,
    done_transition: c.doneTransition,
    reopen_transition: c.reopenTransition,
    status: c.stoppedAt !== null ? 'stopped' : c.failures > 0 ? 'retrying' : 'active',
    last_error: c.lastError,
    last_synced_at: c.lastSyncedAt === null ? null : toWireTime(c.lastSyncedAt),
    created_at: toWireTime(c.created),
    updated_at: toWireTime(c.updated),
  };
}

const fieldErrors: Record<string, FieldError> = Object.fromEntries(
  jiraFields.map((f) => [f, (value: unknown) => invalidJiraField(f, value)]),
);

/** The v3 Jira integration: the team's connection and the issue of each finding. */
export const jiraRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'PUT',
    path,
    group: 'events',
    operationId: 'putJiraConnection',
    summary: 'Connect Jira',
    description:
      `${extension} Creates or replaces the connection: from now on each vulnerability of \`min_severity\` or above gets one Jira issue, keyed by its ` +
      'fingerprint, closed when the finding is patched or marked and reopened on regression or unmark. A new connection starts at the end of the ' +
      "team's event log; replacing one on the same site and project keeps its place and its issues, and clears a stop after refused credentials. " +
      'A bad field answers 400 (type /problems/1051) naming it; the API token is stored only encrypted and never returned.',
    tags: ['integrations'],
    body: JiraConnectionBody,
    input: { order: [...jiraFields], errors: fieldErrors },
    response: JiraConnection,
    successStatus: 200,
    isExtension: true,
    errors: [1050, 1051],
    handler: async (ctx) => {
      const settings = parseJiraSettings(ctx.body);
      const saved = await saveJiraConnection(ctx.deps.store, ctx.deps.box, ctx.team.id, settings, new Date());
      return { status: 200, body: presentConnection(saved) };
    },
  }),
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path,
    group: 'events',
    operationId: 'getJiraConnection',
    summary: 'Get Jira connection',
    description: `${extension} The connection without its API token, with the sync's last error and last success; 404 when the team has none.`,
    tags: ['integrations'],
    response: JiraConnection,
    successStatus: 200,
    isExtension: true,
    isNotFoundPossible: true,
    errors: [],
    handler: async (ctx) => {
      const connection = await findJiraConnection(ctx.deps.store, ctx.team.id);
      if (connection === undefined) throw new NotFoundProblem(noConnection);
      return { status: 200, body: presentConnection(connection) };
    },
  }),
  defineRoute({
    surface: 'v3',
    method: 'DELETE',
    path,
    group: 'events',
    operationId: 'deleteJiraConnection',
    summary: 'Disconnect Jira',
    description: `${extension} Deletes the connection and perimeter's links to its issues (the issues stay in Jira); 204, or 404 when there is none.`,
    tags: ['integrations'],
    response: Type.Null({ description: 'No body.' }),
    successStatus: 204,
    isExtension: true,
    isNotFoundPossible: true,
    errors: [],
    handler: async (ctx) => {
      if (!(await deleteJiraConnection(ctx.deps.store, ctx.team.id))) throw new NotFoundProblem(noConnection);
      return { status: 204 };
    },
  }),
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: `${path}/issues`,
    group: 'events',
    operationId: 'listJiraIssues',
    summary: 'List Jira issues of a vulnerability',
    description:
      `${extension} The Jira issue of a vulnerability of the team (its key, browse URL and state), none when it has none or the team has no connection. ` +
      '`vulnerability` (the v2 `uuid`) is required; a missing or malformed one answers 400 naming it (type /problems/4150).',
    tags: ['integrations'],
    query: JiraIssuesQuery,
    response: JiraIssueList,
    successStatus: 200,
    isExtension: true,
    errors: [4150],
    handler: async (ctx) => {
      const raw = ctx.input['vulnerability'];
      if (typeof raw !== 'string' || !isUuid(raw.trim()))
        throw appError(4150, 'vulnerability is required: the uuid of a vulnerability', ['vulnerability']);
      const links = await jiraIssuesOfVulnerability(ctx.deps.store, ctx.team.id, raw.trim().toLowerCase());
      const items = links.map((l) => ({
        vulnerability_uuid: l.vulnerabilityUuid,
        fingerprint: l.fingerprint,
        issue_key: l.issueKey,
        url: l.url,
        state: l.state,
      }));
      return { status: 200, body: { items } };
    },
  }),
];
