import type { Transactional } from '../shared/transactional.ts';
import type { AccountRepositories } from './account.types.ts';

/**
 * Single sign-on of the console: a team's members whose authentication is `sso` sign in through
 * the team's OpenID Connect provider (authorization code flow with PKCE, state and nonce).
 */

/** A team's OpenID Connect provider, as the store keeps it (the client secret sealed). */
export interface TeamSso {
  teamId: number;
  /** The provider's issuer URL; its discovery document is read from it. */
  issuer: string;
  /** The console's client id at the provider: the audience its ID tokens must name. */
  clientId: string;
  /** The client secret encrypted with the server key (SecretBox): never shown back. */
  clientSecretSealed: string;
  updated: Date;
}

/** Persistence of the teams' providers: at most one per team. */
export interface TeamSsoRepository {
  find(teamId: number): Promise<TeamSso | undefined>;
  /** Inserts or replaces the team's provider. */
  save(sso: TeamSso): Promise<void>;
  /** Removes the team's provider; false when it had none. */
  remove(teamId: number): Promise<boolean>;
}

/** The repositories of the single sign-on services. */
export interface SsoRepositories extends AccountRepositories {
  teamSso: TeamSsoRepository;
}

/** The store as the single sign-on services see it. */
export type SsoStore = Transactional<SsoRepositories>;

/** A provider as the OpenID client uses it: the secret in clear, only for the length of a request. */
export interface OidcProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The single-use values of one sign-in, kept by the browser (sealed) between the redirect and the callback. */
export interface OidcChecks {
  state: string;
  nonce: string;
  /** The PKCE code verifier; only its S256 challenge goes to the provider. */
  codeVerifier: string;
}

/** Who the provider says signed in: the claims of a checked ID token. */
export interface OidcIdentity {
  subject: string;
  email: string | undefined;
  /** True only when the token's `email_verified` claim is the boolean true. */
  isEmailVerified: boolean;
}

/**
 * Why a sign-in at the provider failed: `unreachable` (discovery or the token request got no
 * usable answer: refused by the egress guard, a timeout, not a provider), `state` (the callback
 * does not belong to this sign-in), `provider` (the provider answered an error, e.g. the user
 * cancelled), `token` (the ID token failed a check: issuer, audience, expiry, nonce, signature).
 */
export type OidcFailureKind = 'unreachable' | 'state' | 'provider' | 'token';

/** A failed exchange with the provider; the message says what failed, for the sign-in page. */
export class OidcError extends Error {
  override readonly name = 'OidcError';

  constructor(
    readonly kind: OidcFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The OpenID client the core signs in through (implemented by engine/sso with openid-client,
 * every connection through the egress guard). Both methods throw OidcError.
 */
export interface OidcClient {
  /** Reads the provider's discovery document: it answers, for that issuer. */
  checkProvider(provider: OidcProviderSettings): Promise<void>;
  /** The provider's authorization URL for this sign-in (reads the discovery document). */
  authorizationUrl(provider: OidcProviderSettings, redirectUri: string, checks: OidcChecks): Promise<URL>;
  /**
   * Checks the callback (state, error), redeems the code with the PKCE verifier and checks the ID
   * token (issuer, audience, expiry, nonce, signature): who signed in.
   */
  completeSignIn(
    provider: OidcProviderSettings,
    callbackUrl: URL,
    redirectUri: string,
    checks: OidcChecks,
  ): Promise<OidcIdentity>;
}
