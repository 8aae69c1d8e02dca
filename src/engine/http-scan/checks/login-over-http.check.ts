import type { FindingKind } from './finding-builder.ts';
import { bodyEvidence, passwordInputTag } from './page-markup.ts';
import type { PageCheck } from '../check-kit/page-check.ts';
import { createPasswordFormCheck } from './password-form-check.ts';

/** Stable id of the login-over-HTTP check. */
export const loginOverHttpCheckId = 'login-over-http';

const KIND: FindingKind = {
  checkId: loginOverHttpCheckId,
  title: 'Login form sends credentials over plain HTTP',
  cwe: 523,
  cvssVector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N',
  severity: 'medium',
  owasp: 'A02:2021-Cryptographic Failures',
  description: 'A form with a password input is served over plain HTTP, or submits to an `http://` action.',
  risk: 'Anyone on the network path (public Wi-Fi, a compromised router, a proxy) can read the password, or change the page to send it elsewhere.',
  remediation:
    'Serve the login page and its action only over HTTPS, redirect HTTP to HTTPS, and send Strict-Transport-Security.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/04-Authentication_Testing/01-Testing_for_Credentials_Transported_over_an_Encrypted_Channel',
      name: 'OWASP WSTG: Credentials transported over an encrypted channel',
    },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Security_Cheat_Sheet.html',
      name: 'OWASP Transport Layer Security Cheat Sheet',
    },
  ],
};

/**
 * Login over HTTP: a form with a password input on an http:// page, or whose action is http://.
 * One finding per origin and action path (a login box on every page that posts to /login is one
 * finding; an action on another host is located at the page's path).
 */
export function createLoginOverHttpCheck(): PageCheck {
  return createPasswordFormCheck(KIND, ({ form, action }, page) => {
    const isPageHttp = page.url.protocol === 'http:';
    if (!isPageHttp && action.protocol !== 'http:') return undefined;
    return isPageHttp
      ? {
          evidence: passwordInputTag(page.exchange.body),
          observation: `${page.url.href} is served over plain HTTP and holds a form with a password input (action ${action.href}).`,
        }
      : {
          evidence: bodyEvidence(page.exchange.body, form.action),
          observation: `The HTTPS page ${page.url.href} holds a form with a password input whose action is the plain-HTTP URL ${action.href}.`,
        };
  });
}
