import { injectPayload, type InjectionPoint } from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import type { PageCheck } from '../check-kit/page-check.ts';
import { firstNewMatch } from './response-compare.ts';

/** Stable id of the path traversal check. */
export const pathTraversalCheckId = 'path-traversal';

const KIND: FindingKind = {
  checkId: pathTraversalCheckId,
  title: 'Path traversal / local file inclusion',
  cwe: 22,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
  severity: 'high',
  owasp: 'A01:2021-Broken Access Control',
  description:
    'A request parameter names a file that the application reads or includes without confining it to a directory: `../` sequences or an absolute path reach files anywhere on the server.',
  risk: "An attacker can read system files, the application's source code and its configuration with credentials; an inclusion may run code.",
  remediation:
    'Never build file paths from input: map identifiers to files on the server side. If a name must be used, resolve it and check that the result stays inside the intended directory, and reject separators and `..`.',
  references: [
    { link: 'https://owasp.org/www-community/attacks/Path_Traversal', name: 'OWASP: Path Traversal' },
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/05-Authorization_Testing/01-Testing_Directory_Traversal_File_Include',
      name: 'OWASP WSTG: Directory traversal / file include',
    },
  ],
};

/** Payloads and the file content that proves each was read. */
const PAYLOADS: Array<{ payload: string; proof: RegExp; file: string }> = [
  { payload: '../../../../../../../../etc/passwd', proof: /root:[x*!]?:0:0:[^\n]*/, file: '/etc/passwd' },
  { payload: '/etc/passwd', proof: /root:[x*!]?:0:0:[^\n]*/, file: '/etc/passwd' },
  { payload: '....//....//....//....//....//....//etc/passwd', proof: /root:[x*!]?:0:0:[^\n]*/, file: '/etc/passwd' },
  {
    payload: '..\\..\\..\\..\\..\\..\\windows\\win.ini',
    proof: /\[(?:fonts|extensions|mci extensions)\]/i,
    file: 'C:\\windows\\win.ini',
  },
];

/** Parameters that carry file names or paths, by name or by value. */
const FILE_NAME = /file|path|page|doc|template|include|dir|folder|load|read|download|view|lang|style|resource|name/i;

/** True for a point worth the traversal payloads: a file-ish name, or a value that looks like a file or path. */
export function looksLikeFileParameter(point: InjectionPoint): boolean {
  if (point.location === 'path') return /\.\w{1,5}$/.test(point.value);
  return FILE_NAME.test(point.name) || /\.\w{1,5}$|\//.test(point.value);
}

/**
 * Path traversal and local file inclusion in parameters that carry file names: `../` chains,
 * an absolute path, a filter-evading `....//` chain and the Windows form; reported when the
 * answer holds the file's content (`root:x:0:0:` of /etc/passwd, `[fonts]` of win.ini) that
 * the original page does not. One finding per point.
 */
export function createPathTraversalCheck(): PageCheck {
  return createActiveCheck({
    id: pathTraversalCheckId,
    applies: looksLikeFileParameter,
    async test(point, page, context, send) {
      for (const { payload, proof, file } of PAYLOADS) {
        const exchange = await send(injectPayload(point, payload));
        const evidence = firstNewMatch(proof, exchange.body, page.exchange.body);
        if (evidence === undefined) continue;
        await reportAtPoint(KIND, point, page, context, {
          exchange,
          evidence,
          confirmation: `by content: with ${JSON.stringify(payload)} the answer holds ${file} ("${evidence.value}"), which the original page does not`,
        });
        return;
      }
    },
  });
}
