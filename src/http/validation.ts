import { FormatRegistry, KindGuard, OptionalKind, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { appError } from '../core/errors/app-error.ts';
import type { FieldError, RouteContext, RouteDef, RouteInput, ValidInput } from './route.ts';

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
 * the route's order, so the first failing one answers, as each operation always has.
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

function compileQuery(schema: TSchema, input: RouteInput): (query: RouteContext['query']) => Record<string, unknown> {
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
  return (query) => {
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const fail = input.errors?.[field.name] ?? defaultQueryError(field);
      if (field.shape === 'array') {
        // Every form at once: name[]=a, name=a, name=a,b.
        const given = rawValues(query, [`${field.base}[]`, field.base]).flatMap((r) => r.values);
        if (given.length === 0) continue;
        const items = given
          .flatMap((v) => v.split(','))
          .map((v) => v.trim())
          .filter((v) => v.length > 0);
        if (!field.check.Check(items)) throw fail(items, field.name);
        out[field.name] = items;
        continue;
      }
      // A single value: the first name sent among the schema's and its aliases'; sent twice is 4150.
      const found = rawValues(query, [field.name, ...(aliasesOf.get(field.name) ?? [])])[0];
      if (found === undefined) continue;
      if (found.values.length > 1) throw appError(4150, `${found.name} given more than once`, [found.name]);
      const text = found.values[0]!;
      const decode = input.decode?.[field.name];
      if (decode !== undefined) {
        if (text !== '') out[field.name] = decode(text, found.name);
        continue;
      }
      let value: unknown = text;
      if (field.shape === 'integer' || field.shape === 'number') {
        if (text === '') continue;
        value = /^\d+$/.test(text) ? Number(text) : text;
      } else if (field.shape === 'boolean') {
        if (text === '') continue;
        const lower = text.toLowerCase();
        value = lower === 'true' || lower === '1' ? true : lower === 'false' || lower === '0' ? false : text;
      }
      if (!field.check.Check(value)) throw fail(value, found.name);
      out[field.name] = value;
    }
    return out;
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

function compileBody(schema: TSchema, input: RouteInput, isRequired: boolean): (raw: Buffer) => unknown {
  const check = TypeCompiler.Compile(schema);
  const jsonType = (schema as { type?: string }).type;
  const properties = Object.keys((schema as { properties?: Record<string, TSchema> }).properties ?? {});
  const order = [...(input.order ?? []), ...properties.filter((p) => !(input.order ?? []).includes(p))];
  return (raw) => {
    const text = raw.toString('utf8');
    if (text.trim() === '') {
      if (isRequired) throw appError(1050, 'Request body missing: this operation needs a JSON body');
      return undefined;
    }
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch (err) {
      throw appError(1051, `Request body malformed: ${(err as Error).message}`);
    }
    if (
      jsonType === 'object' &&
      !input.isAnyJsonBody &&
      (body === null || typeof body !== 'object' || Array.isArray(body))
    )
      throw appError(1051, 'Request body malformed: expected a JSON object');
    if (input.errors === undefined || check.Check(body)) return body;
    // The first failing field in the route's order answers with its declared error; fields
    // without one are left to the operation (their checks live with the rule they enforce).
    const failing = new Set([...check.Errors(body)].map((e) => fieldOf(e.path)));
    const record = body as Record<string, unknown>;
    for (const field of order) {
      const fail = input.errors[field];
      if (failing.has(field) && fail !== undefined) throw fail(record[field], field);
    }
    return body;
  };
}

/** The validator of one route: query and body, compiled from its schemas. */
export interface RouteValidator {
  validate(ctx: Pick<RouteContext, 'query' | 'rawBody'>): ValidInput;
}

export function compileRouteValidator(def: RouteDef): RouteValidator {
  const input = def.input ?? {};
  const query = def.query === undefined || def.isQueryReadByHand ? undefined : compileQuery(def.query, input);
  const body =
    def.body === undefined || def.isStreamingBody ? undefined : compileBody(def.body, input, !def.isBodyOptional);
  return {
    validate(ctx) {
      // The body first: every operation with both read its body before its query.
      const parsed = body?.(ctx.rawBody);
      return { query: query?.(ctx.query) ?? {}, body: parsed };
    },
  };
}
