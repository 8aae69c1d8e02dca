import { Parser } from 'htmlparser2';
import type { ProfileLogin } from '../../../core/scans/scan-profile-settings.ts';
import { extractPageLinks, type FormLink } from './html-links.ts';

/**
 * The login form of a page and its filling for the profile's `login` extension (see
 * login-session.ts): which form it is, and what the browser would send with the given values.
 */

/** For each form of a page, in document order: whether it holds a password input. */
export function formsWithPassword(html: string): boolean[] {
  const out: boolean[] = [];
  let isInForm = false;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'form') {
          out.push(false);
          isInForm = true;
        } else if (isInForm && name === 'input' && (attribs['type'] ?? '').toLowerCase() === 'password') {
          out[out.length - 1] = true;
        }
      },
      onclosetag(name) {
        if (name === 'form') isInForm = false;
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return out;
}

/** The names a form sends: its fields' and its buttons'. */
export function formNames(form: FormLink): Set<string> {
  return new Set([
    ...form.fields.map(([name]) => name),
    ...form.buttons.flatMap((b) => b.fields.map(([name]) => name)),
  ]);
}

/**
 * The login form of a page: the one holding most of the given field names, a form with a
 * password input winning a tie; undefined when no form holds a given name or a password input.
 */
export function findLoginForm(html: string, fieldNames: readonly string[]): FormLink | undefined {
  const forms = extractPageLinks(html).forms;
  const password = formsWithPassword(html);
  let best: FormLink | undefined;
  let bestScore = 0;
  forms.forEach((form, index) => {
    const names = formNames(form);
    const score = fieldNames.filter((name) => names.has(name)).length * 2 + (password[index] === true ? 1 : 0);
    if (score > bestScore) {
      best = form;
      bestScore = score;
    }
  });
  return best;
}

/**
 * The login form filled in: the given values replace the form's (hidden inputs such as an
 * anti-CSRF token stay as served), a given name of a submit button picks that button, and
 * given names the form lacks are added.
 */
export function fillLoginForm(form: FormLink, fields: ProfileLogin['fields']): FormLink {
  const given = new Map(fields.map((f) => [f.name, f.value]));
  const used = new Set<string>();
  const filled: Array<[string, string]> = form.fields.map(([name, value]) => {
    const mine = given.get(name);
    if (mine === undefined) return [name, value];
    used.add(name);
    return [name, mine];
  });
  const pressed = form.buttons.findIndex((b) => b.fields.some(([name]) => given.has(name)));
  const buttons =
    pressed < 0 ? form.buttons : [form.buttons[pressed]!, ...form.buttons.filter((_, i) => i !== pressed)];
  const first = buttons[0];
  const firstButton =
    first === undefined
      ? undefined
      : {
          ...first,
          fields: first.fields.map(([name, value]): [string, string] => {
            const mine = given.get(name);
            if (mine === undefined) return [name, value];
            used.add(name);
            return [name, mine];
          }),
        };
  for (const button of buttons.slice(1)) for (const [name] of button.fields) if (given.has(name)) used.add(name);
  for (const f of fields) if (!used.has(f.name)) filled.push([f.name, f.value]);
  return {
    ...form,
    fields: filled,
    buttons: firstButton === undefined ? [] : [firstButton, ...buttons.slice(1)],
  };
}
