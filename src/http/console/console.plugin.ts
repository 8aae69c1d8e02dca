import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountPolicyOf } from '../../core/accounts/account-policy.ts';
import { readSession } from '../../core/accounts/session.service.ts';
import type { AppDeps } from '../deps.ts';
import { isSecure, sessionToken } from './cookies.ts';
import { registerConsoleRoutes, setSecurityHeaders, type ConsoleRoute } from './console-route.ts';
import { accountLinkRoutes } from './pages/account-link.page.ts';
import { accountRoutes } from './pages/account.page.ts';
import { assetRoutes } from './pages/assets.page.ts';
import { notFoundPage } from './pages/error.page.ts';
import { findingRoutes } from './pages/findings.page.ts';
import { scanRoutes } from './pages/scans.page.ts';
import { overviewRoutes } from './pages/overview.page.ts';
import { signInRoutes } from './pages/sign-in.page.ts';
import { ssoRoutes } from './pages/sso.page.ts';
import { teamEventRoutes } from './pages/team-events.page.ts';
import { teamJiraRoutes } from './pages/team-jira.page.ts';
import { teamSsoRoutes } from './pages/team-sso.page.ts';
import { teamWebhookRoutes } from './pages/team-webhooks.page.ts';
import { surfaceRoutes } from './pages/surface.page.ts';
import { teamRoutes } from './pages/team.page.ts';
import { zoneRoutes } from './pages/zones.page.ts';
import { sendStatic } from './static-files.ts';

/**
 * The web console: another face of the core, beside v2 and v3, in the same process. Its pages are
 * rendered on the server (html.ts), its forms post back (POST, then a redirect), and its own small
 * CSS and script are served from here; it calls the same core services as the APIs, with the
 * team of the signed-in member. See docs/console.md.
 */

const rootRoute: ConsoleRoute = {
  method: 'GET',
  path: '/',
  access: 'read',
  handler: async () => ({ redirect: '/overview' }),
};

/** Registers every console page and its static files. */
export function registerConsole(app: FastifyInstance, deps: AppDeps): void {
  const policy = accountPolicyOf(deps.config);
  app.get('/console/static/*', async (request, reply) => {
    const sent = sendStatic(request, reply);
    if (sent !== undefined) return sent;
    return answerConsoleNotFound(deps, request, reply);
  });
  registerConsoleRoutes(app, deps, policy, [
    rootRoute,
    ...signInRoutes,
    ...ssoRoutes,
    ...teamSsoRoutes,
    ...accountLinkRoutes,
    ...accountRoutes,
    ...overviewRoutes,
    ...findingRoutes,
    ...assetRoutes,
    ...scanRoutes,
    ...surfaceRoutes,
    ...zoneRoutes,
    ...teamRoutes,
    ...teamWebhookRoutes,
    ...teamJiraRoutes,
    ...teamEventRoutes,
  ]);
}

/**
 * The console's answer to a path nothing serves (outside /rest): the not-found page, with the
 * header of the signed-in member when the request carries a live session.
 */
export async function answerConsoleNotFound(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const secure = isSecure(request, deps.config.publicUrl);
  const signedIn = await readSession(
    deps.store,
    sessionToken(request, secure),
    accountPolicyOf(deps.config),
    new Date(),
  );
  setSecurityHeaders(reply);
  const live = signedIn?.session.stage === 'signed_in' ? signedIn : undefined;
  return reply
    .code(404)
    .type('text/html; charset=utf-8')
    .send(notFoundPage(live === undefined ? {} : { signedIn: live }).text);
}
