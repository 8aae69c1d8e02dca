import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Jira Cloud REST API v3 on 127.0.0.1, answering as Atlassian's documentation shows for the
 * calls the integration makes: create issue (201 {id, key, self}, with `properties`), issue
 * properties (PUT), JQL search (POST /search/jql, `issue.property[…].… = "…"`), transitions (GET
 * the list, POST one: 204), the issue's status (GET ?fields=status), remote links (201; the same
 * globalId updates the link) and comments (201). Basic auth with the one account's e-mail and
 * token, else 401. A test can queue failures (429 with Retry-After, 503). Issues live in memory,
 * so a test counts them.
 */

/** The workflow of the project: status name → its category key. */
const statuses = { 'To Do': 'new', 'In Progress': 'indeterminate', Done: 'done' } as const;
type Status = keyof typeof statuses;
const transitionIds: Record<Status, string> = { 'To Do': '11', 'In Progress': '21', Done: '31' };

/** An issue as the server keeps it. */
export interface FakeJiraIssue {
  id: string;
  key: string;
  projectKey: string;
  issueType: string;
  summary: string;
  description: unknown;
  status: Status;
  properties: Map<string, unknown>;
  remoteLinks: Array<{ globalId: string | undefined; url: string; title: string }>;
  comments: unknown[];
}

/** A queued answer that replaces the next request's. */
export interface FakeJiraFailure {
  status: number;
  headers?: Record<string, string>;
}

/** The running server. */
export interface FakeJira {
  baseUrl: string;
  email: string;
  token: string;
  projectKey: string;
  issues: FakeJiraIssue[];
  /** Every request as `METHOD path`, in order (failed ones included). */
  requests: string[];
  /** Every Authorization header received. */
  authorizations: string[];
  /** Answers the next requests with these failures, in order. */
  failNext(...failures: FakeJiraFailure[]): void;
  /** The issue carrying the fingerprint in its `perimeter` property. */
  issueOf(fingerprint: string): FakeJiraIssue | undefined;
  stop(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { ...(text === '' ? {} : { 'content-type': 'application/json' }), ...headers });
  res.end(text);
}

function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? {} : (JSON.parse(text) as Record<string, unknown>));
      } catch (err) {
        reject(err as Error);
      }
    });
    req.on('error', reject);
  });
}

/** The property search of the JQL the integration sends: project and one property value. */
function parseJql(jql: string): { project: string; property: string; path: string; value: string } | undefined {
  const m = /^project = "?([A-Z][A-Z0-9_]+)"? AND issue\.property\[(\w+)\]\.(\w+) = "((?:[^"\\]|\\.)*)"$/.exec(jql);
  if (m === null) return undefined;
  return { project: m[1]!, property: m[2]!, path: m[3]!, value: m[4]!.replace(/\\(.)/g, '$1') };
}

/** What the handlers share: the project, the issues, the `self` URL of an issue. */
interface FakeState {
  projectKey: string;
  issues: FakeJiraIssue[];
  self(issue: FakeJiraIssue): string;
}

function createIssue(state: FakeState, body: Record<string, unknown>, res: http.ServerResponse): void {
  const fields = (body['fields'] ?? {}) as Record<string, { key?: string; name?: string } | string | undefined>;
  const project = (fields['project'] as { key?: string } | undefined)?.key;
  const issueType = (fields['issuetype'] as { name?: string } | undefined)?.name;
  if (project !== state.projectKey)
    return send(res, 400, { errorMessages: [], errors: { project: 'valid project is required' } });
  if (issueType !== 'Task' && issueType !== 'Bug')
    return send(res, 400, { errorMessages: [], errors: { issuetype: 'Specify a valid issue type' } });
  if (typeof fields['summary'] !== 'string' || fields['summary'] === '')
    return send(res, 400, { errorMessages: [], errors: { summary: 'You must specify a summary of the issue.' } });
  const n = state.issues.filter((i) => i.projectKey === project).length + 1;
  const issue: FakeJiraIssue = {
    id: String(10000 + state.issues.length),
    key: `${project}-${n}`,
    projectKey: project,
    issueType,
    summary: fields['summary'],
    description: fields['description'],
    status: 'To Do',
    properties: new Map(),
    remoteLinks: [],
    comments: [],
  };
  for (const p of (body['properties'] ?? []) as Array<{ key: string; value: unknown }>)
    issue.properties.set(p.key, p.value);
  state.issues.push(issue);
  send(res, 201, { id: issue.id, key: issue.key, self: state.self(issue) });
}

