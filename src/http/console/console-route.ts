import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { roleAllows, type AccountPolicy, type ConsoleAction } from '../../core/accounts/account-policy.ts';
import { readSession, type SessionContext } from '../../core/accounts/session.service.ts';
import { isAppError } from '../../core/errors/app-error.ts';
import type { AppDeps } from '../deps.ts';
import { httpStatusOf } from '../error-status.ts';
import { formToken, isSecure, sessionToken } from './cookies.ts';
import type { Html } from './html.ts';
import { errorPage, notFoundPage } from './pages/error.page.ts';

/**
 * How a console page is defined and guarded. Every route says what it needs: `public` (sign-in,
 * links) or a ConsoleAction, which needs a live session (else the sign-in page, then back here)
 * of a member whose role allows it (else 403). Every POST carries a CSRF token: the session's
 * synchroniser token, or before sign-in the double-submit form cookie; and a cross-site Origin
 * is refused whatever the token.
 */

/** What a page handler gets. */
export interface ConsoleContext {
  request: FastifyRequest;
  reply: FastifyReply;
  deps: AppDeps;
  policy: AccountPolicy;
  /** Reached over https (cookies are Secure and __Host- prefixed). */
  secure: boolean;
  /** The live session: always set on routes that need one. */
  signedIn: SessionContext;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The form fields of a POST (urlencoded, or the text fields of multipart/form-data); empty for a GET. */
  form: URLSearchParams;
  /** The files of a multipart/form-data POST, by field name (only on routes with a bodyLimit). */
  files: Map<string, UploadedFile>;
}

/** A file a form sent (multipart/form-data). */
export interface UploadedFile {
  name: string;
  data: Buffer;
}

/**
 * What a page handler answers: a page (status 200 unless said), a redirect (303 after a POST), or
 * a small JSON document a console script polls (same origin, the session's team, no-store).
 */
export type ConsoleAnswer = { page: Html; status?: number } | { redirect: string } | { json: unknown; status?: number };

/** One console route. */
export interface ConsoleRoute {
  method: 'GET' | 'POST';
  path: string;
  access: 'public' | ConsoleAction;
  /**
   * Largest body in bytes (default: the app's 1 MB). A route that sets one also reads
   * multipart/form-data (file inputs); its page checks each file against the API's own limit.
   */
  bodyLimit?: number;
  handler(ctx: ConsoleContext): Promise<ConsoleAnswer>;
}

/** Security headers of every console answer (pages, redirects, errors). */
export const consoleCsp =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function setSecurityHeaders(reply: FastifyReply): void {
  reply
    .header('content-security-policy', consoleCsp)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('permissions-policy', 'camera=(), microphone=(), geolocation=()')
    .header('cache-control', 'no-store');
  if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'same-origin');
}

/** A path to return to after sign-in: same-origin paths only (never `//host` or a scheme). */
export function safeNext(raw: string | null | undefined): string {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return '/';
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f]/.test(raw) || raw.length > 2048) return '/';
  return raw;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** Whether a POST comes from a page of this console: its Origin (when sent) is this host. */
function isSameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

