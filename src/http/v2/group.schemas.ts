import { Type } from '@sinclair/typebox';
import { assetPatternLanguage } from '../../core/groups/asset-pattern.ts';
import { Timestamp, Token } from './schemas.ts';

/** A group on the wire (v2). */
export const Group = Type.Object(
  {
    token: Token,
    name: Type.String({ description: 'Unique within the team ignoring case' }),
    description: Type.String(),
    created: Timestamp,
    updated: Timestamp,
  },
  { $id: 'Group' },
);

/** A group member on the wire. */
export const GroupMember = Type.Object(
  { token: Token, group_token: Token, user_token: Token, created: Timestamp, updated: Timestamp },
  { $id: 'GroupMember' },
);

/** An asset pattern on the wire. */
export const AssetPattern = Type.Object(
  {
    token: Token,
    group_token: Token,
    pattern: Type.String({ description: `Canonical (lowercase) form. ${assetPatternLanguage}` }),
    created: Timestamp,
    updated: Timestamp,
  },
  { $id: 'AssetPattern' },
);

/** Body of pattern create and update. */
export const AssetPatternBody = Type.Object({
  pattern: Type.String({
    description: assetPatternLanguage,
    examples: ['*.example.com', 'www.example.com', '192.0.2.0/24'],
  }),
});

const groupName = Type.String({
  minLength: 1,
  maxLength: 254,
  pattern: '^[A-Za-z0-9_\\- ]*[A-Za-z0-9_\\-][A-Za-z0-9_\\- ]*$',
  description: 'Letters, digits, underscore, dash and space, not only spaces; shorter than 255 characters',
});
const groupDescription = Type.Union([Type.String({ maxLength: 254, pattern: '^[^\\u0000]*$' }), Type.Null()], {
  description: 'Shorter than 255 characters, without NUL (U+0000); null means none ("")',
});

/** Body of group create. */
export const GroupCreateBody = Type.Object({ name: groupName, description: Type.Optional(groupDescription) });

/** Body of group update: each field optional. */
export const GroupUpdateBody = Type.Object({
  name: Type.Optional(groupName),
  description: Type.Optional(groupDescription),
});

/** Path parameters of a group. */
export const GroupTokenParam = Type.Object({ groupToken: Token });

/** Path parameters of a group member. */
export const GroupMemberParams = Type.Object({ groupToken: Token, groupMemberToken: Token });

/** Path parameters of an asset pattern. */
export const AssetPatternParams = Type.Object({ groupToken: Token, assetPatternToken: Token });
