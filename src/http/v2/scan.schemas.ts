import { Type } from '@sinclair/typebox';
import {
  basicAuthPasswordPattern,
  basicAuthUsernamePattern,
  cookieTextPattern,
  profileExtensionLimits,
  profileSettingRanges,
  scanRegions,
  settingsHeaderNamePattern,
  settingsHeaderValuePattern,
  settingsPathPattern,
  settingsSubdomainPattern,
  settingsUrlMaxLength,
  settingsUrlPattern,
} from '../../core/scans/scan-profile-settings.ts';
import { scanStatuses, scheduleFrequencies } from '../../core/scans/scan.types.ts';
import { Timestamp, Token } from './schemas.ts';

const statusDescription =
  'starting (queued; a worker takes it within seconds), running, stopping (a stop was asked for), then one final value: stopped (by request), ' +
  'completed, unable_to_resolve (the endpoint has no address), unable_to_complete (it did not answer, the egress guard refused it, or the scan failed; `error` says why).';

const ScanStatusValue = Type.Union(
  scanStatuses.map((s) => Type.Literal(s)),
  { description: statusDescription },
);

/** The path parameter of every operation on one profile. */
export const ProfileTokenParam = Type.Object({ scanProfileToken: Token });

/** The latest scan as a profile shows it. */
export const LatestScan = Type.Object({
  started: Type.Optional(Timestamp),
  ended: Type.Optional(Timestamp),
  status: ScanStatusValue,
  error: Type.String({ description: 'Why the scan did not complete; empty otherwise' }),
  warnings: Type.Array(Type.String()),
});

/** The v2 wire schema of a scan profile. */
export const ScanProfileSchema = Type.Object(
  {
    token: Token,
    name: Type.String({ maxLength: 255 }),
    endpoint: Type.String({ description: '[scheme://]host[:port] as given at creation, normalised' }),
    created: Timestamp,
    latest_scan: Type.Optional(LatestScan),
  },
  { $id: 'ScanProfile', description: 'latest_scan is absent until the profile is first scanned.' },
);

const Cookie = Type.Object({
  name: Type.String({ minLength: 1, description: 'No comma, semicolon or white space (2651 empty, 2652 malformed)' }),
  value: Type.String({ minLength: 1, description: 'No comma, semicolon or white space (2653 empty, 2654 malformed)' }),
  secure: Type.Optional(Type.Boolean()),
  httponly: Type.Optional(Type.Boolean()),
});
const Header = Type.Object({
  name: Type.String({ minLength: 1, description: '2657 when empty' }),
  value: Type.String({ minLength: 1, description: '2658 when empty' }),
});
const Port = Type.Integer({ minimum: 1, maximum: 65535 });

const SettingsUrl = (description: string) =>
  Type.String({ maxLength: settingsUrlMaxLength, pattern: settingsUrlPattern, description });
const loginText = (description: string) =>
  Type.Optional(
    Type.Union([Type.String({ maxLength: profileExtensionLimits.loginText }), Type.Null()], {
      description: `${description} (at most ${profileExtensionLimits.loginText} characters; null or empty: none)`,
    }),
  );
const loginSelector = (description: string) =>
  loginText(
    `${description}; the subset of CSS the scanner matches: type, #id, .class, attribute tests, comma lists, descendant and child combinators`,
  );

/** The start URLs extension (settings and updates alike). */
const StartUrls = Type.Array(SettingsUrl('A root-relative path (an optional query) or an absolute http(s) URL'), {
  maxItems: profileExtensionLimits.startUrls,
  description:
    "Extension: where the crawl begins besides /, robots.txt and sitemap.xml (at most 50). A URL outside the scan's scope is skipped with a warning.",
});

/** The render_javascript extension. */
const RenderJavascript = Type.Boolean({
  description:
    'Extension: pages are rendered in headless Chromium, links and forms come from the rendered DOM, and DOM-based XSS is tested (falls back with a warning where no browser is installed)',
});

