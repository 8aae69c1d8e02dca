import { expectPositionals, oneOf, parseArgs, type ParsedArgs } from './args.ts';
import { apiOf, note, print, type Io } from './context.ts';
import { ApiError, ExitError, UsageError, exitCodes } from './errors.ts';
import { help } from './help.ts';
import type { Api } from './http.ts';
import { duration, table } from './output.ts';

interface Profile {
  token: string;
  name: string;
  endpoint: string;
}

/** The v2 scan status with the progress extension. */
export interface ScanStatus {
  scan_profile_token: string;
  created: string;
  started?: string;
  ended?: string;
  status: string;
  error: string;
  warnings: string[];
  progress?: {
    pages_crawled: number;
    requests_sent: number;
    checks_done: number;
    findings: number;
    percentage: number;
    seconds_left: number | null;
  };
}

export const severities = ['information', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof severities)[number];

/** `scan start --wait` without --fail-on exits with the code of the highest severity found (docs/cli.md). */
export const severityExitCodes: Record<Severity | 'none', number> = {
  none: 0,
  information: 0,
  low: 10,
  medium: 11,
  high: 12,
  critical: 13,
};

const liveStatuses = new Set(['starting', 'running', 'stopping']);

/** A profile by token, name or endpoint (the token wins; a name must be unique). */
async function resolveProfile(api: Api, which: string): Promise<Profile> {
  const profiles = await api.v2<Profile[]>('GET', '/profiles/');
  const byToken = profiles.find((p) => p.token === which);
  if (byToken !== undefined) return byToken;
  const named = profiles.filter((p) => p.name === which || p.endpoint === which);
  if (named.length === 1) return named[0]!;
  if (named.length > 1)
    throw new UsageError(`${named.length} scan profiles are named ${JSON.stringify(which)}: give the token`);
  throw new ApiError(`no scan profile with the token, name or endpoint ${JSON.stringify(which)}`, 404);
}

/** `perimeter scan start|stop|status`. */
export async function scan(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'start':
      return start(rest, io);
    case 'stop':
      return stop(rest, io);
    case 'status':
      return status(rest, io);
    default:
      throw new UsageError(
        `${sub === undefined ? 'missing subcommand' : `unknown subcommand: scan ${sub}`}\n${help.scan}`,
      );
  }
}

async function start(argv: string[], io: Io): Promise<number> {
  const usage = help['scan start'];
  const args = parseArgs(argv, { values: ['fail-on', 'interval'], switches: ['wait'] }, usage);
  const [which] = expectPositionals(args, ['PROFILE'], usage);
  const failOn =
    args.values['fail-on'] === undefined
      ? undefined
      : oneOf(
          args.values['fail-on'],
          ['information', 'low', 'medium', 'high', 'critical'] as const,
          '--fail-on',
          usage,
        );
  const intervalMs = intervalOf(args, usage);
  if (failOn !== undefined && !args.switches.has('wait')) throw new UsageError(`--fail-on needs --wait\n${usage}`);
  const api = apiOf(args, io);
  const profile = await resolveProfile(api, which!);
  await api.v2('POST', `/scans/${profile.token}/`);
  if (!args.switches.has('wait')) {
    print(io, `scan of ${profile.name} (${profile.token}) requested`);
    return 0;
  }
  note(io, `scanning ${profile.name} (${profile.endpoint})`);
  const final = await follow(api, profile, io, intervalMs);
  if (final.status !== 'completed') {
    const why = final.error !== '' ? `: ${final.error}` : '';
    throw new ExitError(`scan of ${profile.name} ended ${final.status.replace(/_/g, ' ')}${why}`, exitCodes.incomplete);
  }
  const counts = await countFindings(api, profile.token, final);
  const highest = [...severities].reverse().find((s) => counts[s] > 0) ?? 'none';
  const summary = [...severities]
    .reverse()
    .map((s) => `${s} ${counts[s]}`)
    .join(', ');
  print(io, `scan of ${profile.name} completed: ${summary}`);
  if (failOn !== undefined) {
    const failed = highest !== 'none' && severities.indexOf(highest) >= severities.indexOf(failOn);
    if (failed) note(io, `failing: a finding at ${highest}, at or above --fail-on ${failOn}`);
    return failed ? exitCodes.gate : exitCodes.ok;
  }
  return severityExitCodes[highest];
}

