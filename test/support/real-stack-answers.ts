/**
 * How the real-stack site (real-stack-site.ts) answers: pages, and failures as real stacks show
 * them (Express, PHP 8.2, a production handler).
 */

export const html = { 'content-type': 'text/html; charset=utf-8' };
export const jsonType = { 'content-type': 'application/json; charset=utf-8' };

/** The escaping of the `escape-html` package Express's error handler uses. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** PHP's display of an error message with html_errors on: ENT_COMPAT (single quotes kept). */
export const phpEscape = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

/** A parameter as PHP shows it in a stack trace: quoted, cut at 15 characters (zend.exception_string_param_max_len). */
export const phpArgument = (text: string): string => `'${text.length > 15 ? `${text.slice(0, 15)}...` : text}'`;

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export const page = (title: string, body: string, status = 200): Answer => ({
  status,
  headers: html,
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`,
});

/** Express's default error handler in development: the stack, escaped, in a <pre>. */
export function expressErrorPage(err: Error): Answer {
  const stack = escapeHtml(err.stack ?? String(err))
    .replace(/\n/g, '<br>')
    .replace(/ {2}/g, ' &nbsp;');
  return {
    status: 500,
    headers: html,
    body: `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>${stack}</pre>\n</body>\n</html>\n`,
  };
}

/** An Express API's error middleware: `{ error: err.message, code: err.code }`. */
export function expressJsonError(err: Error & { code?: unknown }): Answer {
  return { status: 500, headers: jsonType, body: JSON.stringify({ error: err.message, code: err.code }) };
}

/**
 * The page PHP 8.2 prints for an uncaught exception with display_errors and html_errors on (its
 * documented format: `<br />\n<b>Fatal error</b>:  Uncaught CLASS: MESSAGE in FILE:LINE`, the
 * stack trace, `thrown in <b>FILE</b> on line <b>LINE</b><br />`). PHP is not installed here:
 * the framing is written as PHP writes it; the message is the database's own.
 */
export function phpUncaught(exceptionClass: string, message: string, file: string, line: number, call: string): Answer {
  return {
    status: 500,
    headers: html,
    body: `<br />\n<b>Fatal error</b>:  Uncaught ${exceptionClass}: ${phpEscape(message)} in ${file}:${line}\nStack trace:\n#0 ${file}(${line}): ${call}\n#1 {main}\n  thrown in <b>${file}</b> on line <b>${line}</b><br />\n`,
  };
}

/** A swallowed error: what a framework's production handler answers. */
export const swallowed = (): Answer => page('Error', '<p>Something went wrong. Please try again later.</p>', 500);

/** The request's form fields (urlencoded body). */
export const formOf = (body: string): URLSearchParams => new URLSearchParams(body);
