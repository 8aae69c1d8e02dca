import type { Severity } from './vulnerability.types.ts';

/** A check of the demo catalogue: what a scanner could find, with realistic metadata. */
export interface SeedCheck {
  id: string;
  title: string;
  severity: Severity;
  cwe: number;
  owasp: string;
  source: 'application-scanning' | 'surface-monitoring' | 'both';
  path: string;
  description: string;
}

/** Checks the seed draws from; severities and CWEs as a scanner would report them. */
export const seedChecks: SeedCheck[] = [
  { id: 'xss-reflected', title: 'Reflected Cross-Site Scripting', severity: 'high', cwe: 79, owasp: 'A03', source: 'application-scanning', path: '/search?q=', description: 'User input is reflected into the page without encoding, so a crafted link runs script in the victim’s session.' },
  { id: 'xss-stored', title: 'Stored Cross-Site Scripting', severity: 'critical', cwe: 79, owasp: 'A03', source: 'application-scanning', path: '/comments', description: 'Script submitted in a form is stored and served to every visitor of the page.' },
  { id: 'sqli-error', title: 'SQL Injection (error based)', severity: 'critical', cwe: 89, owasp: 'A03', source: 'application-scanning', path: '/products?id=', description: 'A quote in the parameter produces a database error; the query is built by string concatenation.' },
  { id: 'open-redirect', title: 'Open Redirect', severity: 'medium', cwe: 601, owasp: 'A01', source: 'application-scanning', path: '/login?next=', description: 'The redirect target is taken from the request without validation.' },
  { id: 'csrf-missing', title: 'Missing CSRF Protection', severity: 'medium', cwe: 352, owasp: 'A01', source: 'application-scanning', path: '/account/settings', description: 'State-changing requests are accepted without an anti-forgery token.' },
  { id: 'path-traversal', title: 'Path Traversal', severity: 'high', cwe: 22, owasp: 'A01', source: 'application-scanning', path: '/download?file=', description: 'Sequences such as ../ in the file parameter read files outside the web root.' },
  { id: 'ssrf', title: 'Server-Side Request Forgery', severity: 'high', cwe: 918, owasp: 'A10', source: 'application-scanning', path: '/preview?url=', description: 'The server fetches URLs supplied by the client, including internal addresses.' },
  { id: 'cookie-no-secure', title: 'Cookie Without Secure Flag', severity: 'low', cwe: 614, owasp: 'A05', source: 'both', path: '/', description: 'A session cookie is set without the Secure attribute and may travel over plain HTTP.' },
  { id: 'cookie-no-httponly', title: 'Cookie Without HttpOnly Flag', severity: 'low', cwe: 1004, owasp: 'A05', source: 'both', path: '/', description: 'A session cookie is readable by scripts, which widens the impact of XSS.' },
  { id: 'hsts-missing', title: 'Missing Strict-Transport-Security Header', severity: 'information', cwe: 319, owasp: 'A05', source: 'surface-monitoring', path: '/', description: 'The site does not ask browsers to use HTTPS only.' },
  { id: 'csp-missing', title: 'Missing Content-Security-Policy', severity: 'information', cwe: 1021, owasp: 'A05', source: 'both', path: '/', description: 'No Content-Security-Policy header restricts where scripts may load from.' },
  { id: 'tls-weak-cipher', title: 'Weak TLS Cipher Suites Enabled', severity: 'medium', cwe: 327, owasp: 'A02', source: 'surface-monitoring', path: ':443', description: 'The server accepts CBC-mode suites with SHA-1 MACs.' },
  { id: 'tls-old-protocol', title: 'TLS 1.0 Enabled', severity: 'medium', cwe: 326, owasp: 'A02', source: 'surface-monitoring', path: ':443', description: 'The deprecated TLS 1.0 protocol is still negotiated.' },
  { id: 'cert-expiring', title: 'Certificate Expires Soon', severity: 'low', cwe: 298, owasp: 'A02', source: 'surface-monitoring', path: ':443', description: 'The certificate expires within 14 days.' },
  { id: 'subdomain-takeover', title: 'Subdomain Takeover', severity: 'critical', cwe: 350, owasp: 'A05', source: 'surface-monitoring', path: '/', description: 'A CNAME points to an unclaimed resource at a hosting provider.' },
  { id: 'exposed-git', title: 'Exposed .git Directory', severity: 'high', cwe: 538, owasp: 'A05', source: 'surface-monitoring', path: '/.git/config', description: 'The repository metadata of the site is downloadable.' },
  { id: 'exposed-env', title: 'Exposed Environment File', severity: 'critical', cwe: 538, owasp: 'A05', source: 'surface-monitoring', path: '/.env', description: 'A .env file with credentials is served publicly.' },
  { id: 'directory-listing', title: 'Directory Listing Enabled', severity: 'low', cwe: 548, owasp: 'A05', source: 'both', path: '/assets/', description: 'The web server lists directory contents.' },
  { id: 'outdated-jquery', title: 'Outdated JavaScript Library (jQuery 1.x)', severity: 'medium', cwe: 1104, owasp: 'A06', source: 'both', path: '/js/jquery.min.js', description: 'A jQuery version with known XSS issues is loaded.' },
  { id: 'server-banner', title: 'Server Version Disclosure', severity: 'information', cwe: 200, owasp: 'A05', source: 'surface-monitoring', path: '/', description: 'The Server header reveals the exact software version.' },
  { id: 'open-port-ssh', title: 'SSH Exposed to the Internet', severity: 'low', cwe: 284, owasp: 'A05', source: 'surface-monitoring', path: ':22', description: 'An SSH service answers on a public address.' },
  { id: 'open-port-db', title: 'Database Port Exposed', severity: 'high', cwe: 284, owasp: 'A05', source: 'surface-monitoring', path: ':5432', description: 'A database service answers on a public address.' },
  { id: 'clickjacking', title: 'Clickjacking: Missing Frame Protection', severity: 'low', cwe: 1021, owasp: 'A05', source: 'application-scanning', path: '/account', description: 'Pages can be framed by other sites.' },
  { id: 'idor', title: 'Insecure Direct Object Reference', severity: 'high', cwe: 639, owasp: 'A01', source: 'application-scanning', path: '/api/orders/', description: 'Orders of other users are readable by changing the identifier.' },
  { id: 'jwt-none', title: 'JWT Accepted With alg=none', severity: 'critical', cwe: 347, owasp: 'A02', source: 'application-scanning', path: '/api/me', description: 'The API accepts unsigned tokens.' },
  { id: 'cors-wildcard', title: 'Permissive CORS Policy', severity: 'medium', cwe: 942, owasp: 'A05', source: 'application-scanning', path: '/api/', description: 'Credentials are allowed from any origin.' },
  { id: 'graphql-introspection', title: 'GraphQL Introspection Enabled', severity: 'information', cwe: 200, owasp: 'A05', source: 'application-scanning', path: '/graphql', description: 'The full schema of the API is disclosed.' },
  { id: 'spf-missing', title: 'Missing SPF Record', severity: 'low', cwe: 290, owasp: 'A05', source: 'surface-monitoring', path: 'dns:txt', description: 'The domain publishes no SPF policy, so mail can be spoofed.' },
];
