import { createPathProbeCheck, type Recognised, type Span } from './exposure-probe.ts';
import type { FindingKind } from './finding-builder.ts';
import type { PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the exposed-env-file check. */
export const exposedEnvFileCheckId = 'exposed-env-file';

const KIND: FindingKind = {
  checkId: exposedEnvFileCheckId,
  title: 'Environment file exposed (.env readable)',
  cwe: 538,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
  severity: 'high',
  owasp: 'A05:2021-Security Misconfiguration',
  description:
    'The web server serves a dotenv file: a list of `KEY=VALUE` settings meant for the application process only.',
  risk: "Dotenv files hold database passwords, API keys and signing secrets; anyone who reads one can take over the application's data and third-party accounts.",
  remediation:
    'Keep `.env` files outside the web root (or deny every path starting with `/.env` in the web server), then rotate every secret the file held.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information',
      name: 'OWASP WSTG: Review old backup and unreferenced files',
    },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Secrets_Management_Cheat_Sheet.html',
      name: 'OWASP Secrets Management Cheat Sheet',
    },
  ],
};

const ASSIGNMENT = /^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.]*)[ \t]*=[ \t]*(.*?)[ \t]*$/;
const UPPER_KEY = /^[A-Z][A-Z0-9_]*$/;
/** Keys whose values are credentials (masked in the recorded evidence). */
const SENSITIVE_KEY = /PASS|PWD|SECRET|KEY|TOKEN|PRIVATE|CREDENTIAL|AUTH|SALT|DSN|_URL$|_URI$/i;
const MARKUP = /^\s*</;

/** What a dotenv body holds: its keys, the evidence (`KEY=` of the most telling line) and the value spans to mask. */
export interface EnvFile extends Recognised {
  keys: string[];
  masked: Span[];
}

/**
 * Reads a body as a dotenv file, or undefined when it is not one: every non-blank, non-comment
 * line must be `KEY=VALUE` (one stray line in five tolerated), with at least two upper-case
 * keys; markup (an HTML soft-404 page) never is one.
 */
export function findEnvFile(body: string): EnvFile | undefined {
  if (MARKUP.test(body) || /<\/?(?:html|body|head|div|p|script)\b/i.test(body.slice(0, 4096))) return undefined;
  const keys: string[] = [];
  const masked: Span[] = [];
  let evidence: { value: string; offset: number; isSensitive: boolean } | undefined;
  let strays = 0;
  let offset = 0;
  for (const line of body.split('\n')) {
    const lineStart = offset;
    offset += line.length + 1;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = ASSIGNMENT.exec(line.replace(/\r$/, ''));
    if (match === null || match[1] === undefined) {
      strays += 1;
      continue;
    }
    const key = match[1];
    const value = match[2] ?? '';
    keys.push(key);
    const isSensitive = SENSITIVE_KEY.test(key);
    if (isSensitive && value !== '') masked.push({ offset: lineStart + line.lastIndexOf(value), length: value.length });
    if (evidence === undefined || (isSensitive && !evidence.isSensitive))
      evidence = { value: `${key}=`, offset: lineStart + line.indexOf(key), isSensitive };
  }
  if (evidence === undefined || keys.filter((k) => UPPER_KEY.test(k)).length < 2 || strays * 5 > keys.length)
    return undefined;
  // The key and "=" may be apart ("KEY = value"): highlight only what really stands there.
  const value = body.startsWith(evidence.value, evidence.offset) ? evidence.value : evidence.value.slice(0, -1);
  return { value, offset: evidence.offset, keys, masked };
}

/**
 * Exposed dotenv files: GET /.env, /.env.local and /.env.production once per origin (three
 * requests); reported when the body reads as a real dotenv file. Values of credential-like keys
 * are masked in the recorded response. One finding per origin and file.
 */
export function createExposedEnvFileCheck(): PageCheck {
  return createPathProbeCheck({
    kind: KIND,
    paths: ['/.env', '/.env.local', '/.env.production'],
    recognise: (exchange) => findEnvFile(exchange.body),
    observe: (url, found) => {
      const keys = (found as EnvFile).keys;
      return `${url.href} answers a dotenv file with ${keys.length} settings (${keys.slice(0, 12).join(', ')}${keys.length > 12 ? ', …' : ''}); credential values are masked in the recorded response.`;
    },
  });
}
