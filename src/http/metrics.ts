import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one app instance (its own registry, so tests can build many apps). */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
  /** Answers with a 5xx status: failures of this server (1910, 1909), never the caller's. */
  faults: Counter<'method' | 'route' | 'status'>;
  /** Requests refused because a remote party the caller named failed (a zone transfer's name server), by operation and reason. */
  remoteFailures: Counter<'operation' | 'reason'>;
  /** Connections answered for an error of Node's HTTP parser (no route ran), by the parser's code. */
  parseErrors: Counter<'code'>;
}

/** Creates the registry with process metrics and the HTTP request metrics. */
export function createMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'perimeter_' });
  return {
    registry,
    requests: new Counter({
      name: 'perimeter_http_requests_total',
      help: 'HTTP requests answered, by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'perimeter_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by method and route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    faults: new Counter({
      name: 'perimeter_http_server_faults_total',
      help: 'HTTP requests answered with a 5xx status (faults of this server), by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    remoteFailures: new Counter({
      name: 'perimeter_remote_failures_total',
      help: 'Requests refused because a remote server named by the caller failed (4xx, not a server fault), by operation and reason',
      labelNames: ['operation', 'reason'],
      registers: [registry],
    }),
    parseErrors: new Counter({
      name: 'perimeter_http_parse_errors_total',
      help: 'Connections answered with an error because the HTTP parser refused the request, by parser code',
      labelNames: ['code'],
      registers: [registry],
    }),
  };
}
