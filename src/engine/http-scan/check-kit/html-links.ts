import { Parser } from 'htmlparser2';
import { harmlessFile, multipartBody } from './multipart.ts';

/**
 * A submit button of a form (`<input type=submit|image>`, `<button>` with no type or
 * type=submit): what it adds to the form's entry list when clicked, and its overrides of the
 * form's action, method and encoding.
 */
export interface SubmitButton {
  /**
   * The entries the button adds when clicked: `[name, value]` for a named submit button (an
   * `<input>`'s value defaults to `Submit`, a `<button>`'s to ''), `name.x`/`name.y` for an image
   * button (`x`/`y` without a name), none for an unnamed submit button.
   */
  fields: Array<[name: string, value: string]>;
  /** What the user reads on it: an `<input>`'s value (or `alt` for an image), a `<button>`'s text, whitespace collapsed. */
  label: string;
  /** The button's `formaction`, when given (resolved against the page like the form's action). */
  formAction?: string;
  /** The button's `formmethod`, lower-case, when given. */
  formMethod?: string;
  /** The button's `formenctype`, lower-case, when given. */
  formEnctype?: string;
}

/** A file input of a form: its name and its `accept` attribute ('' when absent). */
export interface FileField {
  name: string;
  accept: string;
}

/**
 * A form and what it would send, as a browser builds the entry list: the successful controls
 * (text inputs filled with plausible values, hidden inputs as given, the selected options, the
 * checked boxes and radios, textareas; disabled controls left out), its file inputs, and its
 * enabled submit buttons in document order (the first is the default, pressed by Enter).
 */
