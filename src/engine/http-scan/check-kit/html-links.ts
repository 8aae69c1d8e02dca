import { Parser } from 'htmlparser2';

/** A form and the fields it would send, inputs filled with plausible values. */
export interface FormLink {
  action: string;
  method: string;
  fields: Array<[name: string, value: string]>;
}

/** What a page offers the crawler. */
export interface PageLinks {
  /** Raw references, in document order: a href, script src, link href, iframe/frame src. */
  links: string[];
  forms: FormLink[];
  /** The text of the first <title>, trimmed. */
  title: string;
  /** The code of inline <script> elements (JavaScript types only), where routes hide. */
  scripts: string[];
}

const LINK_ATTRIBUTES: Record<string, string> = {
  a: 'href',
  area: 'href',
  link: 'href',
  script: 'src',
  iframe: 'src',
  frame: 'src',
};

/** A plausible value for an input a user would have typed into. */
function sampleValue(type: string, name: string): string {
  switch (type) {
    case 'email':
      return 'scanner@example.com';
    case 'number':
    case 'range':
      return '1';
    case 'url':
      return 'https://example.com/';
    case 'tel':
      return '5550100';
    case 'date':
      return '2024-01-01';
    default:
      return /mail/i.test(name) ? 'scanner@example.com' : 'perimeter';
  }
}

/** True for a <script type> that holds JavaScript (absent, a JavaScript MIME type or `module`). */
function isJavaScriptScriptType(type: string | undefined): boolean {
  if (type === undefined) return true;
  const t = type.trim().toLowerCase();
  return t === '' || t === 'module' || /^(?:text|application)\/(?:x-)?(?:java|ecma)script\b/.test(t);
}

/** Parses HTML and collects the references a crawler follows (htmlparser2, lenient like browsers). */
export function extractPageLinks(html: string): PageLinks {
  const result: PageLinks = { links: [], forms: [], title: '', scripts: [] };
  let script: string | undefined;
  let form: FormLink | undefined;
  let select: { name: string; value: string | undefined } | undefined;
  let textarea: string | undefined;
  let isInTitle = false;
  let hasTitle = false;

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const attribute = LINK_ATTRIBUTES[name];
        const ref = attribute === undefined ? undefined : attribs[attribute];
        if (ref !== undefined && ref.trim() !== '') result.links.push(ref.trim());
        if (name === 'title' && !hasTitle) isInTitle = true;
        if (name === 'script' && attribs['src'] === undefined && isJavaScriptScriptType(attribs['type'])) script = '';
        if (name === 'form') {
          form = {
            action: (attribs['action'] ?? '').trim(),
            method: (attribs['method'] ?? 'get').toLowerCase(),
            fields: [],
          };
          result.forms.push(form);
        }
        if (form === undefined) return;
        const field = attribs['name'];
        if (name === 'input' && field !== undefined && field !== '') {
          const type = (attribs['type'] ?? 'text').toLowerCase();
          if (['submit', 'button', 'image', 'reset', 'file'].includes(type)) return;
          if ((type === 'checkbox' || type === 'radio') && form.fields.some(([n]) => n === field)) return;
          const given = attribs['value'];
          form.fields.push([field, given !== undefined && given !== '' ? given : sampleValue(type, field)]);
        } else if (name === 'select' && field !== undefined && field !== '') {
          select = { name: field, value: undefined };
        } else if (name === 'option' && select !== undefined && select.value === undefined) {
          select.value = attribs['value'] ?? '';
        } else if (name === 'textarea' && field !== undefined && field !== '') {
          textarea = field;
        }
      },
      ontext(text) {
        if (isInTitle) result.title += text;
        if (script !== undefined) script += text;
      },
      onclosetag(name) {
        if (name === 'script' && script !== undefined) {
          if (script.trim() !== '') result.scripts.push(script);
          script = undefined;
        }
        if (name === 'title' && isInTitle) {
          isInTitle = false;
          hasTitle = true;
        }
        if (name === 'select' && select !== undefined) {
          form?.fields.push([select.name, select.value ?? 'perimeter']);
          select = undefined;
        }
        if (name === 'textarea' && textarea !== undefined) {
          form?.fields.push([textarea, 'perimeter']);
          textarea = undefined;
        }
        if (name === 'form') form = undefined;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  result.title = result.title.replace(/\s+/g, ' ').trim();
  return result;
}

/** A form as a request: GET puts the fields in the query, POST in an urlencoded body; undefined for other methods and unusable actions. */
export function formSubmission(
  form: FormLink,
  page: URL,
): { method: 'GET' | 'POST'; url: URL; body?: string } | undefined {
  if (form.method === 'get') {
    const url = formSubmissionUrl(form, page);
    return url === undefined ? undefined : { method: 'GET', url };
  }
  if (form.method !== 'post') return undefined;
  let url: URL;
  try {
    url = new URL(form.action === '' ? page.href : form.action, page);
  } catch {
    return undefined;
  }
  url.hash = '';
  return { method: 'POST', url, body: new URLSearchParams(form.fields).toString() };
}

/** The URL a GET form submits to, or undefined for other methods and unusable actions. */
export function formSubmissionUrl(form: FormLink, page: URL): URL | undefined {
  if (form.method !== 'get') return undefined;
  let url: URL;
  try {
    url = new URL(form.action === '' ? page.href : form.action, page);
  } catch {
    return undefined;
  }
  url.search = new URLSearchParams(form.fields).toString();
  url.hash = '';
  return url;
}
