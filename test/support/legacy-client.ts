import assert from 'node:assert/strict';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

// The older v2 shapes as a strictly typed client (Go structs, TypeScript types with a runtime
// decoder) reads them: exact types, no unknown fields where the shape is fixed, RFC 3339 times.
// Written from docs/legacy-v2.md and ../shared/design/legacy-v2.md, not from the server's schemas.

const strict = { additionalProperties: false } as const;
const rfc3339 = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$';
const Rfc3339 = Type.String({ pattern: rfc3339 });
const Uuid = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });
const Token = Type.String({ pattern: '^[0-9a-f]{32}$' });
const Status = Type.Union([Type.Literal('verified'), Type.Literal('unverified')]);

export const ClientDomain = Type.Object(
  {
    uuid: Uuid,
    name: Type.String(),
    status: Status,
    created: Rfc3339,
    updated: Rfc3339,
    token: Token,
    monitored: Type.Boolean(),
    owner: Type.Object({ name: Type.String() }, strict),
  },
  strict,
);

/** Subdomains: the documented fields typed, further fields allowed (`...` in the doc). */
export const ClientSubdomain = Type.Object({
  name: Type.String(),
  token: Type.Optional(Token),
  created: Rfc3339,
  status: Status,
});

export const ClientFinding = Type.Object(
  {
    uuid: Uuid,
    regression_uuid: Type.String(),
    domain_token: Type.String(),
    signature: Type.String(),
    url: Type.String(),
    found_at: Type.String(),
    title: Type.String(),
    start_timestamp: Rfc3339,
    end_timestamp: Rfc3339,
    timestamp: Rfc3339,
    scan_profile_token: Type.String(),
    definition: Type.Object(
      {
        uuid: Type.String(),
        description: Type.String(),
        risk: Type.String(),
        references: Type.Array(
          Type.Object({ uuid: Type.String(), link: Type.String(), name: Type.String(), source: Type.String() }, strict),
        ),
      },
      strict,
    ),
    score: Type.Array(
      Type.Object(
        {
          version: Type.Union([Type.Literal('2.0'), Type.Literal('3.0'), Type.Literal('3.1')]),
          score: Type.Number(),
          vector: Type.String(),
          severity: Type.String(),
          from: Type.Number(),
          to: Type.Number(),
        },
        strict,
      ),
    ),
    owasp: Type.Array(Type.Object({ year: Type.String(), classification: Type.String() }, strict)),
    details: Type.Array(
      Type.Object({ uuid: Type.String(), type: Type.String(), name: Type.String(), value: Type.String() }, strict),
    ),
    tags: Type.Array(Type.Object({ type: Type.String(), value: Type.String() }, strict)),
    target: Type.Object({ uuid: Type.String(), type: Type.String(), address: Type.String() }, strict),
  },
  strict,
);

const reportFields = {
  token: Token,
  scan_profile_token: Token,
  scan_profile_name: Type.String(),
  endpoint: Type.String(),
  created: Rfc3339,
  started: Rfc3339,
  stopped: Rfc3339,
  url: Type.String({ pattern: '^https?://' }),
  cvss: Type.Number({ minimum: 0, maximum: 10 }),
  high_level_findings: Type.Integer({ minimum: 0 }),
  medium_level_findings: Type.Integer({ minimum: 0 }),
  low_level_findings: Type.Integer({ minimum: 0 }),
  information_findings: Type.Integer({ minimum: 0 }),
};
export const ClientReport = Type.Object(reportFields, strict);
export const ClientFullReport = Type.Object({ ...reportFields, findings: Type.Array(ClientFinding) }, strict);

export const ClientFindingPage = Type.Object(
  {
    findings: Type.Array(ClientFinding),
    next_marker: Type.Optional(Type.String()),
    nextMarker: Type.Optional(Type.String()),
  },
  strict,
);

export const ClientError = Type.Object(
  {
    code: Type.Integer(),
    message: Type.String(),
    parameters: Type.Optional(Type.Array(Type.String())),
    error: Type.Object(
      {
        code: Type.Integer(),
        message: Type.String(),
        parameters: Type.Optional(Type.Array(Type.String())),
        more_info: Type.String(),
      },
      strict,
    ),
  },
  strict,
);

/** A finding UUID, as the findinguuids read lists them. */
export const ClientUuid = Uuid;

export const ClientScanStatus = Type.Object({
  state: Type.Union(['starting', 'running', 'stopping', 'stopped'].map((s) => Type.Literal(s))),
  status: Type.String(),
});

export type ClientFindingT = Static<typeof ClientFinding>;

/** Decodes a response body as a strict client would: any deviation fails with every error listed. */
export function decode<T extends TSchema>(schema: T, body: string): Static<T> {
  const value: unknown = JSON.parse(body);
  if (!Value.Check(schema, value)) {
    const errors = [...Value.Errors(schema, value)]
      .slice(0, 10)
      .map((e) => `${e.path}: ${e.message} (got ${JSON.stringify(e.value)?.slice(0, 80)})`);
    assert.fail(`response does not decode strictly:\n${errors.join('\n')}\n${body.slice(0, 500)}`);
  }
  return value;
}

/** Decodes a bare array of `item`. */
export function decodeArray<T extends TSchema>(item: T, body: string): Array<Static<T>> {
  return decode(Type.Array(item), body);
}