function intervalOf(args: ParsedArgs, usage: string): number {
  const text = args.values['interval'];
  if (text === undefined) return 2000;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--interval takes a number of seconds\n${usage}`);
  return Math.round(seconds * 1000);
}

/** Reads the status until the scan ends, drawing a bar on a terminal and a line per change elsewhere. */
async function follow(api: Api, profile: Profile, io: Io, intervalMs: number): Promise<ScanStatus> {
  const isTty = io.stderr.isTTY === true;
  let last = '';
  for (;;) {
    const current = await api.v2<ScanStatus>('GET', `/scans/${profile.token}/`);
    const pct = Math.floor(current.progress?.percentage ?? (current.status === 'completed' ? 100 : 0));
    const left = current.progress?.seconds_left;
    const estimate = left === null || left === undefined ? '' : `, about ${duration(left)} left`;
    const found = current.progress === undefined ? '' : `, ${current.progress.findings} findings`;
    if (isTty) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}%`;
      io.stderr.write(`\r\x1b[K${bar} ${current.status}${estimate}${found}`);
    } else {
      const line = `${current.status} ${pct}%`;
      if (line !== last) note(io, `${line}${estimate}${found}`);
      last = line;
    }
    if (!liveStatuses.has(current.status)) {
      if (isTty) io.stderr.write('\n');
      return current;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The open findings the scan detected (new, active or regression, seen since it was requested), by severity. */
async function countFindings(
  api: Api,
  profileToken: string,
  scanStatus: ScanStatus,
): Promise<Record<Severity, number>> {
  const since = Math.floor(Date.parse(scanStatus.created) / 1000);
  const counts = await Promise.all(
    severities.map(async (severity) => {
      const page = await api.v2<{ total_vulnerabilities?: number }>('GET', '/vulnerabilities/', {
        query: {
          scan_profile_token: [profileToken],
          status: ['new', 'active', 'regression'],
          severity: [severity],
          updated_after: since,
          pageSize: 1,
        },
      });
      return [severity, page.total_vulnerabilities ?? 0] as const;
    }),
  );
  return Object.fromEntries(counts) as Record<Severity, number>;
}

async function stop(argv: string[], io: Io): Promise<number> {
  const usage = help['scan stop'];
  const args = parseArgs(argv, {}, usage);
  const [which] = expectPositionals(args, ['PROFILE'], usage);
  const api = apiOf(args, io);
  const profile = await resolveProfile(api, which!);
  await api.v2('DELETE', `/scans/${profile.token}/`);
  print(io, `stop of the scan of ${profile.name} requested`);
  return 0;
}

async function status(argv: string[], io: Io): Promise<number> {
  const usage = help['scan status'];
  const args = parseArgs(argv, { values: ['format'] }, usage);
  const [which] = expectPositionals(args, ['PROFILE'], usage);
  const format = oneOf(args.values['format'] ?? 'table', ['table', 'json'] as const, '--format', usage);
  const api = apiOf(args, io);
  const profile = await resolveProfile(api, which!);
  const current = await api.v2<ScanStatus>('GET', `/scans/${profile.token}/`);
  if (format === 'json') print(io, JSON.stringify(current, null, 2));
  else {
    const p = current.progress;
    print(
      io,
      table(
        ['profile', 'status', 'progress', 'findings', 'started', 'ended'],
        [
          [
            profile.name,
            current.status,
            p === undefined ? '' : `${Math.floor(p.percentage)}%`,
            p?.findings,
            current.started ?? '',
            current.ended ?? '',
          ],
        ],
      ),
    );
  }
  return 0;
}
