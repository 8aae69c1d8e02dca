import type { FindingKind } from './finding-builder.ts';
import { isLoginForm, passwordInputs, passwordInputTag } from './page-markup.ts';
import type { PageCheck } from '../check-kit/page-check.ts';
import { createPasswordFormCheck } from './password-form-check.ts';

/** Stable id of the password-autocomplete check. */
export const passwordAutocompleteCheckId = 'password-autocomplete';

const KIND: FindingKind = {
  checkId: passwordAutocompleteCheckId,
  title: 'Login password field explicitly sets autocomplete="on"',
  cwe: 522,
  cvssVector: 'AV:L/AC:H/PR:N/UI:R/S:U/C:N/I:N/A:N',
  severity: 'information',
  owasp: 'A04:2021-Insecure Design',
  description:
    'The password field of a login form declares `autocomplete="on"` instead of its purpose (`current-password`). Current guidance (OWASP ASVS 4.0 2.1.11, NIST SP 800-63B) wants password managers to work, so storing passwords is not itself a flaw and a field without the attribute, or with `current-password` or `new-password`, is not reported; this note is informational.',
  risk: 'A generic `on` gives browsers and password managers no hint which password this is, so they may offer or store it wrongly; on shared computers a browser-stored password is available to the next user.',
  remediation:
    'Declare the purpose: `autocomplete="current-password"` on login forms and `autocomplete="new-password"` on sign-up and change forms (do not use `off`: browsers ignore it and it hinders password managers). Offer logout and session expiry for shared computers.',
  references: [
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html',
      name: 'OWASP Authentication Cheat Sheet',
    },
    {
      link: 'https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#autofill',
      name: 'HTML Standard: Autofill',
    },
  ],
};

/**
 * Password autocomplete: the password input of a login form with an explicit
 * `autocomplete="on"`. One informational finding per origin and form action path.
 */
export function createPasswordAutocompleteCheck(): PageCheck {
  return createPasswordFormCheck(KIND, ({ form, action }, page) => {
    const field = passwordInputs(form)[0];
    if (!isLoginForm(form) || field === undefined || field.autocomplete !== 'on') return undefined;
    return {
      evidence: passwordInputTag(page.exchange.body, /autocomplete\s*=\s*["']?on\b/i),
      observation: `The login form of ${page.url.href} (action ${action.href}) has a password field${field.name === '' ? '' : ` "${field.name}"`} with autocomplete="on".`,
    };
  });
}