export interface FormLink {
  action: string;
  /** The method attribute, lower-case (`get` when absent). */
  method: string;
  /** The enctype attribute, lower-case (`application/x-www-form-urlencoded` when absent). */
  enctype: string;
  /** The successful controls except submit buttons and file inputs, in document order. */
  fields: Array<[name: string, value: string]>;
  /** The enabled, named file inputs. */
  fileFields: FileField[];
  /** The enabled submit buttons, in document order (controls with `form="id"` included). */
  buttons: SubmitButton[];
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

/** A form being parsed: its link, and its radio groups (the index of their entry, and whether a checked radio set it). */
interface FormState {
  link: FormLink;
  radios: Map<string, { index: number; isChecked: boolean }>;
  /** False for a placeholder made for `form="id"` controls met before their form. */
  isOpened: boolean;
}

/** An option of a select being parsed. */
interface OptionState {
  value: string | undefined;
  text: string;
  isSelected: boolean;
  isDisabled: boolean;
}

/** A select being parsed. */
interface SelectState {
  owner: FormState | undefined;
  name: string;
  isMultiple: boolean;
  options: OptionState[];
}

/** A textarea being parsed. */
interface TextareaState {
  owner: FormState | undefined;
  name: string;
  text: string;
}

const urlencodedType = 'application/x-www-form-urlencoded';

/** The input types a browser knows; any other type attribute is a text input. */
const INPUT_TYPES = new Set([
  'hidden',
  'text',
  'search',
  'tel',
  'url',
  'email',
  'password',
  'date',
  'month',
  'week',
  'time',
  'datetime-local',
  'number',
  'range',
  'color',
  'checkbox',
  'radio',
  'file',
  'submit',
  'image',
  'reset',
  'button',
]);

/** A new form from its attributes. */
function newForm(attribs: Record<string, string>): FormLink {
  return {
    action: (attribs['action'] ?? '').trim(),
    method: (attribs['method'] ?? 'get').trim().toLowerCase(),
    enctype: (attribs['enctype'] ?? urlencodedType).trim().toLowerCase(),
    fields: [],
    fileFields: [],
    buttons: [],
  };
}

/** The submit button of an `<input type=submit|image>` or a submit `<button>`, with its overrides. */
function submitButton(tag: string, type: string, attribs: Record<string, string>): SubmitButton {
  const name = attribs['name'] ?? '';
  let fields: Array<[string, string]>;
  if (type === 'image') {
    fields =
      name === ''
        ? [
            ['x', '1'],
            ['y', '1'],
          ]
        : [
            [`${name}.x`, '1'],
            [`${name}.y`, '1'],
          ];
  } else {
    fields = name === '' ? [] : [[name, attribs['value'] ?? (tag === 'input' ? 'Submit' : '')]];
  }
  const label = tag === 'input' ? (type === 'image' ? (attribs['alt'] ?? '') : (attribs['value'] ?? 'Submit')) : '';
  const button: SubmitButton = { fields, label };
  if (attribs['formaction'] !== undefined) button.formAction = attribs['formaction'].trim();
  if (attribs['formmethod'] !== undefined) button.formMethod = attribs['formmethod'].trim().toLowerCase();
  if (attribs['formenctype'] !== undefined) button.formEnctype = attribs['formenctype'].trim().toLowerCase();
  return button;
}

/** Adds an input's entry to its form, by type (submit and image inputs become buttons, files file fields). */
function addInput(owner: FormState, attribs: Record<string, string>): void {
  const given = (attribs['type'] ?? 'text').trim().toLowerCase();
  const type = INPUT_TYPES.has(given) ? given : 'text';
  const form = owner.link;
  if (type === 'submit' || type === 'image') {
    form.buttons.push(submitButton('input', type, attribs));
    return;
  }
  const name = attribs['name'];
  if (name === undefined || name === '' || type === 'reset' || type === 'button') return;
  const value = attribs['value'];
  if (type === 'file') {
    form.fileFields.push({ name, accept: attribs['accept'] ?? '' });
  } else if (type === 'checkbox') {
    // An unchecked box sends nothing, as in a browser.
    if (attribs['checked'] !== undefined) form.fields.push([name, value ?? 'on']);
  } else if (type === 'radio') {
    // The checked radio of the group; with none checked, the first (a user picks one).
    const isChecked = attribs['checked'] !== undefined;
    const group = owner.radios.get(name);
    if (group === undefined) {
      owner.radios.set(name, { index: form.fields.length, isChecked });
      form.fields.push([name, value ?? 'on']);
    } else if (isChecked) {
      form.fields[group.index] = [name, value ?? 'on'];
      group.isChecked = true;
    }
  } else if (type === 'hidden') {
    form.fields.push([name, value ?? '']);
  } else {
    form.fields.push([name, value !== undefined && value !== '' ? value : sampleValue(type, name)]);
  }
}

/** The entries of a closed select: the selected options (the first enabled one when none is, for a single select). */
function selectEntries(select: SelectState): Array<[string, string]> {
  const valueOf = (option: OptionState): string => option.value ?? option.text.replace(/\s+/g, ' ').trim();
  if (select.options.length === 0) return [[select.name, 'perimeter']];
  if (select.isMultiple)
    return select.options.filter((o) => o.isSelected && !o.isDisabled).map((o) => [select.name, valueOf(o)]);
  const selected = select.options.filter((o) => o.isSelected).at(-1) ?? select.options.find((o) => !o.isDisabled);
  return selected === undefined || selected.isDisabled ? [] : [[select.name, valueOf(selected)]];
}

/**
 * Collects the forms of a document as the parser walks it: their controls (with the owner a
 * `form` attribute names, before or after the form), selects and their options, textareas and
 * button labels, disabled fieldsets.
 */
class FormCollector {
  readonly forms: FormLink[] = [];
  private form: FormState | undefined;
  /** Forms by id (the first of an id), and placeholders for controls naming a form not met yet. */
  private readonly formsById = new Map<string, FormState>();
  /** Forms whose `form="id"` controls came first: those controls, added after the form's own. */
  private readonly early = new Map<FormState, FormLink>();
  private select: SelectState | undefined;
  private option: OptionState | undefined;
  private textarea: TextareaState | undefined;
  /** A `<button>` whose text (its label) is being read. */
  private button: SubmitButton | undefined;
  /** Whether each open fieldset is disabled (its controls are, but for those of its first legend: not modelled). */
  private readonly fieldsets: boolean[] = [];

