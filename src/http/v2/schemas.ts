import { Type, type TSchema } from '@sinclair/typebox';

/** Shared wire schemas of the v2 surface (OpenAPI documentation and types). */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC, YYYY-MM-DDTHH:mm:ssZ' });

export const Token = Type.String({
  pattern: '^[0-9a-f]{32}$',
  description: 'Opaque token: 32 lowercase hexadecimal characters',
});

export const ErrorBody = Type.Object(
  {
    code: Type.Integer({ description: 'Error code of the catalogue (see the docs page)' }),
    message: Type.String(),
    parameters: Type.Optional(Type.Array(Type.String(), { description: 'Request parameters at fault' })),
    error: Type.Object({
      code: Type.Integer(),
      message: Type.String(),
      parameters: Type.Optional(Type.Array(Type.String())),
      more_info: Type.String(),
    }),
  },
  { $id: 'Error', description: 'v2 error body; the same fields are mirrored under `error`.' },
);

export const EmptyObject = Type.Object({}, { additionalProperties: false, description: 'Empty object' });

/** A v2 paged list: the items under `key`, `has_more`, and the markers. */
export function pagedList(key: string, item: TSchema, description: string): TSchema {
  return Type.Object(
    {
      [key]: Type.Array(item),
      has_more: Type.Boolean(),
      next_marker: Type.Optional(
        Type.String({ description: 'Pass as `marker` for the next page; present whenever has_more is true' }),
      ),
      current_marker: Type.Optional(Type.String({ description: 'Marker that reproduces this page' })),
    },
    { description },
  );
}
