import { injectPayload } from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import type { PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the server-side template injection check. */
export const templateInjectionCheckId = 'template-injection';

const KIND: FindingKind = {
  checkId: templateInjectionCheckId,
  title: 'Server-side template injection',
  cwe: 1336,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  severity: 'high',
  owasp: 'A03:2021-Injection',
  description:
    'A request parameter is rendered as part of a server-side template: template expressions in it are evaluated.',
  risk: 'Template engines reach the host language: an attacker can usually run code on the server, read files and secrets.',
  remediation:
    'Pass input to templates as data (context variables), never as template source; use a sandboxed or logic-less engine where users must write templates.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/07-Input_Validation_Testing/18-Testing_for_Server-side_Template_Injection',
      name: 'OWASP WSTG: Server-side template injection',
    },
  ],
};

/** Expression syntaxes of the common engines (Jinja2/Twig/Nunjucks, Freemarker/JSP EL/Thymeleaf, ERB/EJS, Ruby/Pug). */
const SYNTAXES: Array<(a: number, b: number) => string> = [
  (a, b) => `{{${a}*${b}}}`,
  (a, b) => `\${${a}*${b}}`,
  (a, b) => `<%= ${a}*${b} %>`,
  (a, b) => `#{${a}*${b}}`,
];

/**
 * Server-side template injection: each syntax carries a product of two numbers; reported when
 * the answer holds the product (and not the page before), confirmed with a second product so a
 * number that happens to be on the page is not taken for an evaluation. One finding per point.
 */
export function createTemplateInjectionCheck(): PageCheck {
  return createActiveCheck({
    id: templateInjectionCheckId,
    async test(point, page, context, send) {
      for (const syntax of SYNTAXES) {
        const first = syntax(7, 191);
        const exchange = await send(injectPayload(point, first));
        const offset = exchange.body.indexOf('1337');
        if (offset < 0 || page.exchange.body.includes('1337')) continue;
        const second = syntax(7, 193);
        const confirm = await send(injectPayload(point, second));
        const confirmOffset = confirm.body.indexOf('1351');
        if (confirmOffset < 0 || page.exchange.body.includes('1351')) continue;
        await reportAtPoint(KIND, point, page, context, {
          exchange: confirm,
          evidence: { value: '1351', offset: confirmOffset },
          confirmation: `twice: ${JSON.stringify(first)} answers 1337 and ${JSON.stringify(second)} answers 1351; neither number is on the original page`,
        });
        return;
      }
    },
  });
}
