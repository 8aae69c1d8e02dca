import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import {
  OidcError,
  type OidcChecks,
  type OidcClient,
  type OidcFailureKind,
  type OidcProviderSettings,
} from '../../core/accounts/sso.types.ts';
import type { AddressResolver, EgressGuard } from '../net/egress-guard.ts';
import { createGuardedFetch } from '../net/guarded-fetch.ts';

/**
 * The console's OpenID client over openid-client (v6): the authorization code flow with PKCE
 * (S256), state and nonce. openid-client checks the answer: the state, the ID token's issuer,
 * audience (the client id), expiry and nonce; ID token signatures are checked too
 * (enableNonRepudiationChecks), against the provider's published keys. Every request goes
 * through the egress guard (guarded-fetch.ts) with a time limit; a provider's discovery document
 * is kept a few minutes, per issuer, client id and secret.
 */

/** What the client needs: the engine's guard and resolver, and a time limit per request. */
export interface OidcClientDeps {
  guard: EgressGuard;
  resolver: AddressResolver;
  /** Seconds a request to the provider may take (discovery, keys, token); default 10. */
  timeoutSeconds?: number;
}

const discoveryTtlMs = 5 * 60_000;
const scope = 'openid email';

/** The message of a failure of openid-client, with its cause's when that says more. */
function describe(err: unknown): string {
  const cause = (err as { cause?: unknown } | null)?.cause;
  const inner =
    cause instanceof Error ? (((cause as { cause?: unknown }).cause as Error | undefined) ?? cause) : undefined;
  if (err instanceof oidc.AuthorizationResponseError || err instanceof oidc.ResponseBodyError)
    return err.error_description === undefined ? err.error : `${err.error} (${err.error_description})`;
  if (err instanceof TypeError && inner !== undefined) return inner.message;
  if (err instanceof oidc.ClientError && cause instanceof Error) return cause.message;
  return err instanceof Error ? err.message : String(err);
}

/** Sorts a failure of the token exchange into what the sign-in page says. */
function kindOf(err: unknown): OidcFailureKind {
  if (err instanceof oidc.AuthorizationResponseError || err instanceof oidc.ResponseBodyError) return 'provider';
  if (err instanceof TypeError) return 'unreachable';
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT') return 'unreachable';
  if (/"state"/.test(describe(err))) return 'state';
  return 'token';
}

/** Creates the client (one per process). */
export function createOidcClient(deps: OidcClientDeps): OidcClient {
  const timeoutSeconds = deps.timeoutSeconds ?? 10;
  const fetch = createGuardedFetch({ guard: deps.guard, resolver: deps.resolver, timeoutMs: timeoutSeconds * 1000 });
  const discovered = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

  const configurationOf = (provider: OidcProviderSettings): Promise<oidc.Configuration> => {
    const key = createHash('sha256')
      .update(JSON.stringify([provider.issuer, provider.clientId, provider.clientSecret]))
      .digest('hex');
    const now = Date.now();
    const known = discovered.get(key);
    if (known !== undefined && now - known.at < discoveryTtlMs) return known.config;
    const issuer = new URL(provider.issuer);
    // Plain http only reaches a provider on this machine (sso-settings.service.ts refuses any other).
    const execute = issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
    const config = oidc
      .discovery(issuer, provider.clientId, undefined, oidc.ClientSecretBasic(provider.clientSecret), {
        [oidc.customFetch]: fetch as oidc.CustomFetch,
        timeout: timeoutSeconds,
        execute: [...execute, oidc.enableNonRepudiationChecks],
      })
      .catch((err: unknown) => {
        discovered.delete(key);
        throw new OidcError('unreachable', `${provider.issuer}: ${describe(err)}`, { cause: err });
      });
    discovered.set(key, { at: now, config });
    if (discovered.size > 100) discovered.delete(discovered.keys().next().value!);
    return config;
  };

  return {
    async checkProvider(provider) {
      await configurationOf(provider);
    },

    async authorizationUrl(provider, redirectUri, checks: OidcChecks) {
      const config = await configurationOf(provider);
      return oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope,
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      });
    },

    async completeSignIn(provider, callbackUrl, redirectUri, checks) {
      const config = await configurationOf(provider);
      try {
        const tokens = await oidc.authorizationCodeGrant(
          config,
          callbackUrl,
          {
            pkceCodeVerifier: checks.codeVerifier,
            expectedState: checks.state,
            expectedNonce: checks.nonce,
            idTokenExpected: true,
          },
          { redirect_uri: redirectUri },
        );
        const claims = tokens.claims();
        if (claims === undefined) throw new OidcError('token', 'the provider sent no ID token');
        return {
          subject: claims.sub,
          email: typeof claims['email'] === 'string' ? claims['email'] : undefined,
          isEmailVerified: claims['email_verified'] === true,
        };
      } catch (err) {
        if (err instanceof OidcError) throw err;
        throw new OidcError(kindOf(err), describe(err), { cause: err });
      }
    },
  };
}
