import { createPathProbeCheck } from './exposure-probe.ts';
import type { BodyEvidence, FindingKind } from './finding-builder.ts';
import type { PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the phpinfo check. */
export const phpinfoCheckId = 'phpinfo';

const KIND: FindingKind = {
  checkId: phpinfoCheckId,
  title: 'phpinfo() page exposed',
  cwe: 497,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  severity: 'medium',
  owasp: 'A05:2021-Security Misconfiguration',
  description:
    "A page answers the output of PHP's `phpinfo()`: the PHP version, build, loaded modules, configuration and the server's environment.",
  risk: 'The page tells an attacker which versions and extensions to target, the file system layout, disabled protections and often environment variables holding credentials.',
  remediation:
    'Delete diagnostic scripts that call `phpinfo()` from the server (or restrict them to administrators), and consider `disable_functions = phpinfo` in production.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/01-Information_Gathering/08-Fingerprint_Web_Application_Framework',
      name: 'OWASP WSTG: Fingerprint web application framework',
    },
    { link: 'https://www.php.net/manual/en/function.phpinfo.php', name: 'PHP manual: phpinfo' },
  ],
};

// Row labels of phpinfo()'s first table, as HTML cells (`<td class="e">System </td>`) or CLI text (`System => `).
const ROW_LABELS = [
  'System',
  'Build Date',
  'Server API',
  'Configuration File \\(php\\.ini\\) Path',
  'Loaded Configuration File',
  'PHP API',
  'PHP Extension',
  'Zend Extension',
];
const HTML_ROW = new RegExp(`<td class="e">\\s*(?:${ROW_LABELS.join('|')})\\s*</td>`, 'g');
const TEXT_ROW = new RegExp(`^(?:${ROW_LABELS.join('|')}) => `, 'gm');
const VERSION = /PHP Version (?:=> )?\d+\.\d+\.\d+[\w.+~-]*/;

/**
 * Where a body shows phpinfo() output, or undefined: the "PHP Version x.y.z" heading together
 * with at least two of the report's row labels (HTML cells or CLI text), so an article that
 * mentions phpinfo or the PHP version is not mistaken for one.
 */
export function findPhpinfo(body: string): BodyEvidence | undefined {
  if (!body.includes('PHP Version')) return undefined;
  const version = VERSION.exec(body);
  if (version === null) return undefined;
  const rows = (body.match(HTML_ROW)?.length ?? 0) + (body.match(TEXT_ROW)?.length ?? 0);
  return rows >= 2 ? { value: version[0], offset: version.index } : undefined;
}

/**
 * phpinfo() pages: GET /phpinfo.php and /info.php once per origin (two requests), and every
 * crawled page judged as it arrives. One finding per origin and path.
 */
export function createPhpinfoCheck(): PageCheck {
  return createPathProbeCheck({
    kind: KIND,
    paths: ['/phpinfo.php', '/info.php'],
    isPassive: true,
    recognise: (exchange) => findPhpinfo(exchange.body),
    observe: (url, found) => `${url.href} answers phpinfo() output ("${found.value}").`,
  });
}