  openTag(name: string, attribs: Record<string, string>): void {
    if (name === 'form') this.openForm(attribs);
    else if (name === 'fieldset') this.fieldsets.push(attribs['disabled'] !== undefined);
    else if (name === 'option' && this.select !== undefined) {
      this.option = {
        value: attribs['value'],
        text: '',
        isSelected: attribs['selected'] !== undefined,
        isDisabled: attribs['disabled'] !== undefined,
      };
      this.select.options.push(this.option);
    } else if (name === 'input' || name === 'select' || name === 'textarea' || name === 'button')
      this.openControl(name, attribs);
  }

  text(text: string): void {
    if (this.option !== undefined) this.option.text += text;
    if (this.textarea !== undefined) this.textarea.text += text;
    if (this.button !== undefined) this.button.label += text;
  }

  closeTag(name: string): void {
    if (name === 'option') this.option = undefined;
    if (name === 'button' && this.button !== undefined) {
      this.button.label = this.button.label.replace(/\s+/g, ' ').trim();
      this.button = undefined;
    }
    if (name === 'fieldset') this.fieldsets.pop();
    if (name === 'select' && this.select !== undefined) {
      this.select.owner?.link.fields.push(...selectEntries(this.select));
      this.select = undefined;
      this.option = undefined;
    }
    if (name === 'textarea' && this.textarea !== undefined) {
      // A newline right after <textarea> is not part of its value.
      const { owner, name: field } = this.textarea;
      const text = this.textarea.text.replace(/^\r?\n/, '');
      owner?.link.fields.push([field, text !== '' ? text : sampleValue('text', field)]);
      this.textarea = undefined;
    }
    if (name === 'form') this.form = undefined;
  }

  /** The forms once the document is parsed: controls met before their form join it. */
  finish(): FormLink[] {
    for (const [state, early] of this.early) {
      state.link.fields.push(...early.fields);
      state.link.fileFields.push(...early.fileFields);
      state.link.buttons.push(...early.buttons);
    }
    return this.forms;
  }

  private openForm(attribs: Record<string, string>): void {
    const id = attribs['id'];
    const placeholder = id === undefined ? undefined : this.formsById.get(id);
    if (placeholder !== undefined && !placeholder.isOpened) {
      this.early.set(placeholder, placeholder.link);
      placeholder.link = newForm(attribs);
      placeholder.radios = new Map();
      placeholder.isOpened = true;
      this.form = placeholder;
    } else {
      this.form = { link: newForm(attribs), radios: new Map(), isOpened: true };
      if (id !== undefined && !this.formsById.has(id)) this.formsById.set(id, this.form);
    }
    this.forms.push(this.form.link);
  }

  private openControl(name: string, attribs: Record<string, string>): void {
    const owner = this.ownerOf(attribs);
    if (owner === undefined || attribs['disabled'] !== undefined || this.fieldsets.includes(true)) return;
    const field = attribs['name'];
    if (name === 'input') {
      addInput(owner, attribs);
    } else if (name === 'button') {
      const type = (attribs['type'] ?? 'submit').trim().toLowerCase();
      if (type === 'button' || type === 'reset') return;
      this.button = submitButton('button', 'submit', attribs);
      owner.link.buttons.push(this.button);
    } else if (field === undefined || field === '') {
      return;
    } else if (name === 'select') {
      this.select = { owner, name: field, isMultiple: attribs['multiple'] !== undefined, options: [] };
    } else {
      this.textarea = { owner, name: field, text: '' };
    }
  }

