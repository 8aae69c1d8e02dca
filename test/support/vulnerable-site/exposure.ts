import { createHash, randomBytes } from 'node:crypto';
import type { SiteModule, SiteRequest, SiteResponse, Spot } from './types.ts';

/**
 * The exposure spots of the fixture site: metadata and config files a probe finds (/.svn/, /.env,
 * phpinfo, server-status, server default pages), backup copies of crawled pages, stack traces and debug pages, source
 * maps and credentials in JavaScript. The safe twin answers the same paths fixed: 404, 403, a
 * generic error page, or a soft-404 (200 with a "not found" page that names the path and a
 * request id), which a scanner must not mistake for the file. The vulnerable site also answers
 * soft-404s under /backoffice/, next to a real backup there.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const text = { 'content-type': 'text/plain; charset=utf-8' };
const js = { 'content-type': 'application/javascript' };
const json = { 'content-type': 'application/json' };
const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string, status = 200): SiteResponse => ({
  status,
  headers: html,
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`,
});
const softNotFound = (request: SiteRequest): SiteResponse =>
  page(
    'Page not found',
    `<p>We looked everywhere, but ${escapeHtml(request.url.pathname)} is not here.</p><p>Request id ${randomBytes(4).toString('hex')}</p><a href="/">Back to the shop</a>`,
  );
const notFound: SiteResponse = {
  status: 404,
  headers: html,
  body: '<!doctype html><title>Not found</title><p>Not found</p>',
};
const forbidden: SiteResponse = { status: 403, headers: text, body: 'Forbidden' };
const serverError = (note = ''): SiteResponse =>
  page(
    'Something went wrong',
    `<p>Sorry, we could not complete your request. Reference ${randomBytes(3).toString('hex')}.</p>${note}`,
    500,
  );

// Credentials are assembled at run time: the repository holds no string that looks like a live key.
const join = (...parts: string[]): string => parts.join('');
const AWS_KEY = join('AKIA', 'Q3EGRIZRFXTNWJ5K');
const STRIPE_KEY = join('sk_', 'live_', '51HqLr2Kd8Vb3Nf0Tq7Wm4Pz');
const GOOGLE_KEY = join('AIza', 'SyD4f8Kq2LmN7pR1tV5xZ9bC3eG6hJ0kWqT');
const GITHUB_TOKEN = join('ghp_', 'R8mK2pQ7vL4nX9tB3wY6cZ1dF5gH0jS2aE4u');
const SLACK_TOKEN = join('xoxb-', '730194856201', '-', '2841957306142', '-', 'Gq7Lm2Xv9Rt4Kp8Wn3Bz6Hc1');
const KEY_BODY = createHash('sha512')
  .update('fixture deploy key')
  .digest('base64')
  .repeat(5)
  .match(/.{1,64}/g)!
  .join('\\n');
const PRIVATE_KEY = `${join('-----BEGIN RSA ', 'PRIVATE KEY-----')}\\n${KEY_BODY}\\n-----END RSA PRIVATE KEY-----`;

const SOURCE_MAP = (file: string): string =>
  JSON.stringify({
    version: 3,
    file,
    sources: ['webpack:///./src/cart.ts', 'webpack:///./src/api/client.ts'],
    sourcesContent: ['export const cart = [];', "export const api = '/internal/api';"],
    names: ['cart', 'api'],
    mappings: 'AAAA,MAAMA,IAAI,GAAG;ACAb,MAAMC,GAAG',
  });
const APP_BUNDLE =
  '"use strict";(()=>{const e=document.querySelector("#cart");e&&e.addEventListener("click",()=>e.classList.toggle("open"))})();\n';

const PHP_SOURCE = (name: string): string =>
  `<?php\n// ${name}\n$db = new PDO('mysql:host=db.internal;dbname=shop', 'shop', 'Sh0p-DB-pass');\n$rows = $db->query("SELECT * FROM products WHERE id = " . $_GET['id']);\nforeach ($rows as $row) { echo $row['name']; }\n`;
const PHPINFO = `<!DOCTYPE html><html><head><title>PHP 8.2.7 - phpinfo()</title></head><body><div class="center"><table><tr class="h"><td><h1 class="p">PHP Version 8.2.7</h1></td></tr></table>
<table><tr><td class="e">System </td><td class="v">Linux shop-web-1 6.1.0-9-amd64 x86_64 </td></tr><tr><td class="e">Build Date </td><td class="v">Jun  9 2023 </td></tr>
<tr><td class="e">Server API </td><td class="v">Apache 2.0 Handler </td></tr><tr><td class="e">Configuration File (php.ini) Path </td><td class="v">/etc/php/8.2/apache2 </td></tr>
<tr><td class="e">Loaded Configuration File </td><td class="v">/etc/php/8.2/apache2/php.ini </td></tr></table></div></body></html>`;

// The identifying lines of the nginx (Debian package) and IIS welcome pages, shortened.
const NGINX_DEFAULT =
  '<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n</head>\n<body>\n<h1>Welcome to nginx!</h1>\n<p>If you see this page, the nginx web server is successfully installed and working. Further configuration is required.</p>\n</body>\n</html>\n';
const IIS_DEFAULT =
  '<!DOCTYPE html><html><head><title>IIS Windows Server</title></head><body><div id="container"><a href="http://go.microsoft.com/fwlink/?linkid=66138"><img src="iisstart.png" alt="IIS" width="960" height="600" /></a></div></body></html>';

const TRACES: Record<string, SiteResponse> = {
  '/reports/export': page(
    'Error',
    `<pre>Traceback (most recent call last):
  File "/srv/app/venv/lib/python3.11/site-packages/flask/app.py", line 1484, in full_dispatch_request
    rv = self.dispatch_request()
  File "/srv/app/reports/views.py", line 42, in export
    rows = build_rows(request.args["month"])
KeyError: 'month'</pre>`,
    500,
  ),
  '/orders/history': page(
    'HTTP Status 500 – Internal Server Error',
    `<h2>Exception</h2><pre>java.lang.NullPointerException: order is null
\tat com.shop.web.OrderHistoryServlet.doGet(OrderHistoryServlet.java:57)
\tat javax.servlet.http.HttpServlet.service(HttpServlet.java:655)
\tat org.apache.catalina.core.ApplicationFilterChain.internalDoFilter(ApplicationFilterChain.java:231)</pre>`,
    500,
  ),
  '/cart/update': {
    status: 200,
    headers: html,
    body: `<br />\n<b>Fatal error</b>:  Uncaught PDOException: SQLSTATE[HY000] [2002] Connection refused in /var/www/html/cart/update.php:14\nStack trace:\n#0 /var/www/html/cart/update.php(14): PDO->__construct()\n#1 {main}\n  thrown in <b>/var/www/html/cart/update.php</b> on line <b>14</b><br />\n`,
  },
  '/members/Profile.aspx': page(
    'Object reference not set to an instance of an object.',
    `<span><h1>Server Error in '/' Application.<hr></h1><h2><i>Object reference not set to an instance of an object.</i></h2></span>
<b> Exception Details: </b>System.NullReferenceException: Object reference not set to an instance of an object.<br><br>
<b>Stack Trace:</b><pre>[NullReferenceException: Object reference not set to an instance of an object.]
   Shop.Members.Profile.Page_Load(Object sender, EventArgs e) in c:\\inetpub\\wwwroot\\Members\\Profile.aspx.cs:27
   System.Web.UI.Control.OnLoad(EventArgs e) +95</pre>`,
    500,
  ),
  '/svc/users': {
    status: 500,
    headers: json,
    body: JSON.stringify({
      error:
        "TypeError: Cannot read properties of undefined (reading 'id')\n    at /srv/api/routes/users.js:27:31\n    at Layer.handle [as handle_request] (/srv/api/node_modules/express/lib/router/layer.js:95:5)\n    at next (/srv/api/node_modules/express/lib/router/route.js:144:13)",
    }),
  },
  '/django-blog/': page(
    'Page not found at /django-blog/',
    `<p>Using the URLconf defined in <code>blog.urls</code>, Django tried these URL patterns, in this order:</p><ol><li>admin/</li></ol>
<p>You&#x27;re seeing this error because you have <code>DEBUG = True</code> in your Django settings file. Change that to <code>False</code>, and Django will display a standard 404 page.</p>`,
    404,
  ),
  '/rails-store/': {
    status: 500,
    headers: html,
    body: '<!DOCTYPE html><html><head><title>Action Controller: Exception caught</title></head><body><h1>NoMethodError in StoreController#index</h1><p><code>Rails.root: /srv/store</code></p><pre>app/controllers/store_controller.rb:9:in `index&#39;</pre></body></html>',
  },
  '/laravel-portal/': page(
    'Illuminate\\Database\\QueryException',
    '<div class="exception">SQLSTATE[HY000] [2002] Connection refused</div><div class="frame">/var/www/portal/vendor/laravel/framework/src/Illuminate/Database/Connection.php:760</div>',
    500,
  ),
};

// The safe twin's error pages: generic, some with words a naive matcher would take for a trace.
const SAFE_TRACES: Record<string, SiteResponse> = {
  '/reports/export': serverError(
    "<p>If you write to support, quote the words 'Traceback (most recent call last)' from your log.</p>",
  ),
  '/members/Profile.aspx': page(
    'Runtime Error',
    "<h1>Server Error in '/' Application.</h1><h2>Runtime Error</h2><b>Description: </b>An application error occurred on the server. The current custom error settings for this application prevent the details of the application error from being viewed remotely.",
    500,
  ),
  '/svc/users': {
    status: 500,
    headers: json,
    body: JSON.stringify({ error: 'Internal error', hint: 'see the logs at /srv/api/logs' }),
  },
};

const SECRETS_VULNERABLE: Record<string, string> = {
  '/bundles/config.js': `window.SHOP_CONFIG = { region: "eu-west-1", awsAccessKeyId: "${AWS_KEY}", stripeKey: "${STRIPE_KEY}" };\n`,
  '/bundles/maps.js': `const map = new google.maps.Map(document.getElementById("map"), { center: { lat: 48.85, lng: 2.35 } });\nconst geocoder = "https://maps.googleapis.com/maps/api/geocode/json?key=${GOOGLE_KEY}";\n`,
  '/bundles/deploy.js': `// deploy helper\nexport const deployKey = "${PRIVATE_KEY}";\n`,
};
const SECRETS_SAFE: Record<string, string> = {
  '/bundles/config.js': `window.SHOP_CONFIG = { region: "eu-west-1", exampleKeyId: "AKIAIOSFODNN7EXAMPLE", stripeKey: "${join('pk_', 'live_', '51HqLr2Kd8Vb3Nf0Tq7Wm4Pz')}" };\n`,
  '/bundles/maps.js':
    'const map = new google.maps.Map(document.getElementById("map"), { center: { lat: 48.85, lng: 2.35 } });\nconst geocoder = "/api/geocode";\n',
  '/bundles/deploy.js': `// PEM helper\nexport const PEM_HEADER = "${join('-----BEGIN RSA ', 'PRIVATE KEY-----')}";\nexport const publicKey = "-----BEGIN PUBLIC KEY-----\\n${KEY_BODY}\\n-----END PUBLIC KEY-----";\n`,
};

const routes: Record<string, (request: SiteRequest) => SiteResponse> = {
  '/.svn/wc.db': (r) =>
    r.isSafe
      ? softNotFound(r)
      : {
          status: 200,
          headers: { 'content-type': 'application/octet-stream' },
          body: 'SQLite format 3\u0000\u0010\u0000\u0001\u0001\u0000@  \u0000\u0000\u0000\u0007CREATE TABLE REPOSITORY (id INTEGER PRIMARY KEY AUTOINCREMENT, root TEXT UNIQUE NOT NULL, uuid TEXT NOT NULL)\u0000CREATE TABLE NODES (wc_id INTEGER NOT NULL, local_relpath TEXT NOT NULL)',
        },
  '/.svn/entries': (r) => (r.isSafe ? softNotFound(r) : { status: 200, headers: text, body: '12\n' }),
  '/.env': (r) =>
    r.isSafe
      ? softNotFound(r)
      : {
          status: 200,
          headers: text,
          body: 'APP_NAME=FixtureShop\nAPP_ENV=production\nAPP_KEY=base64:q9Zt3mW1xYv8Lr2Kd5Nf0Tq7Wm4Pz6Hc\n\n# database\nDB_HOST=db.internal\nDB_USERNAME=shop\nDB_PASSWORD=Sh0p-DB-pass\n',
        },
  '/.env.production': (r) =>
    r.isSafe
      ? forbidden
      : {
          status: 200,
          headers: text,
          body: 'export NODE_ENV=production\nexport DATABASE_URL="postgres://app:s3cret@db:5432/app"\nexport SESSION_SECRET=7f3a9c2e5b8d1f4a\n',
        },
  '/phpinfo.php': (r) => (r.isSafe ? softNotFound(r) : { status: 200, headers: html, body: PHPINFO }),
  '/diagnostics/runtime.php': (r) =>
    r.isSafe
      ? page(
          'Runtime diagnostics',
          '<p>Runtime diagnostics are disabled. PHP Version information is shown to administrators only.</p>',
        )
      : { status: 200, headers: html, body: PHPINFO },
  '/server-status': (r) =>
    r.isSafe
      ? forbidden
      : page(
          'Apache Status',
          '<h1>Apache Server Status for 127.0.0.1 (via 127.0.0.1)</h1><dl><dt>Server Version: Apache/2.4.57 (Debian)</dt><dt>Server uptime:  3 days 2 hours 7 minutes</dt><dt>2 requests currently being processed, 73 idle workers</dt></dl><pre>__W__K_..........</pre><table><tr><td>10.0.0.7</td><td>GET /account?token=4f2a HTTP/1.1</td></tr></table>',
        ),
  '/server-info': (r) =>
    r.isSafe
      ? forbidden
      : page(
          'Server Information',
          '<h1>Apache Server Information</h1><h2><a name="server">Server Settings</a></h2><dl><dt><strong>Server Version:</strong> <tt>Apache/2.4.57 (Debian)</tt></dt></dl><dt><strong>Module Name:</strong> <tt>mod_status.c</tt></dt>',
        ),
  '/legacy/product.php': () => page('Products', '<p>Our catalogue: blue shoe, red shoe.</p>'),
  '/legacy/product.php.bak': (r) =>
    r.isSafe
      ? softNotFound(r)
      : { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: PHP_SOURCE('product.php') },
  '/legacy/contact.php': () => page('Contact', '<p>Write to shop@example.com.</p>'),
  '/legacy/contact.php~': (r) =>
    r.isSafe ? softNotFound(r) : { status: 200, headers: text, body: PHP_SOURCE('contact.php (editor backup)') },
  '/legacy/search.php': () => page('Search', '<p>Search the catalogue.</p>'),
  '/legacy/.search.php.swp': (r) =>
    r.isSafe
      ? softNotFound(r)
      : {
          status: 200,
          headers: { 'content-type': 'application/octet-stream' },
          body: `b0VIM 8.2\u0000\u0000\u0000\u0000\u0010\u0000\u0000www-data\u0000shop-web-1\u0000/var/www/legacy/search.php\u0000${PHP_SOURCE('search.php')}`,
        },
  '/legacy/report.html': () => page('Quarterly report', '<p>Revenue grew in every region this quarter.</p>'),
  '/legacy/report.html.old': (r) =>
    r.isSafe
      ? softNotFound(r)
      : page(
          'Quarterly report (draft, internal)',
          '<p>DRAFT: figures before the audit. Staging admin login: admin / Winter2019! Do not publish.</p><!-- TODO remove before release -->',
        ),
  '/backoffice/settings.php': () => page('Back-office settings', '<p>Please sign in to change settings.</p>'),
  '/backoffice/settings.php.orig': (r) =>
    r.isSafe
      ? softNotFound(r)
      : {
          status: 200,
          headers: text,
          body: `<<<<<<< HEAD\n${PHP_SOURCE('settings.php')}=======\n<?php $admin_password = 'changeme';\n>>>>>>> release\n`,
        },
  '/bundles/app.bundle.js': (r) => ({
    status: 200,
    headers: js,
    body: r.isSafe ? APP_BUNDLE : `${APP_BUNDLE}//# sourceMappingURL=app.bundle.js.map\n`,
  }),
  '/bundles/app.bundle.js.map': (r) =>
    r.isSafe ? notFound : { status: 200, headers: json, body: SOURCE_MAP('app.bundle.js') },
  '/bundles/vendor.js': () => ({ status: 200, headers: js, body: '/*! vendor */var vendor={version:"1.0.0"};\n' }),
  '/bundles/vendor.js.map': (r) =>
    r.isSafe ? softNotFound(r) : { status: 200, headers: json, body: SOURCE_MAP('vendor.js') },
  '/bundles/widget.js': (r) => ({
    status: 200,
    headers: js,
    body: `var widget={open:function(){}};\n${r.isSafe ? '' : `//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(SOURCE_MAP('widget.js')).toString('base64')}\n`}`,
  }),
  // A git checkout deployed as the web root; the safe twin denies every path under /.git/.
  '/.git/HEAD': (r) => (r.isSafe ? forbidden : { status: 200, headers: text, body: 'ref: refs/heads/main\n' }),
  // An upload folder with autoindex on; the safe twin forbids listing it.
  '/uploads/': (r) =>
    r.isSafe
      ? forbidden
      : page(
          'Index of /uploads',
          '<table><tr><th>Name</th><th>Last modified</th><th>Size</th></tr><tr><td><a href="/">Parent Directory</a></td></tr><tr><td><a href="invoice-2031.pdf">invoice-2031.pdf</a></td><td>2026-10-02 09:14</td><td>88K</td></tr><tr><td><a href="customers.csv">customers.csv</a></td><td>2026-10-05 17:40</td><td>1.2M</td></tr></table><address>Apache/2.4.57 (Debian) Server at 127.0.0.1 Port 80</address>',
        ),
  // Default files a package left in the web root; the safe twin removed them (or has an article quoting one).
  '/index.nginx-debian.html': (r) =>
    r.isSafe
      ? page(
          'Moving off the default page',
          '<p>Our first server answered "Welcome to nginx!" for a week; the nginx tutorial we followed said the page means a server nobody configured.</p>',
        )
      : { status: 200, headers: html, body: NGINX_DEFAULT },
  '/iisstart.htm': (r) => (r.isSafe ? notFound : { status: 200, headers: html, body: IIS_DEFAULT }),
  // A configuration script runs to an empty page; its backup copy is served as source (the safe twin has none).
  '/config.php': () => ({ status: 200, headers: html, body: '' }),
  '/config.php.bak': (r) =>
    r.isSafe
      ? notFound
      : { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: PHP_SOURCE('config.php') },
  '/checkout-widget': (r) => {
    const tokens = r.isSafe
      ? { slack: 'xoxb-your-token-here', github: `ghp_${'x'.repeat(36)}` }
      : { slack: SLACK_TOKEN, github: GITHUB_TOKEN };
    return page(
      'Checkout',
      `<div id="chat"></div><script>window.support = { slackToken: "${tokens.slack}", githubToken: "${tokens.github}" };</script>`,
    );
  },
};

