/**
 * The perimeter API as the scans benchmark drives it: a seeded store, profiles, scans started,
 * polled and timed against what the target site received. Owns the shapes the benchmark reads
 * back (a scan's status, one timed scan).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runAdmin } from '../src/cli/admin.commands.ts';
import { addAsset } from '../src/core/assets/asset.service.ts';
import type { BenchContext } from './support/benchmark.ts';
import type { SiteProcess, SiteRequest } from './support/site-process.ts';
import { seedTeam } from './support/seed.ts';

/** What GET /rest/v2/scans/{t}/ answers, as far as the benchmark reads it. */
export interface ScanStatusBody {
  status: string;
  error: string;
  warnings: string[];
  progress: { pages_crawled: number; requests_sent: number; checks_done: number; findings: number };
}

/** One scan, start request to `completed`. */
export interface ScanRun {
  durationMs: number;
  /** What the scan says it sent (progress.requests_sent). */
  requestsSent: number;
  /** What the target received between the start request and completion: the truth. */
  requestsReceived: number;
  requestsPerSecond: number;
  pagesCrawled: number;
  checksDone: number;
  findings: number;
  /** Start request → first request at the target (queue, claim, scan setup). */
  startToFirstRequestMs: number;
  /** First → last request at the target: the crawl itself. */
  crawlMs: number;
  /** Last request at the target → `completed` seen by the poll (ingestion, final writes, half a poll on average). */
  lastRequestToCompletedMs: number;
  /** received / crawlMs: the rate during the crawl alone. */
  crawlRequestsPerSecond: number;
  warnings: string[];
}

/** Where the server listens and the v2 key it is called with. */
export interface Api {
  url: string;
  key: string;
}

/** One API call; any status outside 2xx throws with the start of the body. */
export async function call(
  api: Api,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { 'x-service-key': api.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status < 200 || response.status > 299)
    throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** The status of the profile's scan. */
export const scanStatus = async (api: Api, profile: string): Promise<ScanStatusBody> =>
  (await call(api, 'GET', `/rest/v2/scans/${profile}/`)).json as ScanStatusBody;
/** Whether a scan status is one of a scan still going. */
export const isLive = (status: string): boolean => ['starting', 'running', 'stopping'].includes(status);

/** Seeds the store: a team with a v2 key and the asset 127.0.0.1, verified by the admin CLI. */
export async function seed(ctx: BenchContext, dataDir: string): Promise<string> {
  const { runtime, teamId, v2Key } = await seedTeam(dataDir);
  try {
    const team = await runtime.store.teams.findById(teamId);
    if (team === undefined) throw new Error('the seeded team is gone');
    await addAsset(runtime.store, team, '127.0.0.1');
    const lines: string[] = [];
    await runAdmin(runtime, ['asset', 'verify', '127.0.0.1', '--team', team.name], { out: (text) => lines.push(text) });
    ctx.log(`seeded team ${team.name}: ${lines.join(' ')}`);
  } finally {
    await runtime.close();
  }
  return v2Key;
}

/** A profile on a site, at unlimited rate, with more settings if given (a login, start URLs). */
export async function createProfile(
  api: Api,
  assetToken: string,
  site: { port: number },
  name: string,
  extraSettings: Record<string, unknown> = {},
): Promise<string> {
  const profile = (
    await call(api, 'POST', '/rest/v2/profiles/', { asset_token: assetToken, endpoint: `127.0.0.1:${site.port}`, name })
  ).json as { token: string };
  const settings = (
    await call(api, 'PUT', `/rest/v2/profiles/${profile.token}/settings/`, { ...extraSettings, requests_per_second: 0 })
  ).json as { requests_per_second: number };
  if (settings.requests_per_second !== 0)
    throw new Error(`profile ${name}: requests_per_second is ${settings.requests_per_second}, expected 0`);
  return profile.token;
}

/** Starts a scan of the profile; the API must accept it (202). */
export async function startScan(api: Api, profile: string): Promise<void> {
  const started = await call(api, 'POST', `/rest/v2/scans/${profile}/`);
  if (started.status !== 202) throw new Error(`starting a scan answered ${started.status}, expected 202`);
}

/** Local performance.now() of a request the site process logged on the shared wall clock. */
const localTime = (request: SiteRequest): number => request.at - performance.timeOrigin;

/** Starts a scan of the profile and polls its status every `pollMs` until it ends; it must complete within `timeoutMs`. */
export async function timedScan(
  api: Api,
  profile: string,
  site: SiteProcess,
  logFrom: number,
  pollMs: number,
  timeoutMs = 300_000,
): Promise<{ run: ScanRun; requests: SiteRequest[] }> {
  const startedAt = performance.now();
  await startScan(api, profile);
  let status: ScanStatusBody;
  for (;;) {
    status = await scanStatus(api, profile);
    if (!isLive(status.status)) break;
    if (performance.now() - startedAt > timeoutMs)
      throw new Error(`the scan did not end within ${(timeoutMs / 60_000).toFixed(0)} minutes`);
    await sleep(pollMs);
  }
  const endedAt = performance.now();
  if (status.status !== 'completed')
    throw new Error(`the scan ended ${status.status}: ${status.error} ${status.warnings.join('; ')}`);
  const requests = await site.requestsFrom(logFrom);
  if (requests.length === 0) throw new Error('the target received no request from the scan');
  const first = localTime(requests[0]!);
  const last = localTime(requests[requests.length - 1]!);
  const durationMs = endedAt - startedAt;
  const crawlMs = last - first;
  return {
    requests,
    run: {
      durationMs,
      requestsSent: status.progress.requests_sent,
      requestsReceived: requests.length,
      requestsPerSecond: requests.length / (durationMs / 1000),
      pagesCrawled: status.progress.pages_crawled,
      checksDone: status.progress.checks_done,
      findings: status.progress.findings,
      startToFirstRequestMs: first - startedAt,
      crawlMs,
      lastRequestToCompletedMs: endedAt - last,
      crawlRequestsPerSecond: crawlMs > 0 ? requests.length / (crawlMs / 1000) : Number.NaN,
      warnings: status.warnings,
    },
  };
}

/** Polls the profile's scan every `pollMs` until `accept` takes its status; throws if it ends otherwise or times out. */
export async function waitForStatus(
  api: Api,
  profile: string,
  accept: (status: string) => boolean,
  what: string,
  pollMs: number,
  timeoutMs = 60_000,
): Promise<ScanStatusBody> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const status = await scanStatus(api, profile);
    if (accept(status.status)) return status;
    if (!isLive(status.status) && !accept(status.status))
      throw new Error(`waiting for ${what}: the scan ended ${status.status}: ${status.error}`);
    if (performance.now() > deadline)
      throw new Error(`waiting for ${what}: still ${status.status} after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}