function formOf(request: FastifyRequest): URLSearchParams {
  if (request.method !== 'POST' || !Buffer.isBuffer(request.body)) return new URLSearchParams();
  const type = String(request.headers['content-type'] ?? '');
  if (!type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams();
  return new URLSearchParams(request.body.toString('utf8'));
}

/**
 * The fields and files of a multipart/form-data POST, parsed by the platform's own parser (the
 * Fetch API's FormData, from undici). A malformed body reads as an empty form, which then fails
 * the CSRF check like any form without its token.
 */
async function multipartOf(
  request: FastifyRequest,
): Promise<{ form: URLSearchParams; files: Map<string, UploadedFile> }> {
  const form = new URLSearchParams();
  const files = new Map<string, UploadedFile>();
  const type = String(request.headers['content-type'] ?? '');
  if (request.method !== 'POST' || !Buffer.isBuffer(request.body) || !type.startsWith('multipart/form-data'))
    return { form: formOf(request), files };
  try {
    const data = await new Response(new Uint8Array(request.body), { headers: { 'content-type': type } }).formData();
    for (const [name, value] of data.entries()) {
      if (typeof value === 'string') form.append(name, value);
      else files.set(name, { name: value.name, data: Buffer.from(await value.arrayBuffer()) });
    }
  } catch {
    return { form: new URLSearchParams(), files: new Map() };
  }
  return { form, files };
}

async function send(ctx: Pick<ConsoleContext, 'reply' | 'request'>, answer: ConsoleAnswer): Promise<FastifyReply> {
  setSecurityHeaders(ctx.reply);
  if ('redirect' in answer)
    return ctx.reply
      .code(ctx.request.method === 'POST' ? 303 : 302)
      .header('location', answer.redirect)
      .send();
  if ('json' in answer)
    return ctx.reply
      .code(answer.status ?? 200)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(answer.json));
  return ctx.reply
    .code(answer.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(answer.page.text);
}

/**
 * The page of a failure: a rule's error (the catalogue's message, its HTTP status; a record that
 * does not exist is the one not-found page) or, for anything else, 500 naming the request id.
 */
function failurePage(request: FastifyRequest, err: unknown, signedIn: SessionContext | undefined): ConsoleAnswer {
  if (isAppError(err)) {
    const status = httpStatusOf[err.code] ?? 400;
    if (status === 404) return { status, page: notFoundPage({ signedIn }) };
    return { status, page: errorPage({ title: 'Not done', signedIn }, err.message) };
  }
  request.log.error({ err }, 'console page failed');
  return {
    status: 500,
    page: errorPage(
      { title: 'Something went wrong', signedIn },
      `The server could not answer this page (request id ${request.id}). Try again; if it keeps failing, tell your operator the request id.`,
    ),
  };
}

/** Registers console routes on the app with their guards. */
export function registerConsoleRoutes(
  app: FastifyInstance,
  deps: AppDeps,
  policy: AccountPolicy,
  routes: ConsoleRoute[],
): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.path,
      ...(route.bodyLimit === undefined ? {} : { bodyLimit: route.bodyLimit }),
      // A body past the limit is refused before any handler: answered as a page, not the API's JSON.
      errorHandler: async (err: { code?: string; statusCode?: number }, request, reply) => {
        if (err.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw err;
        const limit = route.bodyLimit ?? app.initialConfig.bodyLimit ?? 0;
        const message = `Request body too large for this operation (at most ${limit} bytes). Go back and choose a smaller file.`;
        return send({ request, reply }, { status: 413, page: errorPage({ title: 'Too large' }, message) });
      },
      handler: async (request, reply) => {
        const secure = isSecure(request, deps.config.publicUrl);
        const query = new URLSearchParams(request.url.split('?')[1] ?? '');
        const params = request.params as Record<string, string>;
        let signedIn: SessionContext | undefined;
        if (route.access !== 'public') {
          signedIn = await readSession(deps.store, sessionToken(request, secure), policy, new Date());
          if (signedIn === undefined || signedIn.session.stage !== 'signed_in') {
            const next = request.method === 'GET' ? request.url : '/';
            return send({ request, reply }, { redirect: `/signin?next=${encodeURIComponent(next)}` });
          }
        }
        // An upload is parsed only for a live session (or a public form): nobody else spends its CPU.
        const { form, files } =
          route.bodyLimit === undefined ? { form: formOf(request), files: new Map() } : await multipartOf(request);
        const base = { request, reply, deps, policy, secure, query, form, files };
        if (request.method === 'POST') {
          const expected = signedIn?.session.csrfToken ?? formToken(request, secure);
          if (!isSameOrigin(request) || !sameToken(form.get('_csrf') ?? '', expected))
            return send(base, {
              status: 403,
              page: errorPage(
                { title: 'Form expired', signedIn },
                'This form is no longer valid (it came from another site, or the page is too old). Reload the page and try again.',
              ),
            });
        }
        if (signedIn !== undefined && route.access !== 'public' && !roleAllows(signedIn.member.role, route.access))
          return send(base, {
            status: 403,
            page: errorPage(
              { title: 'Not allowed', signedIn },
              `Your role (${signedIn.member.role}) does not allow this. Ask an Admin of ${signedIn.team.name}.`,
            ),
          });
        try {
          const answer = await route.handler({ ...base, params, signedIn: signedIn as SessionContext });
          return await send(base, answer);
        } catch (err) {
          return send(base, failurePage(request, err, signedIn));
        }
      },
    });
  }
}
