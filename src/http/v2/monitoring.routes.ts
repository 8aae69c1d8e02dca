import { Type } from '@sinclair/typebox';
import { monitoringStatus } from '../../core/surface/monitoring.service.ts';
import type { SurfaceRun, SurfaceRunProgress } from '../../core/surface/surface-run.types.ts';
import { pathInput } from './path-params.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { Timestamp, Token } from './schemas.ts';

const Counters = Type.Object({
  phase: Type.String({
    description: 'queued, discovery, ports, tls, fingerprinting, stateless-tests, inventory, findings, done',
  }),
  candidates: Type.Integer({ description: 'Names resolved so far' }),
  live: Type.Integer({ description: 'Live names found so far' }),
  takeovers: Type.Integer(),
  origins: Type.Integer({ description: 'Web origins the stateless tests reached' }),
  requests: Type.Integer({ description: 'Requests of the stateless tests' }),
  findings: Type.Integer(),
  ports_probed: Type.Integer({ description: '(address, port) pairs the port scan probed' }),
  open_ports: Type.Integer(),
  tls_endpoints: Type.Integer({ description: '(address, port) pairs that spoke TLS' }),
  technologies: Type.Integer(),
});

const Run = Type.Object({
  status: Type.String({
    description: 'queued, running, stopping (live); completed, stopped (monitoring turned off), failed',
  }),
  trigger: Type.String({ description: 'enable (monitoring turned on) or schedule (the interval came round)' }),
  created: Timestamp,
  started: Type.Union([Timestamp, Type.Null()]),
  ended: Type.Union([Timestamp, Type.Null()]),
  progress: Counters,
  summary: Type.Union([
    Type.Object({
      names: Type.Integer({ description: 'Live names under the domain' }),
      new_names: Type.Integer(),
      gone_names: Type.Integer({ description: 'Names held before that no longer resolve (kept, with their history)' }),
      addresses: Type.Integer(),
      is_wildcard: Type.Boolean(),
      takeovers: Type.Integer(),
      ports: Type.Union(
        [
          Type.Object({
            open: Type.Integer(),
            opened: Type.Integer(),
            reopened: Type.Integer(),
            closed: Type.Integer(),
          }),
          Type.Null(),
        ],
        {
          description:
            'The port inventory after the run: open ports, newly open, open again, closed by this run; null when port scanning was off',
        },
      ),
      tls_endpoints: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Endpoints that spoke TLS; null when TLS discovery was off',
      }),
      technologies: Type.Union(
        [
          Type.Object({
            seen: Type.Integer(),
            added: Type.Integer(),
            returned: Type.Integer(),
            disappeared: Type.Integer(),
          }),
          Type.Null(),
        ],
        {
          description: 'The technology inventory after the run; null when fingerprinting was off',
        },
      ),
      findings: Type.Object({
        created: Type.Integer(),
        updated: Type.Integer(),
        regressions: Type.Integer(),
        patched: Type.Integer(),
      }),
      breaches: Type.Union(
        [
          Type.Object({
            breached: Type.Integer(),
            opened: Type.Integer(),
            reopened: Type.Integer(),
            resolved: Type.Integer(),
          }),
          Type.Null(),
        ],
        {
          description:
            'The policy breaches after the run (v3 /breaches): (policy, host) pairs in breach, newly breached, breached again, resolved by this run; null for runs before policies existed',
        },
      ),
    }),
    Type.Null(),
  ]),
  error: Type.Union([Type.String(), Type.Null()]),
  warnings: Type.Array(Type.String()),
});

const MonitoringStatusBody = Type.Object({
  monitoring: Type.Boolean(),
  interval_seconds: Type.Integer(),
  last_run: Type.Union([Run, Type.Null()]),
  next_run: Type.Union([Timestamp, Type.Null()], {
    description: 'When the scheduler starts the next run; null when monitoring is off or a run is live',
  }),
});

const iso = (time: Date | null) => (time === null ? null : time.toISOString());

function presentProgress(p: SurfaceRunProgress) {
  const { portsProbed, openPorts, tlsEndpoints, ...rest } = p;
  return { ...rest, ports_probed: portsProbed, open_ports: openPorts, tls_endpoints: tlsEndpoints };
}

function presentRun(run: SurfaceRun) {
  const s = run.summary;
  return {
    status: run.status,
    trigger: run.trigger,
    created: run.created.toISOString(),
    started: iso(run.started),
    ended: iso(run.ended),
    progress: presentProgress(run.progress),
    summary:
      s === null
        ? null
        : {
            names: s.names,
            new_names: s.newNames,
            gone_names: s.goneNames,
            addresses: s.addresses,
            is_wildcard: s.isWildcard,
            takeovers: s.takeovers,
            ports: s.ports,
            tls_endpoints: s.tlsEndpoints,
            technologies: s.technologies,
            findings: s.findings,
            breaches: s.breaches,
          },
    error: run.error,
    warnings: run.warnings,
  };
}

/** Surface monitoring of one asset (an extension of perimeter: the original API has no such read). */
export const monitoringRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v2',
    method: 'GET',
    path: '/domains/{domainToken}/monitoring/',
    aliases: ['/assets/{domainToken}/monitoring/'],
    group: 'assets',
    operationId: 'getAssetMonitoring',
    summary: 'Surface monitoring of an asset',
    description:
      'Whether monitoring is on, the latest run (`last_run`: status, progress while it runs, what it found once it ended) and when the next run is due. ' +
      'Runs start when monitoring is switched on and then every `interval_seconds` (PERIMETER_MONITORING_INTERVAL_MS, default a day).',
    isExtension: true,
    tags: ['assets'],
    params: Type.Object({ domainToken: Token }),
    input: { params: pathInput('domainToken') },
    response: MonitoringStatusBody,
    successStatus: 200,
    errors: [2011, 2014],
    handler: async (ctx) => {
      const status = await monitoringStatus(
        ctx.deps,
        ctx.team,
        ctx.params['domainToken']!,
        ctx.deps.config.monitoringIntervalMs,
      );
      return {
        status: 200,
        body: {
          monitoring: status.monitoring,
          interval_seconds: Math.round(status.intervalMs / 1000),
          last_run: status.lastRun === undefined ? null : presentRun(status.lastRun),
          next_run: status.nextRunAt === undefined ? null : status.nextRunAt.toISOString(),
        },
      };
    },
  }),
];
