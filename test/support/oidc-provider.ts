import { generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error -- oidc-provider ships no type declarations; the few members used are typed below.
import ProviderModule from 'oidc-provider';

/**
 * A real OpenID Connect provider (the `oidc-provider` package) on 127.0.0.1 for the single sign-on
 * tests. Its interaction (login and consent) is programmatic: the next authorization signs in the
 * account the test named with loginAs(). A test can also tamper with the ID token the token
 * endpoint answers (its claims changed, then signed again with the provider's own key): a wrong
 * audience, an expiry in the past. authorize() plays the browser: it follows the provider's
 * redirects with the provider's cookies and stops at the console's callback URL.
 */

/** One account of the provider: its e-mail and whether the provider says it is verified. */
export interface TestAccount {
  email: string;
  isVerified: boolean;
}

/** A client of the provider (the console's registration). */
export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

interface OidcProvider {
  callback(): (req: http.IncomingMessage, res: http.ServerResponse) => void;
  interactionDetails(req: http.IncomingMessage, res: http.ServerResponse): Promise<{ params: Record<string, string> }>;
  interactionFinished(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    result: unknown,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  };
}

const Provider = ProviderModule as new (issuer: string, config: Record<string, unknown>) => OidcProvider;

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The provider fixture. */
export class TestOidcProvider {
  private server: http.Server | undefined;
  private provider: OidcProvider | undefined;
  private readonly accounts = new Map<string, TestAccount>();
  private readonly key: KeyObject;
  private readonly jwk: JsonWebKey;
  private nextLogin: string | null | undefined;
  /** Changes the claims of the next ID tokens (then signed again with the provider's key); undefined: as issued. */
  tamper: ((claims: Record<string, unknown>) => void) | undefined;
  issuer = '';

  constructor(private readonly clients: TestClient[]) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.key = privateKey;
    this.jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };
  }

  /** Adds (or replaces) an account. */
  addAccount(account: TestAccount): void {
    this.accounts.set(account.email, account);
  }

  /** The account the next authorization signs in; null: the user cancels at the provider (access_denied). */
  loginAs(email: string | null): void {
    this.nextLogin = email;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.provider = new Provider(this.issuer, {
      clients: this.clients.map((c) => ({
        client_id: c.clientId,
        client_secret: c.clientSecret,
        redirect_uris: [c.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      jwks: { keys: [this.jwk] },
      cookies: { keys: ['perimeter-test-cookie-key'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      // The e-mail claims in the ID token itself (not only at the userinfo endpoint).
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      findAccount: async (_ctx: unknown, sub: string) => {
        const account = this.accounts.get(sub);
        if (account === undefined) return undefined;
        return {
          accountId: sub,
          claims: async () => ({ sub, email: account.email, email_verified: account.isVerified }),
        };
      },
    });
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const provider = this.provider!;
    if (req.url?.startsWith('/interaction/') === true) {
      this.finishInteraction(req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    if (req.method === 'POST' && req.url === '/token' && this.tamper !== undefined) this.rewriteIdToken(res);
    provider.callback()(req, res);
  }

  /** Signs in the account loginAs() named and consents to the scopes asked. */
  private async finishInteraction(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const provider = this.provider!;
    const details = await provider.interactionDetails(req, res);
    const accountId = this.nextLogin;
    if (accountId === undefined) throw new Error('no account to sign in: call loginAs() first');
    if (accountId === null) {
      const result = { error: 'access_denied', error_description: 'the user cancelled' };
      return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    }
    const grant = new provider.Grant({ accountId, clientId: details.params['client_id']! });
    grant.addOIDCScope(details.params['scope'] ?? 'openid');
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  /** Changes the ID token of the token endpoint's answer as `tamper` says, signed again with the provider's key. */
  private rewriteIdToken(res: http.ServerResponse): void {
    const end = res.end.bind(res) as (chunk?: unknown) => http.ServerResponse;
    const tamper = this.tamper!;
    const key = this.key;
    res.end = ((chunk?: unknown) => {
      const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : typeof chunk === 'string' ? chunk : '';
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return end(chunk);
      }
      if (typeof body['id_token'] === 'string') {
        const [header, payload] = body['id_token'].split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
        tamper(claims);
        const input = `${header}.${base64url(claims)}`;
        body['id_token'] = `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
      }
      const out = JSON.stringify(body);
      if (!res.headersSent) res.setHeader('content-length', Buffer.byteLength(out));
      return end(out);
    }) as typeof res.end;
  }

  /**
   * Plays the browser from the provider's authorization URL: follows its redirects (keeping its
   * cookies) through the interaction until one leads away from the provider; answers that URL
   * (the console's callback with the code and state).
   */
  async authorize(authorizationUrl: string): Promise<URL> {
    const cookies = new Map<string, string>();
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < 10; hop++) {
      if (url.origin !== this.issuer) return url;
      const response = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      const location = response.headers.get('location');
      if (location === null) throw new Error(`the provider answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
      url = new URL(location, url);
    }
    throw new Error('too many redirects at the provider');
  }
}
