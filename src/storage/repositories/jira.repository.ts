import type { Kysely, Selectable } from 'kysely';
import type {
  JiraConnection,
  JiraIssueLink,
  JiraIssueState,
  JiraRepository,
  JiraSyncState,
} from '../../core/integrations/jira.types.ts';
import type { Severity } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { JiraConnectionsTable, JiraIssuesTable } from '../schema-jira.ts';
import type { Schema } from '../schema.ts';

const time = (value: number | null): Date | null => (value === null ? null : new Date(Number(value)));
const millis = (value: Date | null): number | null => (value === null ? null : value.getTime());

function toConnection(row: Selectable<JiraConnectionsTable>): JiraConnection {
  return {
    teamId: Number(row.team_id),
    baseUrl: row.base_url,
    accountEmail: row.account_email,
    apiTokenSealed: row.api_token_sealed,
    projectKey: row.project_key,
    issueType: row.issue_type,
    minSeverity: row.min_severity as Severity,
    doneTransition: row.done_transition,
    reopenTransition: row.reopen_transition,
    cursorEventId: Number(row.cursor_event_id),
    failures: Number(row.failures),
    retryAt: time(row.retry_at),
    stoppedAt: time(row.stopped_at),
    lastError: row.last_error,
    lastSyncedAt: time(row.last_synced_at),
    created: new Date(Number(row.created_at)),
    updated: new Date(Number(row.updated_at)),
  };
}

function toLink(row: Selectable<JiraIssuesTable>): JiraIssueLink {
  return {
    teamId: Number(row.team_id),
    fingerprint: row.fingerprint,
    vulnerabilityUuid: row.vulnerability_uuid,
    issueId: row.issue_id,
    issueKey: row.issue_key,
    state: row.state as JiraIssueState,
    updated: new Date(Number(row.updated_at)),
  };
}

/** The teams' Jira connections and issue links on Kysely (migration 026); every statement filters on team_id. */
export class KyselyJiraRepository implements JiraRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async findConnection(teamId: number): Promise<JiraConnection | undefined> {
    const row = await this.db
      .selectFrom('jira_connections')
      .selectAll()
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return row === undefined ? undefined : toConnection(row);
  }

  async saveConnection(c: JiraConnection): Promise<void> {
    const values = {
      base_url: c.baseUrl,
      account_email: c.accountEmail,
      api_token_sealed: c.apiTokenSealed,
      project_key: c.projectKey,
      issue_type: c.issueType,
      min_severity: c.minSeverity,
      done_transition: c.doneTransition,
      reopen_transition: c.reopenTransition,
      cursor_event_id: c.cursorEventId,
      failures: c.failures,
      retry_at: millis(c.retryAt),
      stopped_at: millis(c.stoppedAt),
      last_error: c.lastError,
      last_synced_at: millis(c.lastSyncedAt),
      updated_at: c.updated.getTime(),
    };
    await this.db
      .insertInto('jira_connections')
      .values({ team_id: c.teamId, created_at: c.created.getTime(), ...values })
      .onConflict((oc) => oc.column('team_id').doUpdateSet(values))
      .execute();
  }

  async deleteConnection(teamId: number): Promise<boolean> {
    await this.deleteIssues(teamId);
    const result = await this.db.deleteFrom('jira_connections').where('team_id', '=', teamId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async updateSyncState(teamId: number, state: JiraSyncState, at: Date): Promise<void> {
    const set: Partial<JiraConnectionsTable> = { updated_at: at.getTime() };
    if (state.cursorEventId !== undefined) set.cursor_event_id = state.cursorEventId;
    if (state.failures !== undefined) set.failures = state.failures;
    if (state.retryAt !== undefined) set.retry_at = millis(state.retryAt);
    if (state.stoppedAt !== undefined) set.stopped_at = millis(state.stoppedAt);
    if (state.lastError !== undefined) set.last_error = state.lastError;
    if (state.lastSyncedAt !== undefined) set.last_synced_at = millis(state.lastSyncedAt);
    await this.db.updateTable('jira_connections').set(set).where('team_id', '=', teamId).execute();
  }

  async teamsBehind(limit: number): Promise<number[]> {
    // One probe of the (team_id, id) index of events per connection.
    const rows = await this.db
      .selectFrom('jira_connections as c')
      .select('c.team_id')
      .where('c.stopped_at', 'is', null)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('events as e')
            .select('e.id')
            .whereRef('e.team_id', '=', 'c.team_id')
            .whereRef('e.id', '>', 'c.cursor_event_id'),
        ),
      )
      .orderBy('c.team_id')
      .limit(limit)
      .execute();
    return rows.map((r) => Number(r.team_id));
  }

  async findIssue(teamId: number, fingerprint: string): Promise<JiraIssueLink | undefined> {
    const row = await this.db
      .selectFrom('jira_issues')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('fingerprint', '=', fingerprint)
      .executeTakeFirst();
    return row === undefined ? undefined : toLink(row);
  }

  async saveIssue(link: JiraIssueLink): Promise<void> {
    const values = {
      vulnerability_uuid: link.vulnerabilityUuid,
      issue_id: link.issueId,
      issue_key: link.issueKey,
      state: link.state,
      updated_at: link.updated.getTime(),
    };
    await this.db
      .insertInto('jira_issues')
      .values({ team_id: link.teamId, fingerprint: link.fingerprint, ...values })
      .onConflict((oc) => oc.columns(['team_id', 'fingerprint']).doUpdateSet(values))
      .execute();
  }

  async deleteIssue(teamId: number, fingerprint: string): Promise<void> {
    await this.db
      .deleteFrom('jira_issues')
      .where('team_id', '=', teamId)
      .where('fingerprint', '=', fingerprint)
      .execute();
  }

  async deleteIssues(teamId: number): Promise<void> {
    await this.db.deleteFrom('jira_issues').where('team_id', '=', teamId).execute();
  }

  async issuesOfVulnerability(teamId: number, vulnerabilityUuid: string): Promise<JiraIssueLink[]> {
    const rows = await this.db
      .selectFrom('jira_issues')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('vulnerability_uuid', '=', vulnerabilityUuid)
      .orderBy('fingerprint')
      .execute();
    return rows.map(toLink);
  }
}
