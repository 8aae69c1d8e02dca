/**
 * What the realistic application (test/support/realistic-app) hides, written from its code
 * before any scan: one spot per flaw, where a scanner must report it, and which check of ours
 * and which module of wapiti report that class.
 */

/** How the benchmark groups the spots. */
export type RealisticClass =
  | 'sql-injection'
  | 'command-injection'
  | 'xss'
  | 'path-traversal'
  | 'open-redirect'
  | 'file-upload'
  | 'csrf'
  | 'session-id'
  | 'cookie-flags'
  | 'code-evaluation'
  | 'deserialisation'
  | 'default-credentials'
  | 'sensitive-data';

/** One flaw of the vulnerable twin (the safe twin serves the same page fixed). */
export interface RealisticSpot {
  /** Stable id (`sqli-error`, `upload-php`, …). */
  id: string;
  class: RealisticClass;
  /** Our check that reports it (its stable id). */
  checkId: string;
  /** The page or form target (path only, no origin or query); `/` for an origin-wide finding (a cookie's). */
  path: string;
  /** The parameters (query, body field, cookie) whose finding is this spot; empty: any finding on the path. */
  parameters: string[];
  /** Wapiti 3.0.4's module for the class, or null when wapiti has none. */
  wapitiModule: string | null;
  /** Only a crawler that runs scripts finds the page (the client-side menu) or the flaw (DOM XSS). */
  needsJs: boolean;
  /** Behind the login (every page but the login form and the uploaded files). */
  needsLogin: boolean;
  description: string;
}

const spot = (
  id: string,
  spotClass: RealisticClass,
  checkId: string,
  path: string,
  parameters: string[],
  wapitiModule: string | null,
  needsJs: boolean,
  description: string,
  needsLogin = true,
): RealisticSpot => ({
  id,
  class: spotClass,
  checkId,
  path,
  parameters,
  wapitiModule,
  needsJs,
  needsLogin,
  description,
});

