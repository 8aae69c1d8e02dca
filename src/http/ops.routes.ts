import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.ts';
import { renderDocsPage } from './docs.ts';
import type { HttpMetrics } from './metrics.ts';
import { buildOpenApi } from './openapi.ts';
import type { RouteDef } from './route.ts';

/** The package version, shown in OpenAPI documents. */
export const packageVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Operational routes: health, readiness, metrics, OpenAPI documents and the docs page. */
export function registerOpsRoutes(app: FastifyInstance, deps: AppDeps, metrics: HttpMetrics, routes: RouteDef[]): void {
  const v2 = buildOpenApi('v2', routes, packageVersion);
  const v3 = buildOpenApi('v3', routes, packageVersion);
  const v2Json = JSON.stringify(v2);
  const v3Json = JSON.stringify(v3);
  const docs = renderDocsPage(v2, v3);

  app.get('/healthz', async (_req, reply) => reply.type('application/json').send('{"status":"ok"}'));
  app.get('/readyz', async (_req, reply) => {
    const isReady = await deps.store.isReady();
    return reply
      .code(isReady ? 200 : 503)
      .type('application/json')
      .send(JSON.stringify({ status: isReady ? 'ready' : 'unavailable' }));
  });
  app.get('/metrics', async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  app.get('/rest/v2/openapi.json', async (_req, reply) => reply.type('application/json').send(v2Json));
  app.get('/rest/v3/openapi.json', async (_req, reply) => reply.type('application/json').send(v3Json));
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(docs));
}
