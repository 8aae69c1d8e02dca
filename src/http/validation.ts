import { FormatRegistry, KindGuard, OptionalKind, Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { appError } from '../core/errors/app-error.ts';
import type { FieldError, InputContext, RouteContext, RouteDef, RouteInput, ValidInput } from './route.ts';

/**
 * The request validator of a route, compiled once from its TypeBox schemas (the same schemas the
 * OpenAPI documents come from). It reads the raw inputs as the contract takes them (see
 * api-contract.md): array query parameters as `name[]=a&name[]=b`, `name=a&name=b` or `name=a,b`,
 * aliases such as `page_size` for `pageSize`, integers and booleans from their text, and the body
 * as raw bytes parsed as JSON (an empty body is no body: 1050 where one is required, 1051 when
 * the bytes are not JSON or not of the schema's JSON type).
 *
 * A value that fails its schema answers the error the route declares for that field
 * (`RouteInput.errors`), else the catalogue default: 4150 naming the parameter, with a message
 * built from the schema (bounds of an integer, true or false). Fields are checked one by one in
 * the route's order, so the first failing one answers, as each operation always has. A body
 * whose rule lists every problem at once declares one error for the whole body instead
 * (`RouteInput.bodyError`: asset settings' 2422).
 */

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => uuidPattern.test(v));
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => dateTimePattern.test(v) && Number.isFinite(Date.parse(v)));
if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (v) => URL.canParse(v));
if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (v) => /^[^@\s]+@[^@\s]+$/.test(v));

type Shape = 'array' | 'integer' | 'number' | 'boolean' | 'string' | 'other';

interface QueryField {
  name: string;
  /** The query name without `[]`: `severity` for `severity[]`. */
  base: string;
  shape: Shape;
  schema: TSchema;
  check: TypeCheck<TSchema>;
}

function shapeOf(schema: TSchema): Shape {
  if (KindGuard.IsArray(schema)) return 'array';
  if (KindGuard.IsInteger(schema)) return 'integer';
  if (KindGuard.IsNumber(schema)) return 'number';
  if (KindGuard.IsBoolean(schema)) return 'boolean';
  if (KindGuard.IsString(schema)) return 'string';
  return 'other';
}

/** The schema of a property without its Optional marker. */
function required(schema: TSchema): TSchema {
  const { [OptionalKind]: _optional, ...rest } = schema as TSchema & { [OptionalKind]?: string };
  return rest as TSchema;
}

/** The catalogue default for a query value that fails its schema. */
function defaultQueryError(field: QueryField): FieldError {
  const s = field.schema as { minimum?: number; maximum?: number };
  if (field.shape === 'integer')
    return (_v, given) =>
      appError(4150, `${given} must be an integer from ${s.minimum ?? 0} to ${s.maximum ?? Number.MAX_SAFE_INTEGER}`, [
        given,
      ]);
  if (field.shape === 'boolean') return (_v, given) => appError(4150, `${given} must be true or false`, [given]);
  return (_v, given) => appError(4150, `${given} is malformed`, [given]);
}

/** The raw values of a query parameter under its names. */
function rawValues(query: RouteContext['query'], names: string[]): Array<{ name: string; values: string[] }> {
  return names.flatMap((name) => {
    const v = query[name];
    return v === undefined ? [] : [{ name, values: Array.isArray(v) ? v : [v] }];
  });
}

type QueryRead = (query: RouteContext['query'], ctx: InputContext, body: unknown) => Record<string, unknown>;

/** Whether the body gives a field (a value other than null): then the query's is not read. */
function bodyGives(body: unknown, name: string): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const value = (body as Record<string, unknown>)[name];
  return value !== undefined && value !== null;
}

/** Reads one array parameter into `out`: every form at once (name[]=a, name=a, name=a,b). */
function readList(field: QueryField, query: RouteContext['query'], input: RouteInput, ctx: InputContext) {
  const given = rawValues(query, [`${field.base}[]`, field.base]).flatMap((r) => r.values);
  if (given.length === 0) return undefined;
  const items: unknown[] = given
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  const decode = input.decode?.[field.name];
  const decoded = decode === undefined ? items : items.map((item) => decode(item as string, field.name, ctx));
  if (!field.check.Check(decoded)) throw (input.errors?.[field.name] ?? defaultQueryError(field))(items, field.name);
  return decoded;
}

