import type { HttpHeader } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { classifyFailure, type HttpExchange } from '../check-kit/guarded-http-client.ts';
import type { CheckContext } from '../check-kit/page-check.ts';

/** What a check request may add to a plain GET. */
export interface CheckRequest {
  method?: string;
  body?: { contentType: string; text: string };
  /** Request headers besides the session's (same-named session headers are replaced). */
  headers?: HttpHeader[];
  /** False: cookies the answer sets stay out of the scan's jar (login attempts). */
  storeCookies?: boolean;
}

/**
 * One request of a check through the scan's session: undefined when the scope excludes the URL
 * or no answer came (a request that fails is simply not a finding); an abort is rethrown.
 */
export async function sendCheckRequest(
  url: URL,
  context: CheckContext,
  request: CheckRequest = {},
): Promise<HttpExchange | undefined> {
  if (!context.session.scope.isUrlAllowed(url)) return undefined;
  try {
    const { body, headers, storeCookies } = request;
    return await context.session.send(request.method ?? 'GET', url, context.signal, {
      ...(body === undefined ? {} : { body }),
      ...(headers === undefined ? {} : { extraHeaders: headers }),
      ...(storeCookies === undefined ? {} : { storeCookies }),
    });
  } catch (err) {
    if (classifyFailure(err, 0, context.signal.aborted).kind === 'aborted') throw err;
    return undefined;
  }
}
