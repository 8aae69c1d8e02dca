import type { EventRepository } from '../events/event.types.ts';
import type { Severity } from '../vulnerabilities/vulnerability.types.ts';

/**
 * Terminology. A team's *Jira connection* is its one Jira Cloud project (base URL, account, API
 * token sealed with the server key, project key, issue type) with the *rule* (the minimum
 * severity) and the names of the *transitions* that close and reopen an issue. The *sync* reads
 * the team's event log after the connection's *cursor* and applies each `vulnerability.*` event:
 * each finding that matches the rule gets exactly one Jira issue, keyed by the finding's
 * *fingerprint* (stored in the issue's `perimeter` property, so that the issue is found again
 * even when our own record of it was lost), closed when the finding is patched or marked, and
 * reopened on regression or unmark. A *link* is our record of that issue (key, state).
 */

/** The issue property that carries the finding's fingerprint. */
export const jiraPropertyKey = 'perimeter';

/** A team's Jira connection as the core sees it; the API token stays sealed. */
export interface JiraConnection {
  teamId: number;
  baseUrl: string;
  accountEmail: string;
  /** The API token, encrypted with the server key (SecretBox). */
  apiTokenSealed: string;
  projectKey: string;
  issueType: string;
  minSeverity: Severity;
  doneTransition: string;
  reopenTransition: string;
  /** The last event of the team's log the sync applied (0: none). */
  cursorEventId: number;
  /** Failed syncs in a row. */
  failures: number;
  /** When the next sync may run after a failure (null: now). */
  retryAt: Date | null;
  /** Set when Jira refused the credentials or settings: no sync until the connection is updated. */
  stoppedAt: Date | null;
  lastError: string | null;
  lastSyncedAt: Date | null;
  created: Date;
  updated: Date;
}

/** Where an issue stands, as the sync last moved it. */
export type JiraIssueState = 'open' | 'done';

/** Our record of the Jira issue of one finding fingerprint. */
export interface JiraIssueLink {
  teamId: number;
  fingerprint: string;
  vulnerabilityUuid: string;
  issueId: string;
  issueKey: string;
  state: JiraIssueState;
  updated: Date;
}

/** What a sync writes back to the connection after a run (omitted fields stay). */
export interface JiraSyncState {
  cursorEventId?: number;
  failures?: number;
  retryAt?: Date | null;
  stoppedAt?: Date | null;
  lastError?: string | null;
  lastSyncedAt?: Date | null;
}

/** Persistence of Jira connections and issue links. Every method is scoped to a team. */
export interface JiraRepository {
  findConnection(teamId: number): Promise<JiraConnection | undefined>;
  /** Creates or replaces the team's connection (every field as given). */
  saveConnection(connection: JiraConnection): Promise<void>;
  /** Deletes the team's connection and its issue links; false when it had none. */
  deleteConnection(teamId: number): Promise<boolean>;
  /** Writes the sync's progress and outcome to the team's connection. */
  updateSyncState(teamId: number, state: JiraSyncState, at: Date): Promise<void>;
  /** The teams whose connection is not stopped and whose log has events after its cursor. */
  teamsBehind(limit: number): Promise<number[]>;
  findIssue(teamId: number, fingerprint: string): Promise<JiraIssueLink | undefined>;
  /** Creates or replaces the link of the fingerprint. */
  saveIssue(link: JiraIssueLink): Promise<void>;
  deleteIssue(teamId: number, fingerprint: string): Promise<void>;
  /** Deletes every issue link of the team (its connection moved to another site or project). */
  deleteIssues(teamId: number): Promise<void>;
  /** The links of one vulnerability of the team (by its uuid). */
  issuesOfVulnerability(teamId: number, vulnerabilityUuid: string): Promise<JiraIssueLink[]>;
}

/** The repositories of the Jira services. */
export interface JiraRepositories {
  jira: JiraRepository;
  events: EventRepository;
}

/** How to reach a Jira site: the API token in clear, only ever held in memory for the calls. */
export interface JiraAccess {
  baseUrl: string;
  email: string;
  apiToken: string;
}

/** An issue as a create or a search answers it. */
export interface JiraIssueRef {
  id: string;
  key: string;
  /** The status category key (`new`, `indeterminate`, `done`), when the answer said it. */
  statusCategory?: string;
}

/** One transition available on an issue. */
export interface JiraTransition {
  id: string;
  name: string;
}

/** A paragraph of an issue's description or of a comment: text runs, a link for a run with `href`. */
export type JiraParagraph = ReadonlyArray<{ text: string; href?: string }>;

/** The fields of a new issue. */
export interface JiraNewIssue {
  projectKey: string;
  issueType: string;
  summary: string;
  description: readonly JiraParagraph[];
  /** The value of the `perimeter` issue property (the fingerprint), set with the issue. */
  property: Record<string, string>;
}

/** A remote link of an issue: `globalId` makes posting it again update the same link. */
export interface JiraRemoteLink {
  globalId: string;
  url: string;
  title: string;
}

/**
 * The Jira REST API v3 as the sync uses it (engine/jira implements it). Every call takes an abort
 * signal and has a time limit; a failure is a JiraError.
 */
export interface JiraClient {
  createIssue(issue: JiraNewIssue, signal: AbortSignal): Promise<JiraIssueRef>;
  setProperty(issueKey: string, value: Record<string, string>, signal: AbortSignal): Promise<void>;
  /** The project's issue whose `perimeter` property has this fingerprint, if any. */
  findByFingerprint(projectKey: string, fingerprint: string, signal: AbortSignal): Promise<JiraIssueRef | undefined>;
  transitions(issueKey: string, signal: AbortSignal): Promise<JiraTransition[]>;
  transition(issueKey: string, transitionId: string, signal: AbortSignal): Promise<void>;
  /** The issue's status category key (`new`, `indeterminate`, `done`). */
  statusCategory(issueKey: string, signal: AbortSignal): Promise<string>;
  addRemoteLink(issueKey: string, link: JiraRemoteLink, signal: AbortSignal): Promise<void>;
  addComment(issueKey: string, body: readonly JiraParagraph[], signal: AbortSignal): Promise<void>;
}

/** Opens a client on a Jira site. */
export type JiraClientFactory = (access: JiraAccess) => JiraClient;

/**
 * How a Jira call failed: `refused` (401/403: the credentials), `throttled` (429),
 * `unavailable` (5xx, a time-out, no connection), `missing` (404: the issue is gone),
 * `rejected` (another 4xx: Jira refused what was sent, e.g. an unknown project or issue type).
 */
export type JiraFailureKind = 'refused' | 'throttled' | 'unavailable' | 'missing' | 'rejected';

/** A failed Jira call. The message never carries the API token. */
export class JiraError extends Error {
  constructor(
    readonly kind: JiraFailureKind,
    message: string,
    /** For `throttled`: the wait Jira asked for (Retry-After), in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'JiraError';
  }
}
