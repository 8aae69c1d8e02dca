import type { FormLink, FormSubmission } from './check-kit/html-links.ts';
import { jsonLeaves } from './check-kit/injection.ts';
import { parseMultipart } from './check-kit/multipart.ts';

/** Forms the crawler does not submit: they delete, reset or unsubscribe something. */
const DESTRUCTIVE_FORM = /\b(?:delete|remove|destroy|drop|reset|unsubscribe|deactivate)\b/i;
/** Submit buttons (name, value or formaction) the crawler does not click: besides DESTRUCTIVE_FORM's words, those that clear or purge data. */
const DESTRUCTIVE_BUTTON = /\b(?:delete|remove|destroy|drop|reset|unsubscribe|deactivate|clear|purge|wipe|erase)\b/i;

/** How the crawler sends the body of a JSON API call found in a script. */
const jsonContentType = 'application/json';

/** True for a path that says delete, reset or unsubscribe (a JSON API call the crawler does not make). */
export function isDestructivePath(pathname: string): boolean {
  return DESTRUCTIVE_FORM.test(pathname);
}

/**
 * True for a form variant the crawler does not submit: its button (name, value, label; camelCase
 * and snake_case words apart, so `btnClear` says clear) or action says delete, reset, clear …,
 * or a POST form's action or field names say delete, reset or unsubscribe.
 */
export function isDestructiveSubmission(form: FormLink, submission: FormSubmission): boolean {
  const button = [...submission.buttonFields.flat(), submission.buttonLabel]
    .join(' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ');
  if (DESTRUCTIVE_BUTTON.test(`${submission.url.pathname} ${button}`)) return true;
  return (
    submission.method === 'POST' &&
    DESTRUCTIVE_FORM.test(`${form.action} ${form.fields.map(([name]) => name).join(' ')}`)
  );
}

/** Names of the fields of a body (urlencoded or multipart fields, or JSON leaves by key path), sorted and distinct: a form's or call's identity. */
export function bodyFieldNames(body: string, contentType: string | undefined): string {
  const multipart = contentType === undefined ? undefined : parseMultipart(body, contentType);
  if (multipart !== undefined)
    return `multipart:${[...new Set([...multipart.fields.map(([name]) => name), ...multipart.files.map((f) => f.field)])].sort().join('&')}`;
  if (contentType === jsonContentType) {
    try {
      return `json:${[...new Set(jsonLeaves(JSON.parse(body)).map((leaf) => leaf.name))].sort().join('&')}`;
    } catch {
      return 'json:';
    }
  }
  return [...new Set(new URLSearchParams(body).keys())].sort().join('&');
}
