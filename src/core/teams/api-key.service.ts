import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { appError } from '../errors/app-error.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import type { TtlCache } from '../shared/ttl-cache.ts';
import { keyUsageOf } from './key-usage.service.ts';
import type { Caller } from './caller.ts';
import { isEndpointGroup, type EndpointGroup } from './plans.ts';
import { OperatorError } from '../errors/operator-error.ts';
import { requireTeam } from './team.service.ts';
import type { ApiKey, Team, TeamRepositories } from './team.types.ts';

const keyPattern = /^[0-9a-f]{32}$/;
// Crockford's base32 in lower case: no i, l, o or u to misread when an operator types an id.
const keyIdAlphabet = '0123456789abcdefghjkmnpqrstvwxyz';
const keyIdPattern = /^key_[0-9a-hjkmnp-tv-z]{10}$/;

/** Signed requests must carry a timestamp from 10 s before to 5 s after the server's clock. */
export const signatureWindow = { beforeSeconds: 10, afterSeconds: 5 } as const;

/** True when the text has the shape of an API key (32 lowercase hex characters). */
export function isWellFormedKey(key: string): boolean {
  return keyPattern.test(key);
}

/**
 * A new public key id: `key_` and 10 random base32 characters (50 bits, so unique in any store
 * in practice; a unique index makes sure). Random, so it tells nothing of the key, its hash or
 * how many keys exist.
 */
export function newKeyId(): string {
  // 256 is a multiple of 32: the low five bits of a random byte are uniform.
  return `key_${[...randomBytes(10)].map((b) => keyIdAlphabet[b & 31]).join('')}`;
}

/** True when the text has the shape of a key id (`key_` and 10 base32 characters). */
export function isKeyId(text: string): boolean {
  return keyIdPattern.test(text);
}

/** SHA-256 of a key: what the store keeps instead of the key. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Creates a key for a team; the key (and secret) are returned once and never stored in clear. */
export async function createApiKey(
  store: TeamRepositories,
  box: SecretBox,
  input: { teamName: string; kind: 'v2' | 'v3'; signing: boolean; permissions: string[] },
): Promise<{ key: string; secret?: string; record: ApiKey }> {
  const team = await requireTeam(store, input.teamName);
  const unknown = input.permissions.filter((p) => !isEndpointGroup(p));
  if (unknown.length > 0) throw new OperatorError(`unknown endpoint group(s): ${unknown.join(', ')}`);
  const key = randomBytes(16).toString('hex');
  const secret = input.signing ? randomBytes(32).toString('base64') : undefined;
  const record = await store.keys.insert({
    publicId: newKeyId(),
    keyHash: hashKey(key),
    kind: input.kind,
    hint: key.slice(0, 6),
    permissions: input.permissions.length > 0 ? (input.permissions as EndpointGroup[]) : null,
    secretSealed: secret === undefined ? null : box.encrypt(secret),
    teamIds: [team.id],
    created: new Date(),
    revoked: null,
  });
  return secret === undefined ? { key, record } : { key, secret, record };
}

/** What `revokeApiKey` did: the key (as revoked), its teams, and whether it was revoked before. */
export interface Revocation {
  key: ApiKey;
  teams: Team[];
  wasRevoked: boolean;
}

/**
 * Revokes a key given by its public id or in clear, whichever team it belongs to (an operator
 * act); an operator error when nothing matches. A key revoked before keeps its first time.
 */
export async function revokeApiKey(store: TeamRepositories, idOrKey: string, now = new Date()): Promise<Revocation> {
  let record: ApiKey | undefined;
  if (isKeyId(idOrKey)) {
    record = await store.keys.findByPublicId(idOrKey);
    if (record === undefined) throw new OperatorError(`no key with id ${idOrKey}`);
  } else if (isWellFormedKey(idOrKey)) {
    record = await store.keys.findByHash(hashKey(idOrKey));
    // The key is a credential: never repeated back.
    if (record === undefined) throw new OperatorError('no such key');
  } else {
    throw new OperatorError(
      'give a key id (key_ and 10 characters, see key list) or a key (32 lowercase hexadecimal characters)',
    );
  }
  const wasRevoked = !(await store.keys.revoke(record.id, now));
  const teams = (await Promise.all(record.teamIds.map((id) => store.teams.findById(id)))).filter(
    (t): t is Team => t !== undefined,
  );
  return { key: { ...record, revoked: record.revoked ?? now }, teams, wasRevoked };
}

/** The keys of a team (hints only). */
export async function listApiKeys(store: TeamRepositories, teamName: string): Promise<ApiKey[]> {
  const team = await requireTeam(store, teamName);
  return store.keys.listByTeam(team.id);
}

/**
 * The signature of a v2 request: base64(HMAC-SHA-256(base64decode(secret),
 * `METHOD;PATH;KEY;TIMESTAMP;BODY`)), PATH the relative URL (path and query as sent, without `/rest`).
 */