/** Reads one single-valued parameter: the first name sent among the schema's and its aliases'; sent twice is 4150. */
function readSingle(
  field: QueryField,
  query: RouteContext['query'],
  input: RouteInput,
  ctx: InputContext,
  aliases: string[],
): unknown {
  const found = rawValues(query, [field.name, ...aliases])[0];
  if (found === undefined) return undefined;
  if (found.values.length > 1) throw appError(4150, `${found.name} given more than once`, [found.name]);
  const text = found.values[0]!;
  const decode = input.decode?.[field.name];
  if (decode !== undefined) return text === '' ? undefined : decode(text, found.name, ctx);
  let value: unknown = text;
  if (field.shape === 'integer' || field.shape === 'number') {
    if (text === '') return undefined;
    value = /^\d+$/.test(text) ? Number(text) : text;
  } else if (field.shape === 'boolean') {
    if (text === '') return undefined;
    const lower = text.toLowerCase();
    value = lower === 'true' || lower === '1' ? true : lower === 'false' || lower === '0' ? false : text;
  }
  if (!field.check.Check(value)) throw (input.errors?.[field.name] ?? defaultQueryError(field))(value, found.name);
  return value;
}

function compileQuery(schema: TSchema, input: RouteInput): QueryRead {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  const aliasesOf = new Map<string, string[]>();
  for (const [alias, name] of Object.entries(input.aliases ?? {}))
    aliasesOf.set(name, [...(aliasesOf.get(name) ?? []), alias]);
  const fields: QueryField[] = Object.entries(properties)
    .filter(([name]) => input.aliases?.[name] === undefined)
    .map(([name, s]) => {
      const schema = required(s);
      return {
        name,
        base: name.replace(/\[\]$/, ''),
        shape: shapeOf(schema),
        schema,
        check: TypeCompiler.Compile(schema),
      };
    });
  const order = input.order ?? [];
  fields.sort((a, b) => rank(order, a.name) - rank(order, b.name));
  return (query, ctx, body) => {
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      if (!input.queryUnlessBody?.includes(field.name) || !bodyGives(body, field.name)) {
        const value =
          field.shape === 'array'
            ? readList(field, query, input, ctx)
            : readSingle(field, query, input, ctx, aliasesOf.get(field.name) ?? []);
        if (value !== undefined) out[field.name] = value;
      }
      input.rules?.[field.name]?.(out);
    }
    return out;
  };
}

/** The path parameters with a declared error, checked in the schema's order. */
function compileParams(schema: TSchema, input: RouteInput): ((params: Record<string, string>) => void) | undefined {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  const checks = Object.entries(properties).flatMap(([name, s]) => {
    const fail = input.params?.[name];
    return fail === undefined ? [] : [{ name, fail, check: TypeCompiler.Compile(required(s)) }];
  });
  if (checks.length === 0) return undefined;
  return (params) => {
    for (const { name, fail, check } of checks) if (!check.Check(params[name])) throw fail(params[name], name);
  };
}

/** The later path parameters (RouteInput.lateParams): each checked when the handler asks for it. */
function compileLateParams(
  schema: TSchema | undefined,
  input: RouteInput,
): (params: Record<string, string>, name: string) => string {
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  const checks = new Map(
    Object.entries(input.lateParams ?? {}).map(([name, fail]) => {
      const property = properties[name];
      if (property === undefined) throw new Error(`lateParams names ${name}, not a path parameter of the route`);
      return [name, { fail, check: TypeCompiler.Compile(required(property)) }];
    }),
  );
  return (params, name) => {
    const value = params[name];
    const late = checks.get(name);
    if (late === undefined) throw new Error(`checkedParam(${name}): no late parameter of that name`);
    if (!late.check.Check(value)) throw late.fail(value, name);
    return value!;
  };
}

function rank(order: string[], name: string): number {
  const i = order.indexOf(name);
  return i === -1 ? order.length : i;
}

/** The top-level field a body error is about ('' for the body itself). */
function fieldOf(path: string): string {
  return path.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~') ?? '';
}

type BodyRead = (raw: Buffer) => { body: unknown; checked: () => unknown };