function handle(request: SiteRequest): SiteResponse | undefined {
  const path = request.url.pathname;
  const trace = TRACES[path];
  if (trace !== undefined) return request.isSafe ? (SAFE_TRACES[path] ?? serverError()) : trace;
  const secrets = (request.isSafe ? SECRETS_SAFE : SECRETS_VULNERABLE)[path];
  if (secrets !== undefined) return { status: 200, headers: js, body: secrets };
  const route = routes[path];
  if (route !== undefined) return route(request);
  // Soft-404 directories: any other name answers 200 "not found" (on the vulnerable site too under /backoffice/).
  if (path.startsWith('/backoffice/') || (request.isSafe && path.startsWith('/legacy/'))) return softNotFound(request);
  return undefined;
}

const spot = (id: string, checkId: string, location: string, description: string): Spot => ({
  id,
  class: 'exposure',
  checkId,
  location,
  description,
});

const spots: Spot[] = [
  spot(
    'git-head',
    'exposed-git',
    '/.git/HEAD',
    'the .git directory of a checkout is served: /.git/HEAD answers a branch ref',
  ),
  spot(
    'directory-listing',
    'directory-listing',
    '/uploads/',
    'Apache autoindex lists an upload folder with invoices and a customer export',
  ),
  spot('svn-wc-db', 'exposed-svn', '/.svn/', '/.svn/wc.db and /.svn/entries of a Subversion working copy are served'),
  spot('env-file', 'exposed-env-file', '/.env', 'the Laravel-style .env with database credentials is served'),
  spot('env-production', 'exposed-env-file', '/.env.production', 'a .env.production with `export` lines is served'),
  spot('backup-bak', 'backup-files', '/legacy/product.php.bak', 'the PHP source of product.php as .bak'),
  spot('backup-tilde', 'backup-files', '/legacy/contact.php~', 'an editor backup (~) of contact.php'),
  spot('backup-swap', 'backup-files', '/legacy/.search.php.swp', 'a vim swap file of search.php'),
  spot('backup-old', 'backup-files', '/legacy/report.html.old', 'an older internal draft of report.html'),
  spot(
    'backup-orig-soft-404',
    'backup-files',
    '/backoffice/settings.php.orig',
    'a merge leftover of settings.php in a directory answering soft-404s for any other name',
  ),
  spot(
    'backup-well-known',
    'backup-files',
    '/config.php.bak',
    'the PHP source of a configuration script at a well-known name, as .bak',
  ),
  spot(
    'default-page-nginx',
    'default-page',
    '/index.nginx-debian.html',
    "the welcome page of Debian's nginx package left in the web root",
  ),
  spot('default-page-iis', 'default-page', '/iisstart.htm', 'the IIS start page left in the web root'),
  spot('phpinfo-probed', 'phpinfo', '/phpinfo.php', 'phpinfo() at the usual path (not linked)'),
  spot('phpinfo-crawled', 'phpinfo', '/diagnostics/runtime.php', 'phpinfo() output on a linked diagnostics page'),
  spot('server-status', 'server-status', '/server-status', 'Apache mod_status open to anyone'),
  spot('server-info', 'server-status', '/server-info', 'Apache mod_info open to anyone'),
  spot('trace-python', 'stack-trace', '/reports/export', 'a Python traceback on a 500 page'),
  spot('trace-java', 'stack-trace', '/orders/history', 'a Java stack trace on a Tomcat 500 page'),
  spot('trace-php', 'stack-trace', '/cart/update', 'a PHP fatal error with file paths'),
  spot(
    'trace-aspnet',
    'stack-trace',
    '/members/Profile.aspx',
    'the ASP.NET error page with exception details and stack trace',
  ),
  spot('trace-node', 'stack-trace', '/svc/users', 'a Node.js stack trace in a JSON error body'),
  spot('debug-django', 'stack-trace', '/django-blog/', 'the Django DEBUG = True 404 page'),
  spot('debug-rails', 'stack-trace', '/rails-store/', 'the Rails development exception page'),
  spot('debug-laravel', 'stack-trace', '/laravel-portal/', 'a Laravel debug page with framework frames'),
  spot(
    'sourcemap-comment',
    'source-map',
    '/bundles/app.bundle.js.map',
    'the map named by //# sourceMappingURL= is served',
  ),
  spot(
    'sourcemap-probed',
    'source-map',
    '/bundles/vendor.js.map',
    'vendor.js.map is served though no comment names it',
  ),
  spot('sourcemap-inline', 'source-map', '/bundles/widget.js', 'a full source map inlined as a data: URL'),
  spot(
    'secrets-aws-stripe',
    'secrets-in-javascript',
    '/bundles/config.js',
    'an AWS access key ID and a Stripe live secret key in a config script',
  ),
  spot('secrets-google', 'secrets-in-javascript', '/bundles/maps.js', 'a Google API key in a maps script'),
  spot(
    'secrets-inline',
    'secrets-in-javascript',
    '/checkout-widget',
    'a Slack bot token and a GitHub token in an inline script',
  ),
  spot('secrets-private-key', 'secrets-in-javascript', '/bundles/deploy.js', 'an RSA private key in a script'),
];

export const exposureModule: SiteModule = {
  name: 'exposure',
  spots,
  links: [
    '/uploads/',
    '/config.php',
    '/legacy/product.php',
    '/legacy/contact.php',
    '/legacy/search.php',
    '/legacy/report.html',
    '/backoffice/settings.php',
    '/diagnostics/runtime.php',
    ...Object.keys(TRACES),
    '/bundles/app.bundle.js',
    '/bundles/vendor.js',
    '/bundles/widget.js',
    ...Object.keys(SECRETS_VULNERABLE),
    '/checkout-widget',
  ],
  handle,
};