function search(state: FakeState, body: Record<string, unknown>, res: http.ServerResponse): void {
  const query = parseJql(String(body['jql'] ?? ''));
  if (query === undefined) return send(res, 400, { errorMessages: ['Error in the JQL Query'] });
  const hits = state.issues.filter((i) => {
    const value = i.properties.get(query.property) as Record<string, unknown> | undefined;
    return i.projectKey === query.project && value?.[query.path] === query.value;
  });
  const max = typeof body['maxResults'] === 'number' ? body['maxResults'] : 50;
  send(res, 200, {
    isLast: true,
    issues: hits.slice(0, max).map((i) => ({
      id: i.id,
      key: i.key,
      self: state.self(i),
      fields: { status: { name: i.status, statusCategory: { key: statuses[i.status] } } },
    })),
  });
}

async function onIssue(
  state: FakeState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  issue: FakeJiraIssue,
  rest: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  if (method === 'GET' && rest === '')
    return send(res, 200, {
      id: issue.id,
      key: issue.key,
      fields: { status: { name: issue.status, statusCategory: { key: statuses[issue.status] } } },
    });
  if (method === 'PUT' && rest.startsWith('/properties/')) {
    const had = issue.properties.has(rest.slice(12));
    issue.properties.set(rest.slice(12), await readJson(req));
    return send(res, had ? 200 : 201);
  }
  if (method === 'GET' && rest === '/transitions')
    return send(res, 200, {
      transitions: (Object.keys(statuses) as Status[])
        .filter((s) => s !== issue.status)
        .map((s) => ({ id: transitionIds[s], name: s, to: { name: s, statusCategory: { key: statuses[s] } } })),
    });
  if (method === 'POST' && rest === '/transitions') {
    const id = ((await readJson(req))['transition'] as { id?: string } | undefined)?.id;
    const to = (Object.keys(transitionIds) as Status[]).find((s) => transitionIds[s] === id && s !== issue.status);
    if (to === undefined) return send(res, 400, { errorMessages: ['Transition id is not valid for this issue'] });
    issue.status = to;
    return send(res, 204);
  }
  if (method === 'POST' && rest === '/remotelink') {
    const body = await readJson(req);
    const object = (body['object'] ?? {}) as { url?: string; title?: string };
    const globalId = body['globalId'] as string | undefined;
    const known = issue.remoteLinks.findIndex((l) => globalId !== undefined && l.globalId === globalId);
    const link = { globalId, url: String(object.url), title: String(object.title) };
    if (known >= 0) issue.remoteLinks[known] = link;
    else issue.remoteLinks.push(link);
    return send(res, known >= 0 ? 200 : 201, {
      id: known >= 0 ? known + 1 : issue.remoteLinks.length,
      self: state.self(issue),
    });
  }
  if (method === 'POST' && rest === '/comment') {
    const body = await readJson(req);
    issue.comments.push(body['body']);
    return send(res, 201, { id: String(issue.comments.length), body: body['body'] });
  }
  send(res, 404, { errorMessages: ['Not found'] });
}

/** Starts the fake Jira for one account and one project. */
export async function startFakeJira(options: { email: string; token: string; projectKey: string }): Promise<FakeJira> {
  const issues: FakeJiraIssue[] = [];
  const requests: string[] = [];
  const authorizations: string[] = [];
  const failures: FakeJiraFailure[] = [];
  const expected = `Basic ${Buffer.from(`${options.email}:${options.token}`).toString('base64')}`;
  let port = 0;
  const state: FakeState = {
    projectKey: options.projectKey,
    issues,
    self: (issue) => `http://127.0.0.1:${port}/rest/api/3/issue/${issue.id}`,
  };
  const find = (idOrKey: string) => issues.find((i) => i.key === idOrKey || i.id === idOrKey);

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(`${req.method} ${url.pathname}`);
    authorizations.push(req.headers.authorization ?? '');
    const failure = failures.shift();
    if (failure !== undefined)
      return send(res, failure.status, { errorMessages: ['Try again later'] }, failure.headers);
    if (req.headers.authorization !== expected)
      return send(res, 401, { errorMessages: ['You are not authenticated.'] });
    if (req.method === 'POST' && url.pathname === '/rest/api/3/issue')
      return createIssue(state, await readJson(req), res);
    if (req.method === 'POST' && url.pathname === '/rest/api/3/search/jql')
      return search(state, await readJson(req), res);
    const m = /^\/rest\/api\/3\/issue\/([^/]+)(.*)$/.exec(url.pathname);
    const issue = m === null ? undefined : find(decodeURIComponent(m[1]!));
    if (issue === undefined)
      return send(res, 404, { errorMessages: ['Issue does not exist or you do not have permission to see it.'] });
    return onIssue(state, req, res, issue, m![2]!);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { errorMessages: ['Internal server error'] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    ...options,
    issues,
    requests,
    authorizations,
    failNext: (...next) => void failures.push(...next),
    issueOf: (fingerprint) =>
      issues.find(
        (i) => (i.properties.get('perimeter') as { fingerprint?: string } | undefined)?.fingerprint === fingerprint,
      ),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
