import type { EventRecord } from '../events/event.types.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import { severities, type Severity } from '../vulnerabilities/vulnerability.types.ts';
import {
  JiraError,
  jiraPropertyKey,
  type JiraClient,
  type JiraClientFactory,
  type JiraConnection,
  type JiraIssueLink,
  type JiraIssueState,
  type JiraParagraph,
  type JiraRepositories,
} from './jira.types.ts';

/** What the sync runs with. */
export interface JiraSyncDeps {
  store: JiraRepositories;
  box: SecretBox;
  client: JiraClientFactory;
  /** The clock (tests move it). */
  now?: () => Date;
}

/** How a sync run ended. */
export type JiraSyncOutcome =
  /** No connection, or one stopped until it is updated. */
  | { kind: 'idle' }
  /** Caught up (`more`: the run stopped at its size limit with events left). */
  | { kind: 'synced'; applied: number; more: boolean }
  /** Jira failed (down, throttled): the next run may start at `at`. */
  | { kind: 'retry'; at: Date; error: string }
  /** Jira refused the credentials or the settings: no run until the connection is updated. */
  | { kind: 'stopped'; error: string };

/** Events read per page, and at most per run (the job runs again for the rest). */
const pageSize = 100;
const maxEventsPerRun = 1000;
/** The back-off after a failure: 30 s, doubling, at most an hour. */
const backoff = { firstMs: 30_000, maxMs: 3_600_000 } as const;

/** The fields of a finding the sync reads from a `vulnerability.*` event. */
interface Finding {
  uuid: string;
  fingerprint: string;
  title: string;
  severity: Severity;
  host: string;
  url: string | null;
  assetName: string;
  detailsPage: string;
}

/** One run: the connection, its client, the clock. */
interface SyncRun {
  deps: JiraSyncDeps;
  connection: JiraConnection;
  client: JiraClient;
  now: () => Date;
  signal: AbortSignal;
}

const rank = (s: Severity) => severities.indexOf(s);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function findingOf(event: EventRecord): Finding | undefined {
  const d = event.data;
  const uuid = text(d['vulnerability_uuid']);
  const fingerprint = text(d['fingerprint']);
  const severity = event.severity ?? (d['severity'] as Severity | undefined);
  if (uuid === undefined || fingerprint === undefined || severity === undefined || !severities.includes(severity))
    return undefined;
  return {
    uuid,
    fingerprint,
    severity,
    title: text(d['title']) ?? 'Vulnerability',
    host: text(d['host']) ?? '',
    url: text(d['url']) ?? null,
    assetName: text(d['asset_name']) ?? '',
    detailsPage: text(d['details_page']) ?? '',
  };
}

/** What an event asks of the finding's issue: open it (regression: with a comment), or close it. */
function actionOf(event: EventRecord): 'open' | 'regress' | 'close' | undefined {
  switch (event.kind) {
    case 'vulnerability.new':
      return 'open';
    case 'vulnerability.regression':
      return 'regress';
    case 'vulnerability.patched':
      return 'close';
    case 'vulnerability.status_changed':
      if (event.data['marked'] === true) return 'close';
      // An unmarked finding is open again, unless it was patched meanwhile.
      return event.data['status'] === 'patched' ? 'close' : 'open';
    default:
      return undefined;
  }
}

function summaryOf(f: Finding): string {
  const level = f.severity.charAt(0).toUpperCase() + f.severity.slice(1);
  const summary = `[${level}] ${f.title}${f.host === '' ? '' : ` on ${f.host}`}`;
  return [...summary].length > 250 ? `${[...summary].slice(0, 249).join('')}…` : summary;
}

function descriptionOf(f: Finding): JiraParagraph[] {
  const where = f.url ?? f.host;
  return [
    [{ text: `perimeter found ${f.title} (severity ${f.severity})${where === '' ? '' : ` at ${where}`}.` }],
    ...(f.assetName === '' ? [] : [[{ text: `Asset: ${f.assetName}` }]]),
    ...(f.detailsPage === '' ? [] : [[{ text: 'Details: ' }, { text: f.detailsPage, href: f.detailsPage }]]),
    [
      {
        text:
          `Fingerprint: ${f.fingerprint}. perimeter keeps this issue in step with the finding: it is moved to done when the ` +
          'finding is patched or marked (accepted risk, false positive, fixed), and reopened when it comes back.',
      },
    ],
  ];
}

