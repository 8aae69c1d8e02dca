import { FormatRegistry, Type } from '@sinclair/typebox';
import {
  jiraDefaults,
  jiraFieldProblem,
  jiraFields,
  type JiraField,
} from '../../core/integrations/jira-connection.service.ts';
import { severities } from '../../core/vulnerabilities/vulnerability.types.ts';

// Each field's rule is the core's (jiraFieldProblem): the schema's format runs it, so a field that
// fails answers the route's 1051 naming it, in the order of jiraFields.
for (const field of jiraFields) FormatRegistry.Set(`jira-${field}`, (v) => jiraFieldProblem(field, v) === undefined);

const field = (name: JiraField, description: string) => Type.String({ format: `jira-${name}`, description });
const optional = (name: keyof typeof jiraDefaults, description: string) =>
  Type.Optional(field(name, `${description} Default \`${jiraDefaults[name]}\`.`));

/** The body of `PUT /integrations/jira`: every field checked, the first at fault answers 1051 naming it. */
export const JiraConnectionBody = Type.Object({
  base_url: field(
    'base_url',
    'The Jira Cloud site, e.g. `https://acme.atlassian.net`: https (plain http only for a Jira on this machine), no user, query or fragment.',
  ),
  account_email: field('account_email', 'The e-mail address of the Atlassian account the API token belongs to.'),
  api_token: field(
    'api_token',
    'An API token of that account (id.atlassian.com → Security → API tokens). Stored only encrypted with the server key; never returned or logged.',
  ),
  project_key: field(
    'project_key',
    'The key of the Jira project issues are created in: `[A-Z][A-Z0-9_]+` (e.g. `SEC`).',
  ),
  issue_type: optional('issue_type', 'The issue type of the issues created (its name in the project).'),
  min_severity: Type.Optional(
    Type.Union(
      severities.map((s) => Type.Literal(s)),
      {
        description: `Only vulnerabilities of this severity or above get an issue. Default \`${jiraDefaults.min_severity}\`.`,
      },
    ),
  ),
  done_transition: optional(
    'done_transition',
    'The name of the workflow transition that closes an issue when its finding is patched or marked (matched case-insensitively).',
  ),
  reopen_transition: optional(
    'reopen_transition',
    'The name of the transition that reopens an issue on regression or unmark (matched case-insensitively).',
  ),
});

/** A team's Jira connection as the API shows it: never the API token. */
export const JiraConnection = Type.Object({
  base_url: Type.String(),
  account_email: Type.String(),
  project_key: Type.String(),
  issue_type: Type.String(),
  min_severity: Type.Union(severities.map((s) => Type.Literal(s))),
  done_transition: Type.String(),
  reopen_transition: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('retrying'), Type.Literal('stopped')], {
    description:
      '`active`; `retrying` after Jira failed (down, throttled: the sync retries with back-off); `stopped` when Jira refused the credentials or a request (no sync until the connection is updated with PUT).',
  }),
  last_error: Type.Union([Type.String(), Type.Null()], {
    description: 'What went wrong last, or null once a sync succeeded.',
  }),
  last_synced_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When a sync last caught up with the event log, or null.',
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

/** The query of the issue links: one vulnerability. */
export const JiraIssuesQuery = Type.Object({
  vulnerability: Type.Optional(Type.String({ description: 'The vulnerability `uuid` (v2). Required.' })),
});

/** The Jira issues of one vulnerability. */
export const JiraIssueList = Type.Object({
  items: Type.Array(
    Type.Object({
      vulnerability_uuid: Type.String(),
      fingerprint: Type.String({
        description: 'The finding fingerprint the issue is keyed by (its `perimeter` issue property).',
      }),
      issue_key: Type.String({ description: 'The Jira issue key, e.g. `SEC-12`.' }),
      url: Type.String({ description: "The issue's browse URL on the Jira site." }),
      state: Type.Union([Type.Literal('open'), Type.Literal('done')], {
        description: 'Where perimeter last moved the issue: `open`, or `done` (patched or marked).',
      }),
    }),
  ),
});
