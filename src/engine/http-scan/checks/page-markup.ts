import { Parser } from 'htmlparser2';
import type { BodyEvidence } from './finding-builder.ts';
import type { CrawledPage } from '../check-kit/page-check.ts';

/** One input of a form as written (attribute values decoded). */
export interface MarkupInput {
  name: string;
  /** Lowercased `type`, `text` when absent. */
  type: string;
  value: string | undefined;
  /** Lowercased `autocomplete` attribute, undefined when absent. */
  autocomplete: string | undefined;
  isChecked: boolean;
}

/** A form with the types of its inputs (the crawler's FormLink keeps only names and sample values). */
export interface MarkupForm {
  /** The action as written (empty: the page itself). */
  action: string;
  /** Lowercased method, `get` when absent. */
  method: string;
  inputs: MarkupInput[];
}

/** A resource the page loads or a place it sends data, with the tag and attribute that name it. */
export interface Subresource {
  tag: string;
  attribute: string;
  /** The reference as written. */
  url: string;
}

/** What the configuration and authentication checks read from an HTML page. */
export interface PageMarkup {
  forms: MarkupForm[];
  /** Scripts, stylesheets, frames, objects and form actions (active content and submissions). */
  subresources: Subresource[];
  /** A password input anywhere, inside a form or not. */
  hasPasswordInput: boolean;
}

/** Attributes of elements that load active content: scripts, styles, frames and plug-ins. */
const ACTIVE_CONTENT: Record<string, string> = {
  script: 'src',
  iframe: 'src',
  frame: 'src',
  object: 'data',
  embed: 'src',
};

/** Parses the forms (with input types) and active subresources of an HTML page (htmlparser2, lenient like browsers). */
export function parsePageMarkup(html: string): PageMarkup {
  const markup: PageMarkup = { forms: [], subresources: [], hasPasswordInput: false };
  let form: MarkupForm | undefined;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const attribute = ACTIVE_CONTENT[name];
        const ref = attribute === undefined ? undefined : attribs[attribute]?.trim();
        if (attribute !== undefined && ref !== undefined && ref !== '')
          markup.subresources.push({ tag: name, attribute, url: ref });
        if (name === 'link' && /\bstylesheet\b/i.test(attribs['rel'] ?? '') && (attribs['href'] ?? '').trim() !== '') {
          markup.subresources.push({ tag: 'link', attribute: 'href', url: (attribs['href'] ?? '').trim() });
        }
        if (name === 'form') {
          form = {
            action: (attribs['action'] ?? '').trim(),
            method: (attribs['method'] ?? 'get').trim().toLowerCase(),
            inputs: [],
          };
          markup.forms.push(form);
          if (form.action !== '') markup.subresources.push({ tag: 'form', attribute: 'action', url: form.action });
        }
        if (name !== 'input') return;
        const type = (attribs['type'] ?? 'text').trim().toLowerCase();
        if (type === 'password') markup.hasPasswordInput = true;
        form?.inputs.push({
          name: attribs['name'] ?? '',
          type,
          value: attribs['value'],
          autocomplete: attribs['autocomplete']?.trim().toLowerCase(),
          isChecked: attribs['checked'] !== undefined,
        });
      },
      onclosetag(name) {
        if (name === 'form') form = undefined;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return markup;
}

const parsed = new WeakMap<CrawledPage, PageMarkup>();

/** The markup of a crawled HTML page, parsed once however many checks ask (empty for other content). */
export function markupOf(page: CrawledPage): PageMarkup {
  let markup = parsed.get(page);
  if (markup === undefined) {
    markup = page.isHtml
      ? parsePageMarkup(page.exchange.body)
      : { forms: [], subresources: [], hasPasswordInput: false };
    parsed.set(page, markup);
  }
  return markup;
}

const PASSWORD_TYPE = /type\s*=\s*["']?password\b/i;

/** A cheap test before parsing: the body may hold a password input. */
export function mayHavePasswordInput(page: CrawledPage): boolean {
  return page.isHtml && PASSWORD_TYPE.test(page.exchange.body);
}

/** The first `<input …>` tag of a body that is a password input and matches `also` (evidence of a parsed finding). */
export function passwordInputTag(body: string, also: RegExp = /(?:)/): BodyEvidence | undefined {
  for (const match of body.matchAll(/<input\b[^>]*>/gi)) {
    if (PASSWORD_TYPE.test(match[0]) && also.test(match[0])) return { value: match[0], offset: match.index };
  }
  return undefined;
}

/** The password inputs of a form. */
export function passwordInputs(form: MarkupForm): MarkupInput[] {
  return form.inputs.filter((input) => input.type === 'password');
}

/** True for a login form: exactly one password input (two or more is a sign-up or change form). */
export function isLoginForm(form: MarkupForm): boolean {
  return passwordInputs(form).length === 1;
}

/** Where a form submits: its action resolved against the page, without fragment; undefined when unusable. */
function formActionUrl(form: MarkupForm, page: URL): URL | undefined {
  try {
    const url = new URL(form.action === '' ? page.href : form.action, page);
    url.hash = '';
    return url;
  } catch {
    return undefined;
  }
}

/** A form with a password input, where it submits and its finding location. */
export interface PasswordForm {
  form: MarkupForm;
  action: URL;
  location: string;
}

/** The forms of a page that hold a password input and have a usable action (none without a parse when the body has no password input). */
export function passwordForms(page: CrawledPage): PasswordForm[] {
  if (!mayHavePasswordInput(page)) return [];
  const out: PasswordForm[] = [];
  for (const form of markupOf(page).forms) {
    const action = formActionUrl(form, page.url);
    if (passwordInputs(form).length > 0 && action !== undefined)
      out.push({ form, action, location: formLocation(page, action) });
  }
  return out;
}

/**
 * The finding location of a form: the page's origin and the action's path when the action is
 * on the page's host (so a login box on every page is one finding), else the page's own path.
 */
function formLocation(page: CrawledPage, action: URL): string {
  const path = action.hostname.toLowerCase() === page.url.hostname.toLowerCase() ? action.pathname : page.url.pathname;
  return `${page.originText}${path}`;
}

/** A text as body evidence; undefined when the body does not hold it verbatim (a decoded attribute may be written with entities). */
export function bodyEvidence(body: string, text: string): BodyEvidence | undefined {
  const offset = body.indexOf(text);
  return offset < 0 ? undefined : { value: text, offset };
}