function compileBody(schema: TSchema, input: RouteInput, isRequired: boolean): BodyRead {
  const check = TypeCompiler.Compile(schema);
  const jsonType = (schema as { type?: string }).type;
  const properties = Object.keys((schema as { properties?: Record<string, TSchema> }).properties ?? {});
  const order = [...(input.order ?? []), ...properties.filter((p) => !(input.order ?? []).includes(p))];
  // The first failing field in the route's order answers with its declared error; fields
  // without one are left to the operation (their checks live with the rule they enforce).
  const fieldErrors = (body: unknown) => {
    if ((input.errors === undefined && input.bodyError === undefined) || check.Check(body)) return body;
    const failing = new Set([...check.Errors(body)].map((e) => fieldOf(e.path)));
    if (input.bodyError !== undefined) throw input.bodyError(body, failing);
    const record = body as Record<string, unknown>;
    for (const field of order) {
      const fail = input.errors?.[field];
      if (failing.has(field) && fail !== undefined) throw fail(record[field], field);
    }
    return body;
  };
  const aliased = bodyAliases(input, properties);
  return (raw) => {
    const parsed = parseBody(raw, isRequired);
    if (parsed === undefined) return { body: parsed, checked: () => parsed };
    if (
      jsonType === 'object' &&
      !input.isAnyJsonBody &&
      (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    )
      throw appError(1051, 'Request body malformed: expected a JSON object');
    const body = aliased(parsed);
    if (input.isBodyCheckedLate) return { body, checked: () => fieldErrors(body) };
    fieldErrors(body);
    return { body, checked: () => body };
  };
}

/**
 * The body fields sent under an older name (RouteInput.aliases naming a body field): the alias's
 * value stands in for the field's when the field is absent or null, and the alias is dropped.
 */
function bodyAliases(input: RouteInput, properties: string[]): (body: unknown) => unknown {
  const pairs = Object.entries(input.aliases ?? {}).filter(([, name]) => properties.includes(name));
  if (pairs.length === 0) return (body) => body;
  return (body) => {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
    const view: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    for (const [alias, name] of pairs) {
      if (view[name] === undefined || view[name] === null) {
        if (view[alias] !== undefined) view[name] = view[alias];
      }
      delete view[alias];
    }
    return view;
  };
}

/** The body as JSON: an empty body is none (1050 where one is required), bytes that are not JSON 1051. */
function parseBody(raw: Buffer, isRequired: boolean): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') {
    if (isRequired) throw appError(1050, 'Request body missing: this operation needs a JSON body');
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw appError(1051, `Request body malformed: ${(err as Error).message}`);
  }
}

/** The validator of one route: body, query and path parameters, compiled from its schemas. */
export interface RouteValidator {
  validate(ctx: Pick<RouteContext, 'query' | 'rawBody' | 'params' | 'deps' | 'team'>): ValidInput;
  /** The query is checked on use (RouteDef.isQueryCheckedOnUse): `validate` leaves it out, `query` checks it. */
  isQueryLazy: boolean;
  /** Checks the query alone (an operation without a body or path parameters). */
  query(ctx: Pick<RouteContext, 'query' | 'deps' | 'team'>): Record<string, unknown>;
}

/** Compiles the validator of a route from its schemas and declared input (see the note at the top). */
export function compileRouteValidator(def: RouteDef): RouteValidator {
  const input = def.input ?? {};
  const query = def.query === undefined ? undefined : compileQuery(def.query, input);
  const params = def.params === undefined ? undefined : compileParams(def.params, input);
  const lateParam = compileLateParams(def.params, input);
  const bodySchema = input.isUnusedBodyParsed ? Type.Unknown() : def.body;
  const isRequired = !def.isBodyOptional && !input.isUnusedBodyParsed;
  const body = bodySchema === undefined || def.isStreamingBody ? undefined : compileBody(bodySchema, input, isRequired);
  if (def.isQueryCheckedOnUse && (bodySchema !== undefined || params !== undefined))
    throw new Error(`${def.operationId}: isQueryCheckedOnUse is for operations without a body or path parameters`);
  // What a request allocates is kept small: list pages answered from the cache do little else.
  const hasLateParams = Object.keys(input.lateParams ?? {}).length > 0;
  const noLateParam = (name: string): string => lateParam({}, name);
  return {
    isQueryLazy: def.isQueryCheckedOnUse === true,
    query: (ctx) => (query === undefined ? {} : query(ctx.query, ctx, undefined)),
    validate(ctx) {
      // The body first, then the query, then the path: every operation read them in that order.
      const read = body === undefined ? noBody : body(ctx.rawBody);
      const valid = def.isQueryCheckedOnUse || query === undefined ? emptyQuery : query(ctx.query, ctx, read.body);
      params?.(ctx.params);
      return {
        query: valid,
        body: input.isUnusedBodyParsed ? undefined : read.body,
        checkedBody: read.checked,
        checkedParam: hasLateParams ? (name: string) => lateParam(ctx.params, name) : noLateParam,
      };
    },
  };
}

/** The query of an operation that takes none, or checks it on use (frozen: shared by every request). */
const emptyQuery: Record<string, unknown> = Object.freeze({});

/** The read of an operation without a body. */
const noBody = { body: undefined, checked: (): unknown => undefined };
