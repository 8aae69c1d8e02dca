/**
 * The realistic application of the scanner benchmark (issue 37, item 7): a login-gated web
 * application in the manner of DVWA and Juice Shop, written from their patterns. Every page but
 * the login form redirects to /login without a session; sessions expire (after a number of
 * requests or an age) so a scanner must log in again; forms run only when their button is sent;
 * a menu exists only once a script has built it; answers come after a seeded random 10–50 ms.
 * The vulnerable twin has the flaws of `realisticManifest`; the safe twin serves the same pages
 * fixed (bound SQL, encoded output, validated input, tokens on every form).
 */
import type { TargetServer } from '../target-site.ts';
import { serve } from '../target-site.ts';
import { accountPages, publicAccountPages } from './account-pages.ts';
import {
  createState,
  parseCookies,
  redirect,
  seededRandom,
  SESSION_COOKIE,
  type AppRequest,
  type AppResponse,
  type AppState,
  type Page,
  type SessionLimits,
} from './app-kit.ts';
import { openAppDatabase } from './database.ts';
import { featurePages, staticFiles, uploadedFiles } from './feature-pages.ts';
import { injectionPages } from './injection-pages.ts';

export { realisticAccounts, realisticManifest, type RealisticSpot } from './manifest.ts';

/** Options of one twin. */
export interface RealisticAppOptions {
  /** Session lifetime; default 500 requests or 60 s. */
  limits?: Partial<SessionLimits>;
  /** Answer delay range in ms (uniform, seeded); default 10–50. */
  delayMs?: { min: number; max: number };
  /** Seed of the delays; default 37 (the safe twin adds 1). */
  seed?: number;
}

/** A running twin: the target server (requests logged) and its state (accounts, counters). */
export interface RealisticApp extends TargetServer {
  state: AppState;
}

const BODY_LIMIT = 2 * 1024 * 1024;

const publicPages: Page[] = [staticFiles, uploadedFiles, publicAccountPages];
const sessionPages: Page[] = [accountPages, injectionPages, featurePages];

/** Headers of every answer: the vulnerable twin has no CSP (its DOM XSS must run); the safe twin has one. */
function baseHeaders(isSafe: boolean): Record<string, string> {
  return {
    'x-frame-options': 'SAMEORIGIN',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-cache, must-revalidate',
    ...(isSafe
      ? { 'content-security-policy': "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'" }
      : {}),
  };
}

async function answer(request: AppRequest): Promise<AppResponse> {
  for (const page of publicPages) {
    const response = await page(request);
    if (response !== undefined) return response;
  }
  const isApi = request.url.pathname.startsWith('/api/');
  const loggedOut = (reason: string): AppResponse =>
    isApi
      ? { status: 401, headers: { 'content-type': 'application/json' }, body: '{"error":"not logged in"}' }
      : redirect(reason === '' ? '/login' : `/login?msg=${reason}`);
  const { session, state } = request;
  if (session === undefined) return loggedOut('');
  session.requests++;
  if (session.requests > state.limits.maxRequests || Date.now() - session.createdAt > state.limits.maxAgeMs) {
    state.sessions.delete(session.id);
    state.counters.expired++;
    return loggedOut('expired');
  }
  for (const page of sessionPages) {
    const response = await page(request);
    if (response !== undefined) return response;
  }
  return {
    status: 404,
    headers: { 'content-type': 'text/html;charset=utf-8' },
    body: '<!DOCTYPE html><title>404 Not Found</title><h1>Not Found</h1><p>The requested URL was not found on this server.</p>',
  };
}

/** Starts one twin on 127.0.0.1 (a free port), with its own state; MariaDB must be reachable. */
export async function startRealisticApp(
  twin: 'vulnerable' | 'safe',
  options: RealisticAppOptions = {},
): Promise<RealisticApp> {
  const isSafe = twin === 'safe';
  const db = await openAppDatabase();
  const state = createState(isSafe, db, { maxRequests: 500, maxAgeMs: 60_000, ...options.limits });
  const random = seededRandom((options.seed ?? 37) + (isSafe ? 1 : 0));
  const { min, max } = options.delayMs ?? { min: 10, max: 50 };
  const server = await serve('http', (req, res, url) => {
    const delayMs = min + random() * (max - min);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
    });
    req.on('end', () => {
      const cookies = parseCookies(req.headers.cookie);
      const session = state.sessions.get(cookies.get(SESSION_COOKIE) ?? '');
      const account = session === undefined ? undefined : state.accounts.get(session.username);
      const request: AppRequest = {
        req,
        method: req.method ?? 'GET',
        url,
        body: Buffer.concat(chunks),
        cookies,
        state,
        session,
        account,
        isSafe: isSafe || account?.level === 'impossible',
      };
      const started = performance.now();
      answer(request)
        .catch((err: unknown): AppResponse => ({
          status: 500,
          headers: { 'content-type': 'text/plain' },
          body: `Internal Server Error\n${String(err)}`,
        }))
        .then((response) => {
          const wait = Math.max(0, delayMs + (response.delayMs ?? 0) - (performance.now() - started));
          setTimeout(() => {
            if (res.destroyed) return;
            try {
              res
                .writeHead(response.status, { ...baseHeaders(isSafe), ...response.headers })
                .end(req.method === 'HEAD' ? undefined : (response.body ?? ''));
            } catch (err) {
              // A header value Node refuses (CR LF in a redirect target): answer 500 as a framework would.
              if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
            }
          }, wait).unref();
        });
    });
  });
  return {
    ...server,
    get connections() {
      return server.connections;
    },
    state,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/** Both twins, each with its own state. */
export async function startRealisticApps(
  options: RealisticAppOptions = {},
): Promise<{ vulnerable: RealisticApp; safe: RealisticApp; stop(): Promise<void> }> {
  const vulnerable = await startRealisticApp('vulnerable', options);
  const safe = await startRealisticApp('safe', options);
  return {
    vulnerable,
    safe,
    stop: async () => {
      await Promise.all([vulnerable.stop(), safe.stop()]);
    },
  };
}