  /** The form a control belongs to: the one its `form` attribute names, else the enclosing one. */
  private ownerOf(attribs: Record<string, string>): FormState | undefined {
    const id = attribs['form'];
    if (id === undefined) return this.form;
    let owner = this.formsById.get(id);
    if (owner === undefined) {
      owner = { link: newForm({}), radios: new Map(), isOpened: false };
      this.formsById.set(id, owner);
    }
    return owner;
  }
}

/** Parses HTML and collects the references a crawler follows (htmlparser2, lenient like browsers). */
export function extractPageLinks(html: string): PageLinks {
  const result: PageLinks = { links: [], forms: [], title: '', scripts: [] };
  const forms = new FormCollector();
  let script: string | undefined;
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
        forms.openTag(name, attribs);
      },
      ontext(text) {
        if (isInTitle) result.title += text;
        if (script !== undefined) script += text;
        forms.text(text);
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
        forms.closeTag(name);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  result.forms = forms.finish();
  result.title = result.title.replace(/\s+/g, ' ').trim();
  return result;
}

/** One way of submitting a form: the request a browser sends when a given submit button is clicked. */
export interface FormSubmission {
  method: 'GET' | 'POST';
  url: URL;
  /** The body of a POST: urlencoded, or multipart when `contentType` says so. */
  body?: string;
  /** The Content-Type of a multipart body (with its boundary); absent for an urlencoded one. */
  contentType?: string;
  /** The entries the clicked button added (none when the form has no named button). */
  buttonFields: Array<[name: string, value: string]>;
  /** The clicked button's label ('' without a button). */
  buttonLabel: string;
}

/** Where a form submitted with `button` (or none) goes: its action (or the button's formaction) on the page, without fragment; undefined unless http(s). */
export function formActionUrl(form: FormLink, button: SubmitButton | undefined, page: URL): URL | undefined {
  const action = button?.formAction ?? form.action;
  let url: URL;
  try {
    url = new URL(action === '' ? page.href : action, page);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  return url;
}

/** The request of a form submitted with `button` (or none); undefined for methods other than GET and POST and unusable actions. */
function submissionOf(form: FormLink, button: SubmitButton | undefined, page: URL): FormSubmission | undefined {
  const method = button?.formMethod ?? form.method;
  if (method !== 'get' && method !== 'post' && method !== '') return undefined;
  const url = formActionUrl(form, button, page);
  if (url === undefined) return undefined;
  const buttonFields = button?.fields ?? [];
  const buttonLabel = button?.label ?? '';
  const entries = [...form.fields, ...buttonFields];
  const files = form.fileFields.map((f) => harmlessFile(f.name));
  if (method !== 'post') {
    // An urlencoded entry list: a file input sends its file's name.
    url.search = new URLSearchParams([
      ...entries,
      ...files.map((f): [string, string] => [f.field, f.filename]),
    ]).toString();
    return { method: 'GET', url, buttonFields, buttonLabel };
  }
  const enctype = button?.formEnctype ?? form.enctype;
  if (enctype === 'multipart/form-data') {
    const { contentType, text } = multipartBody(entries, files);
    return { method: 'POST', url, body: text, contentType, buttonFields, buttonLabel };
  }
  const body = new URLSearchParams([...entries, ...files.map((f): [string, string] => [f.field, f.filename])]);
  return { method: 'POST', url, body: body.toString(), buttonFields, buttonLabel };
}

/** Variants of one form at most: a table of rows with an `Edit` button each is not a page of forms. */
export const maxFormVariants = 10;

/**
 * Every way of submitting a form: one submission per distinct enabled submit button (its
 * name=value sent, its formaction/formmethod/formenctype applied; the first maxFormVariants
 * buttons), or one without a button when the form has none. GET puts the entries in the query; POST in an urlencoded body, or a
 * multipart one (file inputs carrying a harmless text file) when the encoding says so.
 */
export function formSubmissions(form: FormLink, page: URL): FormSubmission[] {
  const buttons: Array<SubmitButton | undefined> = form.buttons.length === 0 ? [undefined] : form.buttons;
  const seen = new Set<string>();
  const out: FormSubmission[] = [];
  for (const button of buttons) {
    if (out.length >= maxFormVariants) break;
    // Buttons that differ only by their label send the same request.
    const key = JSON.stringify(button === undefined ? null : { ...button, label: '' });
    if (seen.has(key)) continue;
    seen.add(key);
    const submission = submissionOf(form, button, page);
    if (submission !== undefined) out.push(submission);
  }
  return out;
}

/**
 * The default submission of a form: with its first submit button, the one pressing Enter
 * clicks (see formSubmissions); undefined for other methods and unusable actions.
 */
export function formSubmission(form: FormLink, page: URL): FormSubmission | undefined {
  return submissionOf(form, form.buttons[0], page);
}

/** The URL the default submission of a GET form goes to, or undefined when it is not a GET. */
export function formSubmissionUrl(form: FormLink, page: URL): URL | undefined {
  const submission = formSubmission(form, page);
  return submission?.method === 'GET' ? submission.url : undefined;
}
