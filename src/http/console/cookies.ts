import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The console's cookies. Over https (a https public URL, or a TLS connection) the session cookie
 * is `__Host-perimeter_session` (Secure, Path=/, no Domain: the browser refuses it from plain
 * http or another host); over plain http `perimeter_session`. Both are HttpOnly and SameSite=Lax:
 * no script reads them, and no other site's form or fetch carries them (a link from a mail or a
 * ticket, a top-level GET, does: it opens the finding).
 */

/** Whether the console is reached over https. */
export function isSecure(request: FastifyRequest, publicUrl: string | undefined): boolean {
  return publicUrl?.startsWith('https:') === true || request.protocol === 'https';
}

function names(secure: boolean) {
  return secure
    ? { session: '__Host-perimeter_session', form: '__Host-perimeter_form' }
    : { session: 'perimeter_session', form: 'perimeter_form' };
}

/** The cookies of a request, by name (the first of a name wins; values are not decoded). */
export function readCookies(request: FastifyRequest): Map<string, string> {
  const out = new Map<string, string>();
  const header = request.headers.cookie;
  if (typeof header !== 'string') return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

function cookie(name: string, value: string, secure: boolean, maxAgeSeconds?: number): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  return parts.join('; ');
}

function append(reply: FastifyReply, value: string): void {
  const current = reply.getHeader('set-cookie');
  const list = current === undefined ? [] : Array.isArray(current) ? current : [String(current)];
  reply.header('set-cookie', [...list, value]);
}

/** The session token the request carries, or ''. */
export function sessionToken(request: FastifyRequest, secure: boolean): string {
  return readCookies(request).get(names(secure).session) ?? '';
}

/** Sets the session cookie (a browser-session cookie: the server decides when it ends). */
export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  append(reply, cookie(names(secure).session, token, secure));
}

/** Clears the session cookie. */
export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  append(reply, cookie(names(secure).session, '', secure, 0));
}

/** The form token of a visitor without a session (sign-in, links): a double-submit cookie. */
export function formToken(request: FastifyRequest, secure: boolean): string {
  return readCookies(request).get(names(secure).form) ?? '';
}

/** Sets the form token cookie for pages shown before sign-in. */
export function setFormCookie(reply: FastifyReply, token: string, secure: boolean): void {
  append(reply, cookie(names(secure).form, token, secure));
}
