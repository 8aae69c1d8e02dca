import { describePoint, injectPayload, parameterLocations, type PayloadMode } from '../check-kit/injection.ts';
import type { PageCheck } from '../check-kit/page-check.ts';
import { createActiveCheck, reportAtPoint } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';

/** Stable id of the server-side code evaluation check. */
export const codeEvaluationCheckId = 'code-evaluation';

/** The kind of finding the check reports (exported for the catalogue's tests). */
export const codeEvaluationKind: FindingKind = {
  checkId: codeEvaluationCheckId,
  title: 'Server-side code evaluation',
  cwe: 95,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  // Code runs with the application's rights: complete impacts, as NVD scores eval injection (10.0).
  cvss2Vector: 'AV:N/AC:L/Au:N/C:C/I:C/A:C',
  severity: 'critical',
  owasp: 'A03:2021-Injection',
  description:
    "A request parameter reaches the server language's code evaluation (JavaScript `eval`, `new Function`, `vm`, PHP `eval`, Python `eval`): an arithmetic expression in it comes back computed.",
  risk: 'An attacker runs any code of the server language with the rights of the application: files, secrets, the database and commands on the host.',
  remediation:
    'Never evaluate input as code. Parse what you expect instead (a number with `Number()`, JSON with `JSON.parse`, an arithmetic expression with a dedicated parser that knows only numbers and operators), and map choices to fixed code paths with an allow-list.',
  references: [
    {
      link: 'https://owasp.org/www-community/attacks/Direct_Dynamic_Code_Evaluation_Eval%20Injection',
      name: 'OWASP: Direct Dynamic Code Evaluation (Eval Injection)',
    },
    { link: 'https://cwe.mitre.org/data/definitions/95.html', name: 'CWE-95: Eval Injection' },
  ],
};

/**
 * The expression forms: alone in place of the value (an expression evaluated whole), and
 * breaking out of a string literal the value sits in: JavaScript or Python concatenation in
 * single or double quotes, and a PHP statement after a closed double-quoted string. `${…}` is
 * template injection's (template literals and expression languages), not tested here.
 */
const FORMS: Array<{ mode: PayloadMode; payload: (expression: string) => string; where: string }> = [
  { mode: 'replace', payload: (e) => e, where: 'alone in place of the value' },
  { mode: 'append', payload: (e) => `'+${e}+'`, where: 'appended, closing a single-quoted string' },
  { mode: 'append', payload: (e) => `"+${e}+"`, where: 'appended, closing a double-quoted string' },
  { mode: 'append', payload: (e) => `";echo ${e};//`, where: 'appended, closing a PHP string and echoing' },
];

/** Two products no page shows by chance; the second confirms the first was computed. */
const FIRST = { expression: '9017*9011', product: String(9017 * 9011) };
const SECOND = { expression: '9029*9013', product: String(9029 * 9013) };

/**
 * Server-side code evaluation: each form of FORMS carries `9017*9011`; a hit is an answer
 * showing 81252187, which the original page does not show, without the expression itself (a
 * page that prints the expression beside a value is a calculator echoing, not evaluated code in
 * place of the input), confirmed by the same form with `9029*9013` answering 81378377. Query,
 * form and JSON fields are tested, not path segments, headers or cookies. One finding per point.
 */
export function createCodeEvaluationCheck(): PageCheck {
  return createActiveCheck({
    id: codeEvaluationCheckId,
    locations: parameterLocations,
    applies: (point) => point.location !== 'path',
    async test(point, page, context, send) {
      const original = page.exchange.body;
      if (original.includes(FIRST.product) || original.includes(SECOND.product)) return;
      for (const form of FORMS) {
        const first = form.payload(FIRST.expression);
        const exchange = await send(injectPayload(point, first, form.mode));
        const offset = exchange.body.indexOf(FIRST.product);
        if (offset < 0 || exchange.body.includes(FIRST.expression)) continue;
        const second = form.payload(SECOND.expression);
        const confirm = await send(injectPayload(point, second, form.mode));
        if (!confirm.body.includes(SECOND.product) || confirm.body.includes(SECOND.expression)) continue;
        await reportAtPoint(codeEvaluationKind, point, page, context, {
          exchange,
          evidence: { value: FIRST.product, offset },
          confirmation: `twice: with ${JSON.stringify(first)} ${form.where} in ${describePoint(point)} the answer shows ${FIRST.product} (${FIRST.expression} computed), with ${JSON.stringify(second)} it shows ${SECOND.product}; neither number is on the original page and the expressions are not echoed`,
        });
        return;
      }
    },
  });
}
