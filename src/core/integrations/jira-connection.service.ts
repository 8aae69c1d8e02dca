import { appError, type AppError } from '../errors/app-error.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import { hasControlCharacter } from '../shared/text.ts';
import { severities, type Severity } from '../vulnerabilities/vulnerability.types.ts';
import type { JiraConnection, JiraIssueLink, JiraRepositories } from './jira.types.ts';

/** The fields of a Jira connection body, in the order they are checked. */
export const jiraFields = [
  'base_url',
  'account_email',
  'api_token',
  'project_key',
  'issue_type',
  'min_severity',
  'done_transition',
  'reopen_transition',
] as const;

/** One field of a Jira connection body. */
export type JiraField = (typeof jiraFields)[number];

/** The values of the optional fields when a body leaves them out. */
export const jiraDefaults = {
  issue_type: 'Task',
  min_severity: 'high',
  done_transition: 'Done',
  reopen_transition: 'To Do',
} as const satisfies Partial<Record<JiraField, string>>;

/** A project key: a capital letter, then capitals, digits or underscores (Jira's rule). */
export const jiraProjectKeyPattern = /^[A-Z][A-Z0-9_]+$/;

const limits = { url: 2048, email: 254, token: 1024, projectKey: 64, name: 255 } as const;

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function textProblem(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value.trim() === '') return 'must not be empty';
  if ([...value].length > max) return `must be at most ${max} characters`;
  if (hasControlCharacter(value)) return 'must not contain control characters';
  return undefined;
}

function baseUrlProblem(value: unknown): string | undefined {
  const text = textProblem(value, limits.url);
  if (text !== undefined) return text;
  let url: URL;
  try {
    url = new URL((value as string).trim());
  } catch {
    return 'must be a URL (for example https://acme.atlassian.net)';
  }
  // The API token travels in every request: plain http only to a Jira on this machine.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    return 'must start with https:// (plain http only for a Jira on this machine)';
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    return 'must not have a user name, a password, a query or a fragment';
  return undefined;
}

/**
 * What is wrong with one field of a Jira connection body, or undefined. Optional fields (those
 * with a default) may be absent; the api_token is never echoed.
 */
export function jiraFieldProblem(field: JiraField, value: unknown): string | undefined {
  if (value === undefined || value === null)
    return field in jiraDefaults && value === undefined ? undefined : 'is required';
  switch (field) {
    case 'base_url':
      return baseUrlProblem(value);
    case 'account_email': {
      const text = textProblem(value, limits.email);
      if (text !== undefined) return text;
      return /^[^\s@]+@[^\s@]+$/.test((value as string).trim()) ? undefined : 'must be an e-mail address';
    }
    case 'api_token': {
      const text = textProblem(value, limits.token);
      if (text !== undefined) return text;
      return /\s/.test((value as string).trim()) ? 'must not contain spaces' : undefined;
    }
    case 'project_key':
      if (typeof value !== 'string') return 'must be a string';
      if (value.length > limits.projectKey) return `must be at most ${limits.projectKey} characters`;
      return jiraProjectKeyPattern.test(value)
        ? undefined
        : 'must be a Jira project key: a capital letter, then capitals, digits or underscores (for example SEC)';
    case 'min_severity':
      return (severities as readonly unknown[]).includes(value) ? undefined : `must be one of ${severities.join(', ')}`;
    default:
      return textProblem(value, limits.name);
  }
}

/** 1051 naming the field and what is wrong with it. */
export function invalidJiraField(field: JiraField, value: unknown): AppError {
  return appError(1051, `Request body malformed: ${field} ${jiraFieldProblem(field, value) ?? 'is invalid'}`, [field]);
}

/** The validated settings of a connection; the API token still in clear (sealed before it is stored). */
export interface JiraSettings {
  baseUrl: string;
  accountEmail: string;
  apiToken: string;
  projectKey: string;
  issueType: string;
  minSeverity: Severity;
  doneTransition: string;
  reopenTransition: string;
}

/** Checks a body field by field (the first at fault answers 1051 naming it) and fills the defaults. */
export function parseJiraSettings(body: unknown): JiraSettings {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw appError(1051, 'Request body malformed: the body must be a JSON object');
  const raw = body as Record<string, unknown>;
  for (const field of jiraFields)
    if (jiraFieldProblem(field, raw[field]) !== undefined) throw invalidJiraField(field, raw[field]);
  const text = (field: JiraField): string => {
    const value = raw[field] ?? (jiraDefaults as Record<string, string>)[field];
    return (value as string).trim();
  };
  return {
    baseUrl: text('base_url').replace(/\/+$/, ''),
    accountEmail: text('account_email'),
    apiToken: text('api_token'),
    projectKey: text('project_key'),
    issueType: text('issue_type'),
    minSeverity: text('min_severity') as Severity,
    doneTransition: text('done_transition'),
    reopenTransition: text('reopen_transition'),
  };
}

/**
 * Creates or replaces the team's connection; the API token is sealed. A new connection starts at
 * the end of the team's log (only what happens from now on is sent to Jira). A replacement on
 * the same site and project keeps its place in the log and its issues; one that moves to another
 * site or project starts again at the end of the log, with no issues. Either way it clears the
 * last failure, so a connection stopped by refused credentials syncs again.
 */
export async function saveJiraConnection(
  store: JiraRepositories,
  box: SecretBox,
  teamId: number,
  settings: JiraSettings,
  now: Date,
): Promise<JiraConnection> {
  const old = await store.jira.findConnection(teamId);
  const isSameProject = old !== undefined && old.baseUrl === settings.baseUrl && old.projectKey === settings.projectKey;
  if (old !== undefined && !isSameProject) await store.jira.deleteIssues(teamId);
  const { apiToken, ...rest } = settings;
  const connection: JiraConnection = {
    teamId,
    ...rest,
    apiTokenSealed: box.encrypt(apiToken),
    cursorEventId: isSameProject ? old.cursorEventId : await store.events.latestId(teamId),
    failures: 0,
    retryAt: null,
    stoppedAt: null,
    lastError: null,
    lastSyncedAt: isSameProject ? old.lastSyncedAt : null,
    created: old?.created ?? now,
    updated: now,
  };
  await store.jira.saveConnection(connection);
  return connection;
}

/** The team's connection, if any. */
export function findJiraConnection(store: JiraRepositories, teamId: number): Promise<JiraConnection | undefined> {
  return store.jira.findConnection(teamId);
}

/** Deletes the team's connection and its issue links (the Jira issues stay in Jira); false when none. */
export function deleteJiraConnection(store: JiraRepositories, teamId: number): Promise<boolean> {
  return store.jira.deleteConnection(teamId);
}

/** The browse URL of an issue on the connection's site. */
export function jiraBrowseUrl(baseUrl: string, issueKey: string): string {
  return `${baseUrl}/browse/${encodeURIComponent(issueKey)}`;
}

/** A link of a vulnerability to its Jira issue, with the issue's browse URL. */
export interface JiraIssueView extends JiraIssueLink {
  url: string;
}

/** The Jira issues of one vulnerability of the team (none when the team has no connection). */
export async function jiraIssuesOfVulnerability(
  store: JiraRepositories,
  teamId: number,
  vulnerabilityUuid: string,
): Promise<JiraIssueView[]> {
  const connection = await store.jira.findConnection(teamId);
  if (connection === undefined) return [];
  const links = await store.jira.issuesOfVulnerability(teamId, vulnerabilityUuid);
  return links.map((l) => ({ ...l, url: jiraBrowseUrl(connection.baseUrl, l.issueKey) }));
}