/** Every spot of the vulnerable twin. */
export const realisticManifest: readonly RealisticSpot[] = Object.freeze([
  spot(
    'sqli-error',
    'sql-injection',
    'sql-injection',
    '/vulnerabilities/sqli/',
    ['id'],
    'sql',
    false,
    "the `Submit`-gated GET form's id is concatenated into a MariaDB query; errors are printed as PHP's uncaught mysqli_sql_exception",
  ),
  spot(
    'sqli-blind',
    'sql-injection',
    'sql-injection',
    '/vulnerabilities/sqli_blind/',
    ['id'],
    'blindsql',
    true,
    'the same query with errors swallowed: 200 "exists" or 404 "MISSING"; a junk value matches no row, so `junk AND SLEEP()` never sleeps',
  ),
  spot(
    'exec-ping',
    'command-injection',
    'command-injection',
    '/vulnerabilities/exec/',
    ['ip'],
    'exec',
    false,
    "the `Submit`-gated POST form's ip goes to `ping -c 4` through an (emulated) shell: ; | && $() and backticks run more commands",
  ),
  spot(
    'xss-stored',
    'xss',
    'stored-xss',
    '/vulnerabilities/xss_s/',
    ['mtxMessage', 'txtName'],
    'permanentxss',
    false,
    'the `btnSign`-gated guestbook stores name and message and lists them unencoded',
  ),
  spot(
    'xss-reflected',
    'xss',
    'reflected-xss',
    '/vulnerabilities/xss_r/',
    ['name'],
    'xss',
    false,
    'the `Submit`-gated GET form echoes name unencoded',
  ),
  spot(
    'xss-dom',
    'xss',
    'dom-xss',
    '/vulnerabilities/xss_d/',
    [],
    null,
    true,
    'a script writes location.hash into innerHTML (the page is linked only from the script-built menu)',
  ),
  spot(
    'fi-traversal',
    'path-traversal',
    'path-traversal',
    '/vulnerabilities/fi/',
    ['page'],
    'file',
    false,
    'page=… is included from any path of the (emulated) file system: ../../../../etc/passwd',
  ),
  spot(
    'open-redirect',
    'open-redirect',
    'open-redirect',
    '/vulnerabilities/open_redirect/go.php',
    ['redirect'],
    'redirect',
    false,
    'redirect=… is sent back as the Location of a 302, any host allowed',
  ),
  spot(
    'upload-unrestricted',
    'file-upload',
    'file-upload',
    '/vulnerabilities/upload/',
    [],
    null,
    true,
    'the `Upload`-gated multipart form stores any file under /uploads/ with its own name; a .php file is executed (emulated: `<?php echo A*B; ?>`)',
  ),
  spot(
    'csrf-change-password',
    'csrf',
    'csrf',
    '/vulnerabilities/csrf/',
    [],
    'csrf',
    false,
    'the change-password GET form (`password_new`, `password_conf`, `Change`) has no token and no current password: it really changes the password',
  ),
  spot(
    'csrf-guestbook',
    'csrf',
    'csrf',
    '/vulnerabilities/xss_s/',
    [],
    'csrf',
    false,
    'the guestbook POST form has no anti-CSRF token and the session cookie has no SameSite attribute',
  ),
  spot(
    'csrf-upload',
    'csrf',
    'csrf',
    '/vulnerabilities/upload/',
    [],
    'csrf',
    true,
    'the upload POST form (it stores a file) has no anti-CSRF token; the session cookie has no SameSite attribute',
  ),
  spot(
    'csrf-ping',
    'csrf',
    'csrf',
    '/vulnerabilities/exec/',
    [],
    'csrf',
    false,
    'the ping POST form (it runs a command) has no anti-CSRF token; the session cookie has no SameSite attribute',
  ),
  spot(
    'csrf-weak-id',
    'csrf',
    'csrf',
    '/vulnerabilities/weak_id/',
    [],
    'csrf',
    false,
    'the Generate POST form (it sets a new cookie) has no anti-CSRF token',
  ),
  spot(
    'csrf-security',
    'csrf',
    'csrf',
    '/security',
    [],
    'csrf',
    false,
    "the security-level POST form (it changes the account's level) has no anti-CSRF token",
  ),
  spot(
    'session-cookie-samesite',
    'cookie-flags',
    'cookie-flags',
    '/',
    ['RASESSID'],
    null,
    false,
    'the session cookie RASESSID is set at login without a SameSite attribute',
  ),
  spot(
    'weak-session-id',
    'session-id',
    'session-id',
    '/',
    ['dvwaSession'],
    null,
    false,
    '/vulnerabilities/weak_id/ sets the cookie dvwaSession to the next integer at each answer (1, 2, 3, …)',
  ),
  spot(
    'eval-expression',
    'code-evaluation',
    'code-evaluation',
    '/vulnerabilities/eval/',
    ['expr'],
    null,
    true,
    'the `Calculate`-gated GET form evaluates expr as JavaScript (emulated: numbers, strings, + - * / % and parentheses; errors as Node prints them)',
  ),
  spot(
    'deserialisation-cookie',
    'deserialisation',
    'insecure-deserialization',
    '/',
    ['profile'],
    null,
    false,
    'the profile cookie (set by /vulnerabilities/profile/) is a base64 node-serialize object with a `_$$ND_FUNC$$_` function, deserialised on every visit',
  ),
  spot(
    'default-credentials',
    'default-credentials',
    'default-credentials',
    '/login',
    [],
    'brute_login_form',
    false,
    "admin / password opens the application's own login form",
    false,
  ),
  spot(
    'api-users',
    'sensitive-data',
    'sensitive-data-exposure',
    '/api/users',
    [],
    null,
    true,
    "an ordinary user's GET /api/users lists every user's e-mail address and MD5 password hash (linked from the script-built menu's Users page)",
  ),
]);

/** Wapiti's report categories that report each class (bench/app-scanner-realistic.bench.ts). */
export const wapitiCategoriesOf: Readonly<Record<RealisticClass, readonly string[]>> = Object.freeze({
  'sql-injection': ['SQL Injection', 'Blind SQL Injection'],
  'command-injection': ['Command execution'],
  xss: ['Cross Site Scripting'],
  'path-traversal': ['Path Traversal'],
  'open-redirect': ['Open Redirect'],
  'file-upload': [],
  csrf: ['Cross Site Request Forgery'],
  'session-id': [],
  'cookie-flags': [],
  'code-evaluation': [],
  deserialisation: [],
  'default-credentials': ['Weak credentials'],
  'sensitive-data': [],
});

/** The scanner's own account on both twins (an ordinary user), and the application's default administrator. */
export const realisticAccounts = Object.freeze({
  user: { username: 'gordonb', password: 'abc123' },
  admin: { username: 'admin', password: 'password' },
});
