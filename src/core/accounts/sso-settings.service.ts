import type { SecretBox } from '../shared/secret-box.ts';
import type { Team } from '../teams/team.types.ts';
import { OidcError, type OidcClient, type SsoStore, type TeamSso } from './sso.types.ts';

/**
 * A team's single sign-on settings: its OpenID Connect provider (issuer URL, client id, client
 * secret). Admins set them on the console (/team/sso) or through `perimeter admin team sso`; the
 * same rules and messages serve both. The secret is sealed with the server key and never shown
 * back: a blank secret on a change keeps the stored one.
 */

/** What a form or a command gives. */
export interface SsoSettingsInput {
  issuer: string;
  clientId: string;
  /** Blank keeps the stored secret (required when there is none). */
  clientSecret: string;
}

/** What may be shown of a team's settings: never the secret. */
export interface SsoSettingsView {
  issuer: string;
  clientId: string;
  updated: Date;
}

/** The field a refusal is about, for the form to point at it. */
export type SsoSettingsField = 'issuer' | 'client_id' | 'client_secret';

/** The outcome of a change. */
export type SsoSettingsResult =
  { kind: 'saved'; settings: SsoSettingsView } | { kind: 'invalid'; field: SsoSettingsField; message: string };

const maxIssuerLength = 2048;
const maxClientIdLength = 255;
const maxSecretLength = 1024;

// eslint-disable-next-line no-control-regex -- control characters are what is refused
const controlCharacters = /[\u0000-\u001f\u007f]/;

/** Whether a URL's host is this machine: the only hosts a plain-http issuer may have. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Why an issuer URL is refused, or undefined. https only, except plain http to a loopback host (a
 * provider on the same machine, as in tests: the egress guard still refuses loopback unless
 * PERIMETER_EGRESS_ALLOW opens it). No user, query or fragment: an issuer identifier has none.
 */
export function issuerProblem(raw: string): string | undefined {
  const text = raw.trim();
  if (text === '') return 'Enter the issuer URL of your identity provider.';
  if (text.length > maxIssuerLength) return `The issuer URL is too long (${maxIssuerLength} characters at most).`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'The issuer URL is not a URL (for example https://login.example.com/realms/acme).';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    return 'The issuer URL must start with https:// (plain http only for a provider on this machine).';
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    return 'The issuer URL must not have a user name, a query or a fragment.';
  return undefined;
}

function clientIdProblem(clientId: string): string | undefined {
  if (clientId === '') return 'Enter the client id your identity provider gave the console.';
  if (clientId.length > maxClientIdLength)
    return `The client id is too long (${maxClientIdLength} characters at most).`;
  if (controlCharacters.test(clientId)) return 'The client id must not contain control characters.';
  return undefined;
}

function secretProblem(secret: string, hasStored: boolean): string | undefined {
  if (secret === '' && !hasStored) return 'Enter the client secret (it is stored encrypted and never shown again).';
  if (secret.length > maxSecretLength) return `The client secret is too long (${maxSecretLength} characters at most).`;
  if (controlCharacters.test(secret)) return 'The client secret must not contain control characters.';
  return undefined;
}

function viewOf(sso: TeamSso): SsoSettingsView {
  return { issuer: sso.issuer, clientId: sso.clientId, updated: sso.updated };
}

/** The team's settings without the secret, or undefined when single sign-on is not set up. */
export async function readSsoSettings(store: SsoStore, team: Pick<Team, 'id'>): Promise<SsoSettingsView | undefined> {
  const sso = await store.teamSso.find(team.id);
  return sso === undefined ? undefined : viewOf(sso);
}

/**
 * Checks and saves a team's provider. The values are checked first, then the provider itself:
 * its discovery document must answer for that issuer (so a typo is told now, not at the first
 * sign-in). The client id and secret can only be proved by a sign-in.
 */
export async function saveSsoSettings(
  deps: { store: SsoStore; box: SecretBox; oidc: OidcClient },
  team: Pick<Team, 'id'>,
  input: SsoSettingsInput,
  now = new Date(),
): Promise<SsoSettingsResult> {
  const issuer = input.issuer.trim();
  const clientId = input.clientId.trim();
  const secret = input.clientSecret.trim();
  const stored = await deps.store.teamSso.find(team.id);
  const issuerRefusal = issuerProblem(issuer);
  if (issuerRefusal !== undefined) return { kind: 'invalid', field: 'issuer', message: issuerRefusal };
  const clientIdRefusal = clientIdProblem(clientId);
  if (clientIdRefusal !== undefined) return { kind: 'invalid', field: 'client_id', message: clientIdRefusal };
  const secretRefusal = secretProblem(secret, stored !== undefined);
  if (secretRefusal !== undefined) return { kind: 'invalid', field: 'client_secret', message: secretRefusal };
  const clientSecret = secret === '' ? deps.box.decrypt(stored!.clientSecretSealed) : secret;
  try {
    await deps.oidc.checkProvider({ issuer, clientId, clientSecret });
  } catch (err) {
    if (!(err instanceof OidcError)) throw err;
    return { kind: 'invalid', field: 'issuer', message: `The identity provider did not answer: ${err.message}` };
  }
  const sso: TeamSso = {
    teamId: team.id,
    issuer,
    clientId,
    clientSecretSealed: secret === '' ? stored!.clientSecretSealed : deps.box.encrypt(secret),
    updated: now,
  };
  await deps.store.teamSso.save(sso);
  return { kind: 'saved', settings: viewOf(sso) };
}

/** Turns single sign-on off for the team; its `sso` members cannot sign in until it is set up again. */
export async function removeSsoSettings(store: SsoStore, team: Pick<Team, 'id'>): Promise<boolean> {
  return store.teamSso.remove(team.id);
}
