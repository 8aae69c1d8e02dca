import { classifyFailure, type HttpExchange } from '../check-kit/guarded-http-client.ts';
import type { CheckContext } from '../check-kit/page-check.ts';

/** A request sent as a visitor without the scan's cookies. */
export interface FreshVisitorRequest {
  method?: string;
  body?: { contentType: string; text: string };
  /** The Cookie header to send instead of the scan's ('' or absent: none). */
  cookie?: string;
}

/**
 * One request of a check as a fresh visitor: none of the scan's cookies (jar and profile) are
 * sent, only `cookie` when given, and cookies the answer sets are not kept, so the scan's own
 * session is untouched. Undefined when the scope excludes the URL or no answer came; an abort
 * is rethrown.
 */
export async function sendAsFreshVisitor(
  url: URL,
  context: CheckContext,
  request: FreshVisitorRequest = {},
): Promise<HttpExchange | undefined> {
  if (!context.session.scope.isUrlAllowed(url)) return undefined;
  try {
    return await context.session.send(request.method ?? 'GET', url, context.signal, {
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(request.cookie === undefined || request.cookie === ''
        ? {}
        : { extraHeaders: [{ name: 'cookie', value: request.cookie }] }),
      storeCookies: false,
      sendCookies: false,
    });
  } catch (err) {
    if (classifyFailure(err, 0, context.signal.aborted).kind === 'aborted') throw err;
    return undefined;
  }
}

/** The cookies an answer sets, as `name=value` pairs (attributes dropped, deletions left out). */
export function setCookiePairs(exchange: HttpExchange): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const header of exchange.headers) {
    if (header.name !== 'set-cookie') continue;
    const first = header.value.split(';')[0] ?? '';
    const index = first.indexOf('=');
    if (index <= 0) continue;
    const value = first.slice(index + 1).trim();
    if (value === '' || value.toLowerCase() === 'deleted') continue;
    pairs.push([first.slice(0, index).trim(), value]);
  }
  return pairs;
}
