import type { OidcClient } from '../../core/accounts/sso.types.ts';
import type { OidcClientDeps } from './oidc-client.ts';

/**
 * The OpenID client, loaded on its first use: openid-client and undici's fetch are not loaded by
 * an admin command or a server whose teams never sign in through single sign-on.
 */
export function lazyOidcClient(deps: OidcClientDeps): OidcClient {
  let loaded: Promise<OidcClient> | undefined;
  const client = (): Promise<OidcClient> =>
    (loaded ??= import('./oidc-client.ts').then(({ createOidcClient }) => createOidcClient(deps)));
  return {
    checkProvider: async (provider) => (await client()).checkProvider(provider),
    authorizationUrl: async (provider, redirectUri, checks) =>
      (await client()).authorizationUrl(provider, redirectUri, checks),
    completeSignIn: async (provider, callbackUrl, redirectUri, checks) =>
      (await client()).completeSignIn(provider, callbackUrl, redirectUri, checks),
  };
}
