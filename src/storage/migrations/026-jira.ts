import type { Kysely } from 'kysely';

/**
 * The Jira integration (core/integrations).
 *
 * `jira_connections`: at most one Jira Cloud project per team (the primary key). The API token is
 * kept only sealed with the server key (`api_token_sealed`, never shown back). `cursor_event_id`
 * is the id of the last event of the team's log the sync has applied; `failures` counts the
 * failed syncs in a row (the back-off) and `retry_at` is when the next may run; `stopped_at` is
 * set when Jira refused the credentials or the connection's settings, and the sync waits for the
 * connection to be updated. `last_error` says what went wrong last (null once a sync succeeds).
 *
 * `jira_issues`: the one Jira issue of each finding fingerprint of the team (the primary key
 * (team_id, fingerprint)); `state` is `open` or `done` as the sync last moved it. The index
 * (team_id, vulnerability_uuid) serves the links of one vulnerability.
 *
 * Both cascade from teams.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jira_connections')
    .addColumn('team_id', 'integer', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('account_email', 'text', (c) => c.notNull())
    .addColumn('api_token_sealed', 'text', (c) => c.notNull())
    .addColumn('project_key', 'text', (c) => c.notNull())
    .addColumn('issue_type', 'text', (c) => c.notNull())
    .addColumn('min_severity', 'text', (c) => c.notNull())
    .addColumn('done_transition', 'text', (c) => c.notNull())
    .addColumn('reopen_transition', 'text', (c) => c.notNull())
    .addColumn('cursor_event_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('retry_at', 'bigint')
    .addColumn('stopped_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('last_synced_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('jira_issues')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('vulnerability_uuid', 'text', (c) => c.notNull())
    .addColumn('issue_id', 'text', (c) => c.notNull())
    .addColumn('issue_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('jira_issues_pk', ['team_id', 'fingerprint'])
    .execute();
  await db.schema
    .createIndex('jira_issues_vulnerability_idx')
    .on('jira_issues')
    .columns(['team_id', 'vulnerability_uuid'])
    .execute();
}
