import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one app instance (its own registry, so tests can build many apps). */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
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
  };
}