/** The login extension (settings and updates alike); the values are shown as given, like basic_auth. */
const Login = Type.Union(
  [
    Type.Object(
      {
        url: SettingsUrl("The login form's page: a root-relative path (an optional query) or an absolute http(s) URL"),
        fields: Type.Array(
          Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: profileExtensionLimits.loginText }),
              value: Type.String({ maxLength: profileExtensionLimits.loginText }),
            },
            { additionalProperties: false },
          ),
          {
            minItems: 1,
            maxItems: profileExtensionLimits.loginFields,
            description:
              "Values typed into the login form (user name, password); the form's other fields (hidden inputs, the submit button) are taken from the page at each login",
          },
        ),
        logged_in_text: loginText('Text present only on a logged-in page'),
        logged_in_selector: loginSelector('A CSS selector matching only on a logged-in page'),
        logged_out_text: loginText('Text present only on a logged-out page'),
        logged_out_selector: loginSelector('A CSS selector matching only on a logged-out page'),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'Extension: a form login. The scanner logs in at the start of each scan, recognises a logout (a redirect to the login page, the login form where a page was expected, a 401, the logged-out indicator), logs in again and retries; it never requests what ends the session (logout, password changes, security-level switches). null removes it.',
  },
);

/** The settings of a profile; on update every field is optional. */
export const ProfileSettingsSchema = Type.Object(
  {
    basic_auth: Type.Optional(
      Type.Union([Type.Object({ username: Type.String(), password: Type.String() }), Type.Null()], {
        description: 'null removes it',
      }),
    ),
    blacklisted_paths: Type.Optional(
      Type.Array(Type.String({ pattern: '^/' }), {
        description: 'Root-relative paths never requested (prefix match; 2642)',
      }),
    ),
    blacklisted_ports: Type.Optional(Type.Array(Port, { description: '2643 outside 1-65535' })),
    blacklisted_subdomains: Type.Optional(
      Type.Array(Type.String(), { description: 'Subdomain parts (RFC 1035) never crawled (2641)' }),
    ),
    crawl_subdomains: Type.Optional(Type.Boolean()),
    custom_cookies: Type.Optional(Type.Array(Cookie)),
    custom_headers: Type.Optional(Type.Array(Header)),
    report_lifespan_days: Type.Optional(
      Type.Integer({ description: '7 to 10000, or 0 for the global lifetime (2671)' }),
    ),
    requests_per_second: Type.Optional(
      Type.Integer({
        description: '5 to 1000, or 0 for unlimited (2672); one budget per scan, crawler and checks together',
      }),
    ),
    scan_common_ports: Type.Optional(
      Type.Boolean({ description: 'Also scan the host on 80, 443, 3000, 8000, 8080 and 8443' }),
    ),
    scan_region: Type.Optional(
      Type.Union(
        scanRegions.map((r) => Type.Literal(r)),
        { description: 'Changing it needs the enterprise plan (1009); 2673 for another value' },
      ),
    ),
    session_cookie: Type.Optional(Type.Union([Cookie, Type.Null()], { description: 'null removes it' })),
    whitelisted_paths: Type.Optional(
      Type.Array(Type.String({ pattern: '^/' }), {
        description: 'When non-empty, only these paths (and the start page) are crawled',
      }),
    ),
    whitelisted_ports: Type.Optional(Type.Array(Port)),
    start_urls: Type.Optional(StartUrls),
    render_javascript: Type.Optional(RenderJavascript),
    login: Type.Optional(Login),
  },
  {
    $id: 'ScanProfileSettings',
    description: 'Partial update: absent fields stay, an empty array removes all. Body at most 30 KB (1052).',
  },
);

const cookieText = (what: string) =>
  Type.String({ pattern: cookieTextPattern, description: `No comma, semicolon or white space (${what})` });