/** Moves an issue by the transition of that name; an issue already where it should be is left. */
async function move(run: SyncRun, link: JiraIssueLink, name: string, target: JiraIssueState): Promise<void> {
  const { client, signal } = run;
  const transitions = await client.transitions(link.issueKey, signal);
  const wanted = transitions.find((t) => t.name.toLowerCase() === name.toLowerCase());
  if (wanted !== undefined) await client.transition(link.issueKey, wanted.id, signal);
  else if (((await client.statusCategory(link.issueKey, signal)) === 'done') !== (target === 'done'))
    throw new JiraError('rejected', `issue ${link.issueKey} has no transition named "${name}"`);
  await run.deps.store.jira.saveIssue({ ...link, state: target, updated: run.now() });
}

/**
 * The finding's issue found by its property (our record of it was lost: a crash between the
 * create and our write), else created; its property and remote link are set (posting the link
 * again updates it), then our record is written.
 */
async function adoptOrCreate(
  run: SyncRun,
  f: Finding,
  canCreate: boolean,
): Promise<{ link: JiraIssueLink; isNew: boolean } | undefined> {
  const { client, connection, signal } = run;
  const found = await client.findByFingerprint(connection.projectKey, f.fingerprint, signal);
  if (found === undefined && !canCreate) return undefined;
  const property = { fingerprint: f.fingerprint };
  const ref =
    found ??
    (await client.createIssue(
      {
        projectKey: connection.projectKey,
        issueType: connection.issueType,
        summary: summaryOf(f),
        description: descriptionOf(f),
        property,
      },
      signal,
    ));
  if (found === undefined) await client.setProperty(ref.key, property, signal);
  if (f.detailsPage !== '')
    await client.addRemoteLink(
      ref.key,
      { globalId: `${jiraPropertyKey}-finding=${f.fingerprint}`, url: f.detailsPage, title: `perimeter: ${f.title}` },
      signal,
    );
  const link: JiraIssueLink = {
    teamId: connection.teamId,
    fingerprint: f.fingerprint,
    vulnerabilityUuid: f.uuid,
    issueId: ref.id,
    issueKey: ref.key,
    state: found?.statusCategory === 'done' ? 'done' : 'open',
    updated: run.now(),
  };
  await run.deps.store.jira.saveIssue(link);
  return { link, isNew: found === undefined };
}

async function openIssue(run: SyncRun, f: Finding, isRegression: boolean): Promise<void> {
  const { store } = run.deps;
  const known = await store.jira.findIssue(run.connection.teamId, f.fingerprint);
  const got = known === undefined ? await adoptOrCreate(run, f, true) : { link: known, isNew: false };
  if (got === undefined) return;
  let { link } = got;
  if (link.vulnerabilityUuid !== f.uuid) {
    link = { ...link, vulnerabilityUuid: f.uuid, updated: run.now() };
    await store.jira.saveIssue(link);
  }
  try {
    if (link.state === 'done') await move(run, link, run.connection.reopenTransition, 'open');
    if (isRegression && !got.isNew) await run.client.addComment(link.issueKey, regressionComment(f), run.signal);
  } catch (err) {
    if (!(err instanceof JiraError) || err.kind !== 'missing' || known === undefined) throw err;
    // The issue was deleted in Jira: forget it and give the finding a new one.
    await store.jira.deleteIssue(link.teamId, link.fingerprint);
    await openIssue(run, f, isRegression);
  }
}

function regressionComment(f: Finding): JiraParagraph[] {
  return [
    [{ text: `perimeter found this vulnerability again (regression): ${f.title} at ${f.url ?? f.host}.` }],
    ...(f.detailsPage === '' ? [] : [[{ text: 'Details: ' }, { text: f.detailsPage, href: f.detailsPage }]]),
  ];
}

async function closeIssue(run: SyncRun, f: Finding): Promise<void> {
  const { store } = run.deps;
  const link =
    (await store.jira.findIssue(run.connection.teamId, f.fingerprint)) ?? (await adoptOrCreate(run, f, false))?.link;
  if (link === undefined || link.state === 'done') return;
  try {
    await move(run, link, run.connection.doneTransition, 'done');
  } catch (err) {
    if (!(err instanceof JiraError) || err.kind !== 'missing') throw err;
    await store.jira.deleteIssue(link.teamId, link.fingerprint);
  }
}

