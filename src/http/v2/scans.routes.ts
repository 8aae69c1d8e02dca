import { Type } from '@sinclair/typebox';
import { getScanStatus, startScan, stopScan } from '../../core/scans/scan.service.ts';
import { scheduleFrequencies } from '../../core/scans/scan.types.ts';
import {
  getSchedule,
  malformedFrequency,
  malformedStart,
  removeSchedule,
  setSchedule,
  type ScheduleInput,
} from '../../core/scans/schedule.service.ts';
import { pathInput } from './path-params.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { presentScanStatus, presentSchedule } from './scan.presenter.ts';
import { ProfileTokenParam, ScanStatusSchema, ScheduleSchema } from './scan.schemas.ts';

/** Scan status, start and stop, and scan schedules (v2). */
export const scanRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/scans/{scanProfileToken}/',
    group: 'scans',
    operationId: 'getScanStatus',
    summary: 'Get scan status',
    description:
      'The latest scan of the profile, running or finished; 5004 when the profile was never scanned. `progress` moves every second while it runs.',
    tags: ['scans'],
    params: ProfileTokenParam,
    input: { params: pathInput('scanProfileToken') },
    response: ScanStatusSchema,
    successStatus: 200,
    errors: [2601, 2604, 5004],
    handler: async (ctx) => {
      const { profile, scan } = await getScanStatus(ctx.deps.store, ctx.team, ctx.params['scanProfileToken']!);
      return { status: 200, body: presentScanStatus(profile, scan) };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/scans/{scanProfileToken}/',
    group: 'scans',
    operationId: 'startScan',
    summary: 'Start scan',
    description:
      'Queues a durable scan job and answers 202 with the scan status (`starting`); a worker starts it within seconds (later when the team already runs its allowed number of scans). ' +
      '5009 while a scan of the profile is starting, running or stopping; 2021 (423) when the asset is not verified; 2616 (423) when the profile is deactivated.',
    tags: ['scans'],
    params: ProfileTokenParam,
    input: { params: pathInput('scanProfileToken'), isUnusedBodyParsed: true },
    response: ScanStatusSchema,
    successStatus: 202,
    errors: [2021, 2601, 2604, 2616, 5009],
    handler: async (ctx) => {
      const token = ctx.params['scanProfileToken']!;
      const scan = await startScan({ store: ctx.deps.store, queue: ctx.deps.scanQueue }, ctx.team, token);
      return { status: 202, body: presentScanStatus({ token }, scan) };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'DELETE',
    path: '/scans/{scanProfileToken}/',
    group: 'scans',
    operationId: 'stopScan',
    summary: 'Stop scan',
    description:
      'A queued scan ends `stopped` at once; a running one reads `stopping` and its worker stops it within seconds (then `stopped`). A stopped scan patches nothing. 5004 when none is live.',
    tags: ['scans'],
    params: ProfileTokenParam,
    input: { params: pathInput('scanProfileToken'), isUnusedBodyParsed: true },
    response: ScanStatusSchema,
    successStatus: 202,
    errors: [2601, 2604, 5004],
    handler: async (ctx) => {
      const token = ctx.params['scanProfileToken']!;
      return { status: 202, body: presentScanStatus({ token }, await stopScan(ctx.deps.store, ctx.team, token)) };
    },
  }),
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/scanschedules/{scanProfileToken}/',
    group: 'scans',
    operationId: 'getScanSchedule',
    summary: 'Get scan schedule',
    tags: ['scans'],
    params: ProfileTokenParam,
    input: { params: pathInput('scanProfileToken') },
    response: ScheduleSchema,
    successStatus: 200,
    errors: [2601, 2604],
    handler: async (ctx) => ({
      status: 200,
      body: presentSchedule(await getSchedule(ctx.deps, ctx.team, ctx.params['scanProfileToken']!)),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'POST',
    path: '/scanschedules/{scanProfileToken}/',
    group: 'scans',
    operationId: 'setScanSchedule',
    summary: 'Set scan schedule',
    description:
      'Overwrites the schedule. `frequency`: never, once, daily, weekly, biweekly or monthly (5066 otherwise; never removes the schedule). `start`: when the first scan runs ' +
      '(YYYY-MM-DDTHH:mm:ssZ, ±hhmm offset or Unix seconds; 1085 otherwise); now when absent. A start in the past runs at its next occurrence from now (`once`: now). ' +
      "Monthly repeats on the same day of the month (the last day for shorter months). A due scan that finds one of the profile still running is skipped and says so in that scan's warnings.",
    tags: ['scans'],
    params: ProfileTokenParam,
    // The profile is found (2601, 2604) before the body's fields answer (5066, 1085).
    input: {
      params: pathInput('scanProfileToken'),
      isBodyCheckedLate: true,
      errors: { frequency: malformedFrequency, start: malformedStart },
    },
    body: Type.Object({
      frequency: Type.Union(
        scheduleFrequencies.map((f) => Type.Literal(f)),
        { examples: ['weekly'] },
      ),
      start: Type.Optional(
        Type.Union([Type.String(), Type.Number(), Type.Null()], {
          description: 'YYYY-MM-DDTHH:mm:ssZ, ±hhmm offset or Unix seconds; null or empty means now',
        }),
      ),
    }),
    response: ScheduleSchema,
    successStatus: 200,
    errors: [1050, 1051, 1085, 2601, 2604, 5066],
    handler: async (ctx) => ({
      status: 200,
      body: presentSchedule(
        await setSchedule(
          ctx.deps,
          ctx.team,
          ctx.params['scanProfileToken']!,
          () => ctx.checkedBody() as ScheduleInput,
        ),
      ),
    }),
  }),
  defineRoute({
    surface: 'v2',
    method: 'DELETE',
    path: '/scanschedules/{scanProfileToken}/',
    group: 'scans',
    operationId: 'removeScanSchedule',
    summary: 'Remove scan schedule',
    description: 'Answers the schedule as it reads afterwards: frequency never.',
    tags: ['scans'],
    params: ProfileTokenParam,
    input: { params: pathInput('scanProfileToken'), isUnusedBodyParsed: true },
    response: ScheduleSchema,
    successStatus: 200,
    errors: [2601, 2604],
    handler: async (ctx) => {
      return {
        status: 200,
        body: presentSchedule(await removeSchedule(ctx.deps, ctx.team, ctx.params['scanProfileToken']!)),
      };
    },
  }),
];
