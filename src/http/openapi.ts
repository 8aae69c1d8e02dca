import type { TSchema } from '@sinclair/typebox';
import { errorCatalogue, type ErrorCode } from '../core/errors/error-catalogue.ts';
import { httpStatusOf } from './error-status.ts';
import type { RouteDef } from './route.ts';

/** Codes every authenticated operation can answer, beside its own. */
const sharedV2Codes: ErrorCode[] = [1001, 1002, 1003, 1009, 1910];

/** A TypeBox schema as plain JSON Schema (2020-12, which OpenAPI 3.1 uses), without $id. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) => (key === '$id' ? undefined : value)) as Record<
    string,
    unknown
  >;
}

function parameters(def: RouteDef): unknown[] {
  const out: unknown[] = [];
  for (const [where, schema] of [
    ['path', def.params],
    ['query', def.query],
  ] as const) {
    if (schema === undefined) continue;
    const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
    const required = new Set((schema as { required?: string[] }).required ?? []);
    for (const [name, prop] of Object.entries(props)) {
      const { description, ...rest } = plain(prop);
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

function v2ErrorResponses(def: RouteDef): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...sharedV2Codes, ...def.errors]) {
    const status = httpStatusOf[code];
    if (status === def.successStatus && code !== 2019) continue;
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: codes.map((c) => `${c}: ${errorCatalogue[c]}`).join('; '),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}

function v3ErrorResponses(def: RouteDef): Record<string, unknown> {
  const problem = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
  return {
    '400': { description: 'Invalid parameter', content: problem },
    '401': { description: 'Missing, malformed or invalid key (or a v2 key)', content: problem },
    '403': { description: 'The key cannot access this endpoint', content: problem },
    // An operation on one resource of the path answers 404 for an unknown, malformed or foreign id.
    ...(def.path.includes('{') || def.isNotFoundPossible === true
      ? {
          '404': { description: "No such resource among the key's teams (type /problems/not-found)", content: problem },
        }
      : {}),
    '500': { description: 'Technical issue', content: problem },
  };
}

function operation(def: RouteDef): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: def.operationId,
    summary: def.summary,
    tags: def.tags,
    'x-endpoint-group': def.group,
  };
  if (def.description) op['description'] = def.description;
  if (def.isExtension) op['x-perimeter-extension'] = true;
  if (def.isExperimental) op['x-experimental'] = true;
  if (def.isDeprecated) op['deprecated'] = true;
  const params = parameters(def);
  if (params.length > 0) op['parameters'] = params;
  if (def.body !== undefined)
    op['requestBody'] = { required: true, content: { 'application/json': { schema: plain(def.body) } } };
  if (def.rawBody !== undefined) {
    op['requestBody'] = {
      required: true,
      description: def.rawBody.description,
      content: { [def.rawBody.contentType]: { schema: { type: 'string' } } },
    };
  }
  op['responses'] = {
    // 204 has no body (RFC 9110): no content to describe.
    [String(def.successStatus)]:
      def.successStatus === 204
        ? { description: 'Success, no body' }
        : {
            description: 'Success',
            content: Object.fromEntries(
              (def.responseMediaTypes ?? ['application/json']).map((type) => [type, { schema: plain(def.response) }]),
            ),
          },
    ...(def.surface === 'v2' ? v2ErrorResponses(def) : v3ErrorResponses(def)),
  };
  return op;
}

const descriptions = {
  v2:
    'Version 2 of the perimeter API: asset inventory, scan profiles, scans, DNS zones, vulnerabilities, members and groups. ' +
    'Authenticate with `X-Service-Key`, HTTP Basic (key as user name) or URL user-info; keys with a signing secret also send ' +
    '`X-Service-Signature` and `X-Service-Timestamp` (the signature covers the relative URL with its query, see docs/operations.md). Paths are canonical with a trailing slash; both forms are routed. ' +
    'Errors answer `{code, message, parameters?}` mirrored under `error`; the code catalogue is on the docs page (/docs). ' +
    'A request no operation can read answers the same body with `Connection: close`: malformed percent-encoding in the path or an unknown ' +
    "method 1900, broken framing or a malformed header 1051, a body over the operation's limit or headers over 16 KiB 1052.",
  v3:
    'Version 3 of the perimeter API: the inventory read lists and cloud connectors, and, as extensions of perimeter, the team event log, webhooks and integrations. ' +
    'Authenticate with `Authorization: <key>` (a key created for v3). Errors are problem bodies (application/problem+json), ' +
    'also for a request no operation can read (malformed path, unknown method, broken framing, headers over 16 KiB), with `Connection: close`.',
};

/** The v3 resources of the specification, by path; the description names those not served yet. */
const v3SpecPaths: ReadonlyArray<[path: string, what: string]> = [
  ['/ips', 'discovered IP addresses'],
  ['/technologies', 'technologies'],
  ['/ports', 'ports'],
  ['/breaches', 'policy breaches'],
  ['/connectors', 'connectors'],
  ['/connectors/external-id', 'the connector external ID'],
];

/** The description of a surface, saying which operations of the specification it does not serve yet. */
function describe(surface: 'v2' | 'v3', paths: Record<string, unknown>): string {
  if (surface === 'v2') return descriptions.v2;
  const missing = v3SpecPaths.filter(([path]) => paths[path] === undefined);
  if (missing.length === 0) return descriptions.v3;
  const list = missing.map(([path, what]) => `${what} (\`${path}\`)`).join(', ');
  return `${descriptions.v3}\n\nNot served yet: ${list}. Those paths answer 404 (problem type \`/problems/not-found\`); the operations below are all that v3 serves today.`;
}

/** The OpenAPI 3.1 document of one surface, generated from the route definitions. */
export function buildOpenApi(surface: 'v2' | 'v3', routes: RouteDef[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of routes.filter((r) => r.surface === surface)) {
    const item = (paths[def.path] ??= {});
    for (const method of [def.method, ...(def.alsoMethods ?? [])]) item[method.toLowerCase()] = operation(def);
  }
  const securitySchemes =
    surface === 'v2'
      ? {
          serviceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key' },
          basic: { type: 'http', scheme: 'basic', description: 'The key as user name, empty password' },
        }
      : {
          authorization: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The raw v3 key, no scheme word',
          },
        };
  return {
    openapi: '3.1.0',
    info: { title: `perimeter API ${surface}`, version, description: describe(surface, paths) },
    servers: [{ url: `/rest/${surface}` }],
    security: Object.keys(securitySchemes).map((name) => ({ [name]: [] })),
    tags: [...new Set(routes.filter((r) => r.surface === surface).flatMap((r) => r.tags))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes,
      schemas: {
        Error: {
          type: 'object',
          required: ['code', 'message', 'error'],
          properties: {
            code: { type: 'integer' },
            message: { type: 'string' },
            parameters: { type: 'array', items: { type: 'string' } },
            error: {
              type: 'object',
              properties: {
                code: { type: 'integer' },
                message: { type: 'string' },
                parameters: { type: 'array', items: { type: 'string' } },
                more_info: { type: 'string' },
              },
            },
          },
        },
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'instance'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            instance: { type: 'string' },
          },
        },
      },
      'x-error-codes': Object.fromEntries(
        Object.entries(errorCatalogue).map(([code, meaning]) => [
          code,
          { meaning, status: httpStatusOf[Number(code) as ErrorCode] },
        ]),
      ),
    },
  };
}
