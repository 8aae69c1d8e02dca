import {
  JiraError,
  jiraPropertyKey,
  type JiraAccess,
  type JiraClient,
  type JiraClientFactory,
  type JiraIssueRef,
  type JiraParagraph,
} from '../../core/integrations/jira.types.ts';
import type { AddressResolver, EgressGuard } from '../net/egress-guard.ts';
import { createGuardedFetch, type GuardedFetch } from '../net/guarded-fetch.ts';

/**
 * The sync's port over Jira Cloud's REST API v3 (core/integrations/jira.types.ts): Basic auth with
 * the account's e-mail and API token, JSON bodies, descriptions and comments in the Atlassian
 * Document Format. Every request goes through the egress guard (guarded-fetch.ts) with a time
 * limit and the caller's abort signal. Errors say the method, the path and Jira's own messages;
 * never the token (it is only in the Authorization header, which no error or log shows).
 */

/** What the client needs: the engine's guard and resolver, and a time limit per request. */
export interface JiraClientDeps {
  guard: EgressGuard;
  resolver: AddressResolver;
  /** Milliseconds a request may take (connection, headers, body); default 15 s. */
  timeoutMs?: number;
}

/** The longest Retry-After honoured, in seconds (an hour). */
const maxRetryAfterSeconds = 3600;

/** Jira's error body: `errorMessages` and per-field `errors`. */
function jiraMessages(body: unknown): string {
  const b = (body ?? {}) as { errorMessages?: unknown; errors?: unknown };
  const list = Array.isArray(b.errorMessages) ? b.errorMessages.filter((m) => typeof m === 'string') : [];
  const fields =
    b.errors !== null && typeof b.errors === 'object'
      ? Object.entries(b.errors as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`)
      : [];
  return [...list, ...fields].join('; ').slice(0, 500);
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, maxRetryAfterSeconds) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(at - Date.now(), 0), maxRetryAfterSeconds * 1000);
}

async function failureOf(response: Response, what: string): Promise<JiraError> {
  const body: unknown = await response.json().catch(() => undefined);
  const said = jiraMessages(body);
  const detail = `${what}: HTTP ${response.status}${said === '' ? '' : ` (${said})`}`;
  const s = response.status;
  if (s === 401 || s === 403) return new JiraError('refused', detail);
  if (s === 429) return new JiraError('throttled', detail, retryAfterMs(response.headers.get('retry-after')));
  if (s === 404) return new JiraError('missing', detail);
  if (s >= 500 || s === 408) return new JiraError('unavailable', detail);
  return new JiraError('rejected', detail);
}

/** Atlassian Document Format: one paragraph per item, link marks on runs with an href. */
function adf(paragraphs: readonly JiraParagraph[]) {
  return {
    type: 'doc',
    version: 1,
    content: paragraphs.map((runs) => ({
      type: 'paragraph',
      content: runs.map((r) =>
        r.href === undefined
          ? { type: 'text', text: r.text }
          : { type: 'text', text: r.text, marks: [{ type: 'link', attrs: { href: r.href } }] },
      ),
    })),
  };
}

/** A JQL string literal. */
function jqlString(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** A JSON call to the site: the answer's body (undefined when none), or a JiraError. */
type JiraCall = (method: string, path: string, signal: AbortSignal, body?: unknown) => Promise<unknown>;

/** Sends requests to one Jira site with Basic auth, a time limit and the caller's signal. */
function requester(fetch: GuardedFetch, access: JiraAccess, timeoutMs: number): JiraCall {
  const authorization = `Basic ${Buffer.from(`${access.email}:${access.apiToken}`).toString('base64')}`;
  return async (method, path, signal, body) => {
    const what = `${method} ${path}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${access.baseUrl}${path}`, {
        method,
        headers: {
          authorization,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      if (!response.ok) throw await failureOf(response, what);
      text = await response.text();
    } catch (err) {
      if (err instanceof JiraError || signal.aborted) throw err;
      const cause = (err as { cause?: unknown }).cause;
      const reason = cause instanceof Error ? cause.message : (err as Error).message;
      throw new JiraError('unavailable', `${what}: ${reason}`);
    }
    try {
      return text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      throw new JiraError('unavailable', `${what}: the answer is not JSON`);
    }
  };
}

/** The client of one Jira site over a fetch. */
function clientOf(fetch: GuardedFetch, access: JiraAccess, timeoutMs: number): JiraClient {
  const call = requester(fetch, access, timeoutMs);
  const issuePath = (key: string, rest = '') => `/rest/api/3/issue/${encodeURIComponent(key)}${rest}`;

  return {
    async createIssue(issue, signal) {
      const body = {
        fields: {
          project: { key: issue.projectKey },
          issuetype: { name: issue.issueType },
          summary: issue.summary,
          description: adf(issue.description),
        },
        properties: [{ key: jiraPropertyKey, value: issue.property }],
      };
      const created = (await call('POST', '/rest/api/3/issue', signal, body)) as { id?: unknown; key?: unknown };
      if (typeof created?.key !== 'string')
        throw new JiraError('unavailable', 'POST /rest/api/3/issue: no issue key in the answer');
      return { id: String(created.id), key: created.key };
    },
    async setProperty(key, value, signal) {
      await call('PUT', issuePath(key, `/properties/${jiraPropertyKey}`), signal, value);
    },
    async findByFingerprint(projectKey, fingerprint, signal) {
      const jql = `project = ${jqlString(projectKey)} AND issue.property[${jiraPropertyKey}].fingerprint = ${jqlString(fingerprint)}`;
      const found = (await call('POST', '/rest/api/3/search/jql', signal, {
        jql,
        fields: ['status'],
        maxResults: 1,
      })) as {
        issues?: Array<{ id: unknown; key: unknown; fields?: { status?: { statusCategory?: { key?: unknown } } } }>;
      };
      const issue = found?.issues?.[0];
      if (issue === undefined || typeof issue.key !== 'string') return undefined;
      const category = issue.fields?.status?.statusCategory?.key;
      const ref: JiraIssueRef = { id: String(issue.id), key: issue.key };
      return typeof category === 'string' ? { ...ref, statusCategory: category } : ref;
    },
    async transitions(key, signal) {
      const answer = (await call('GET', issuePath(key, '/transitions'), signal)) as {
        transitions?: Array<{ id: unknown; name: unknown }>;
      };
      return (answer?.transitions ?? []).map((t) => ({ id: String(t.id), name: String(t.name) }));
    },
    async transition(key, transitionId, signal) {
      await call('POST', issuePath(key, '/transitions'), signal, { transition: { id: transitionId } });
    },
    async statusCategory(key, signal) {
      const issue = (await call('GET', issuePath(key, '?fields=status'), signal)) as {
        fields?: { status?: { statusCategory?: { key?: unknown } } };
      };
      return String(issue?.fields?.status?.statusCategory?.key ?? 'new');
    },
    async addRemoteLink(key, link, signal) {
      const body = {
        globalId: link.globalId,
        application: { type: 'perimeter', name: 'perimeter' },
        object: { url: link.url, title: link.title },
      };
      await call('POST', issuePath(key, '/remotelink'), signal, body);
    },
    async addComment(key, body, signal) {
      await call('POST', issuePath(key, '/comment'), signal, { body: adf(body) });
    },
  };
}

/** The client factory of the sync: one guarded connection pool shared by every site. */
export function createJiraClientFactory(deps: JiraClientDeps): JiraClientFactory {
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const fetch = createGuardedFetch({ guard: deps.guard, resolver: deps.resolver, timeoutMs });
  return (access) => clientOf(fetch, access, timeoutMs);
}