export function computeSignature(
  secret: string,
  parts: { method: string; path: string; key: string; timestamp: string; body: Buffer },
): string {
  return signingHmac(secret, parts).update(parts.body).digest('base64');
}

/** The HMAC of a signature with everything but the body fed in; the body follows, as it arrives. */
function signingHmac(secret: string, parts: { method: string; path: string; key: string; timestamp: string }) {
  return createHmac('sha256', Buffer.from(secret, 'base64')).update(
    `${parts.method};${parts.path};${parts.key};${parts.timestamp};`,
  );
}

/** What a request tells about its credentials, already taken from the headers. */
export interface Credentials {
  kind: 'v2' | 'v3';
  key: string;
  signature?: string | undefined;
  timestamp?: string | undefined;
  method: string;
  /** The relative URLs the signature may cover (see signedPathsOf); any one that matches proves it. */
  paths: readonly string[];
}

/**
 * Checks the body half of a signature as the body arrives: `update` with every chunk, then
 * `verify` once it ended (1003 when the signature does not match). Unsigned keys get a verifier
 * that accepts anything.
 */
export interface BodyVerifier {
  update(chunk: Buffer): void;
  verify(): void;
}

const acceptAnyBody: BodyVerifier = { update: () => undefined, verify: () => undefined };

/**
 * Resolves a key to its caller before the body is read: 1002 for a malformed key, 1003 for an
 * unknown, revoked or wrong-kind key, a missing signature or a timestamp outside the window.
 * Every failure of a well-formed key answers the same 1003, so a key of another team or kind
 * reveals nothing. The returned verifier finishes the signature over the body bytes. With a
 * cache, a key record is reused for the cache's TTL (a revocation takes effect within it).
 */
export async function beginAuthentication(
  store: TeamRepositories,
  box: SecretBox,
  credentials: Credentials,
  now = Date.now(),
  cache?: TtlCache<ApiKey>,
): Promise<{ caller: Caller; body: BodyVerifier }> {
  if (!isWellFormedKey(credentials.key))
    throw appError(1002, 'API key malformed: a key is 32 lowercase hexadecimal characters');
  const lookup = () => store.keys.findByHash(hashKey(credentials.key));
  // The cache is keyed by the key itself (it lives only in this process's memory), sparing a hash per request.
  const record = cache === undefined ? await lookup() : await cache.get(credentials.key, lookup, now);
  if (record === undefined || record.revoked !== null || record.kind !== credentials.kind)
    throw appError(1003, 'API key invalid');
  const caller: Caller = {
    keyId: record.id,
    keyHint: record.hint,
    kind: record.kind,
    permissions: record.permissions,
    teamIds: record.teamIds,
  };
  // A use counts once the key is proven: now for an unsigned key, after the signature for a signed one.
  const recordUse = () => keyUsageOf(store)?.record(record.id, now);
  if (record.secretSealed === null) {
    recordUse();
    return { caller, body: acceptAnyBody };
  }
  return { caller, body: signatureVerifier(box.decrypt(record.secretSealed), credentials, now, recordUse) };
}

/** Authenticates a request whose whole body is at hand. */
export async function authenticate(
  store: TeamRepositories,
  box: SecretBox,
  credentials: Credentials & { body: Buffer },
  now = Date.now(),
  cache?: TtlCache<ApiKey>,
): Promise<Caller> {
  const { caller, body } = await beginAuthentication(store, box, credentials, now, cache);
  body.update(credentials.body);
  body.verify();
  return caller;
}

function signatureVerifier(
  secret: string,
  credentials: Credentials,
  now: number,
  onVerified: () => void,
): BodyVerifier {
  const { signature, timestamp } = credentials;
  if (signature === undefined || timestamp === undefined) {
    throw appError(1003, 'This API key requires signed requests: send X-Service-Signature and X-Service-Timestamp');
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw appError(1003, 'X-Service-Timestamp must be Unix time in seconds');
  const age = now / 1000 - Number(timestamp);
  if (age > signatureWindow.beforeSeconds || age < -signatureWindow.afterSeconds) {
    throw appError(1003, 'Request timestamp outside the accepted window (10 s before to 5 s after the server time)');
  }
  const hmacs = credentials.paths.map((path) =>
    signingHmac(secret, { method: credentials.method, path, key: credentials.key, timestamp }),
  );
  return {
    update: (chunk) => {
      for (const hmac of hmacs) hmac.update(chunk);
    },
    verify: () => {
      const given = Buffer.from(signature);
      // Every candidate is compared (no early exit), each in constant time.
      let matched = false;
      for (const hmac of hmacs) {
        const expected = Buffer.from(hmac.digest('base64'));
        if (expected.length === given.length && timingSafeEqual(expected, given)) matched = true;
      }
      if (!matched) throw appError(1003, 'Request signature invalid');
      onVerified();
    },
  };
}