/** Applies one event of the log to Jira (nothing for other kinds and findings below the rule). */
async function applyEvent(run: SyncRun, event: EventRecord): Promise<void> {
  const action = actionOf(event);
  const finding = action === undefined ? undefined : findingOf(event);
  if (action === undefined || finding === undefined) return;
  if (rank(finding.severity) < rank(run.connection.minSeverity)) return;
  if (action === 'close') await closeIssue(run, finding);
  else await openIssue(run, finding, action === 'regress');
}

/** Records a failed run: throttled or unavailable waits (back-off), refused or rejected stops. */
async function recordFailure(run: SyncRun, err: JiraError): Promise<JiraSyncOutcome> {
  const { store } = run.deps;
  const now = run.now();
  const teamId = run.connection.teamId;
  if (err.kind === 'refused' || err.kind === 'rejected' || err.kind === 'missing') {
    const error =
      err.kind === 'refused'
        ? `Jira refused the credentials (${err.message})`
        : `Jira refused a request: ${err.message}`;
    await store.jira.updateSyncState(teamId, { stoppedAt: now, lastError: error, retryAt: null }, now);
    return { kind: 'stopped', error };
  }
  const failures = run.connection.failures + 1;
  const exponential = Math.min(backoff.firstMs * 2 ** Math.min(failures - 1, 20), backoff.maxMs);
  const waitMs =
    err.retryAfterMs === undefined ? exponential : Math.min(Math.max(err.retryAfterMs, 1000), backoff.maxMs);
  const at = new Date(now.getTime() + waitMs);
  const error = `Jira is unavailable (${err.message}); retrying at ${at.toISOString()}`;
  await store.jira.updateSyncState(teamId, { failures, retryAt: at, lastError: error }, now);
  return { kind: 'retry', at, error };
}

/** Applies the team's events after the cursor, saving the cursor after each; the caller's errors (the store) are thrown. */
async function applyEvents(run: SyncRun): Promise<{ applied: number; more: boolean }> {
  const { store } = run.deps;
  const teamId = run.connection.teamId;
  let cursor = run.connection.cursorEventId;
  let saved = cursor;
  let applied = 0;
  for (let seen = 0; seen < maxEventsPerRun;) {
    run.signal.throwIfAborted();
    const events = await store.events.list(teamId, {}, cursor, pageSize);
    for (const event of events) {
      if (event.kind.startsWith('vulnerability.')) {
        await applyEvent(run, event);
        applied += 1;
        await store.jira.updateSyncState(teamId, { cursorEventId: event.id }, run.now());
        saved = event.id;
      }
      cursor = event.id;
      seen += 1;
    }
    if (cursor !== saved) await store.jira.updateSyncState(teamId, { cursorEventId: cursor }, run.now());
    saved = cursor;
    if (events.length < pageSize) return { applied, more: false };
  }
  return { applied, more: true };
}

/**
 * One sync run of a team: reads its events after the connection's cursor and applies each
 * `vulnerability.*` one to Jira, in order, saving the cursor after each (other kinds only move the
 * cursor). A Jira failure ends the run where it is: the event is applied again by the next run
 * (every step is idempotent but a regression's comment). Returns at once when the connection is
 * stopped or its back-off has not elapsed.
 */
export async function syncJira(deps: JiraSyncDeps, teamId: number, signal: AbortSignal): Promise<JiraSyncOutcome> {
  const now = deps.now ?? (() => new Date());
  const connection = await deps.store.jira.findConnection(teamId);
  if (connection === undefined || connection.stoppedAt !== null) return { kind: 'idle' };
  if (connection.retryAt !== null && connection.retryAt > now())
    return { kind: 'retry', at: connection.retryAt, error: connection.lastError ?? 'waiting to retry' };
  const access = {
    baseUrl: connection.baseUrl,
    email: connection.accountEmail,
    apiToken: deps.box.decrypt(connection.apiTokenSealed),
  };
  const run: SyncRun = { deps, connection, client: deps.client(access), now, signal };
  try {
    const { applied, more } = await applyEvents(run);
    await deps.store.jira.updateSyncState(
      teamId,
      { failures: 0, retryAt: null, lastError: null, lastSyncedAt: now() },
      now(),
    );
    return { kind: 'synced', applied, more };
  } catch (err) {
    if (err instanceof JiraError && !signal.aborted) return recordFailure(run, err);
    throw err;
  }
}