const CookieUpdate = Type.Object(
  {
    name: cookieText('2651 empty, 2652 malformed'),
    value: cookieText('2653 empty, 2654 malformed'),
    secure: Type.Optional(Type.Boolean()),
    httponly: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const HeaderUpdate = Type.Object(
  {
    name: Type.String({ pattern: settingsHeaderNamePattern, description: 'An HTTP header name (2657 when empty)' }),
    value: Type.String({
      pattern: settingsHeaderValuePattern,
      description: 'One line, no white space at either end (2658 when empty)',
    }),
  },
  { additionalProperties: false },
);
const PathUpdate = Type.String({ pattern: settingsPathPattern });
const zeroOr = (field: keyof typeof profileSettingRanges, description: string) =>
  Type.Union(
    [
      Type.Literal(0),
      Type.Integer({ minimum: profileSettingRanges[field].min, maximum: profileSettingRanges[field].max }),
    ],
    {
      description,
    },
  );

/**
 * The body of a settings update: every field optional, nothing else. A body that fails it answers
 * the first failing field's own code (invalidProfileSettings), after the profile's lookup.
 */
export const ProfileSettingsUpdateSchema = Type.Object(
  {
    basic_auth: Type.Optional(
      Type.Union(
        [
          Type.Object({
            username: Type.String({
              pattern: basicAuthUsernamePattern,
              description: 'No colon, no control characters',
            }),
            password: Type.String({ pattern: basicAuthPasswordPattern, description: 'No control characters' }),
          }),
          Type.Null(),
        ],
        { description: 'null (or both fields empty) removes it' },
      ),
    ),
    blacklisted_paths: Type.Optional(
      Type.Array(PathUpdate, { description: 'Root-relative paths never requested (prefix match; 2642)' }),
    ),
    blacklisted_ports: Type.Optional(Type.Array(Port, { description: '2643 outside 1-65535' })),
    blacklisted_subdomains: Type.Optional(
      Type.Array(Type.String({ maxLength: 253, pattern: settingsSubdomainPattern }), {
        description: 'Subdomain parts (RFC 1035) never crawled (2641)',
      }),
    ),
    crawl_subdomains: Type.Optional(Type.Boolean()),
    custom_cookies: Type.Optional(Type.Array(CookieUpdate)),
    custom_headers: Type.Optional(Type.Array(HeaderUpdate)),
    report_lifespan_days: Type.Optional(
      zeroOr('report_lifespan_days', '7 to 10000, or 0 for the global lifetime (2671)'),
    ),
    requests_per_second: Type.Optional(
      zeroOr(
        'requests_per_second',
        '5 to 1000, or 0 for unlimited (2672); one budget per scan, crawler and checks together',
      ),
    ),
    scan_common_ports: Type.Optional(
      Type.Boolean({ description: 'Also scan the host on 80, 443, 3000, 8000, 8080 and 8443' }),
    ),
    scan_region: Type.Optional(
      Type.Union(
        scanRegions.map((r) => Type.Literal(r)),
        { description: 'Changing it needs the enterprise plan (1009); 2673 for another value' },
      ),
    ),
    session_cookie: Type.Optional(Type.Union([CookieUpdate, Type.Null()], { description: 'null removes it' })),
    whitelisted_paths: Type.Optional(
      Type.Array(PathUpdate, { description: 'When non-empty, only these paths (and the start page) are crawled' }),
    ),
    whitelisted_ports: Type.Optional(Type.Array(Port)),
    start_urls: Type.Optional(StartUrls),
    render_javascript: Type.Optional(RenderJavascript),
    login: Type.Optional(Login),
  },
  {
    $id: 'ScanProfileSettingsUpdate',
    additionalProperties: false,
    description: 'Partial update: absent fields stay, an empty array removes all. Body at most 30 KB (1052).',
  },
);

/** Scan status. */
export const ScanStatusSchema = Type.Object(
  {
    scan_profile_token: Token,
    created: Timestamp,
    started: Type.Optional(Timestamp),
    ended: Type.Optional(Timestamp),
    status: ScanStatusValue,
    error: Type.String({ description: 'Why the scan did not complete; empty otherwise' }),
    warnings: Type.Array(Type.String({ description: 'Limits hit, resumptions, skipped scheduled fires' })),
    state: Type.Union(
      ['starting', 'running', 'stopping', 'stopped'].map((s) => Type.Literal(s)),
      { description: 'For older clients: a finished scan of any outcome reads stopped' },
    ),
    phase: Type.Union(
      ['queued', 'scanning', 'stopping', 'finished'].map((s) => Type.Literal(s)),
      { description: 'For older clients' },
    ),
    progress: Type.Object(
      {
        pages_crawled: Type.Integer(),
        requests_sent: Type.Integer(),
        checks_done: Type.Integer(),
        findings: Type.Integer({ description: 'Distinct findings recorded so far' }),
        percentage: Type.Integer({
          minimum: 0,
          maximum: 100,
          description:
            'Extension: share of the work done, as the crawl knows it so far; never goes down, a resumed scan included, and 100 only once the scan completed',
        }),
        seconds_left: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
          description:
            'Extension: estimated seconds until a running scan ends, at the rate of its current run; null while there is too little to judge and when the scan is not running (0 once completed)',
        }),
      },
      {
        description:
          'Extension: counters of the scan, saved every second while it runs; none goes down when a scan is resumed on another worker (pages, checks and findings keep the highest count, requests add up)',
      },
    ),
  },
  { $id: 'ScanStatus' },
);

/** A scan schedule. */
export const ScheduleSchema = Type.Object(
  {
    scan_profile_token: Token,
    frequency: Type.Union(scheduleFrequencies.map((f) => Type.Literal(f))),
    first_scan: Type.Optional(Timestamp),
    next_scan: Type.Optional(Timestamp),
  },
  { $id: 'ScanSchedule', description: 'Without a schedule, frequency is never and the times are absent.' },
);
