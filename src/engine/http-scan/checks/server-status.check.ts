import { createPathProbeCheck, type Recognised } from './exposure-probe.ts';
import type { FindingKind } from './finding-builder.ts';
import type { PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the server-status check. */
export const serverStatusCheckId = 'server-status';

const KIND: FindingKind = {
  checkId: serverStatusCheckId,
  title: 'Apache server-status or server-info exposed',
  cwe: 497,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  severity: 'medium',
  owasp: 'A05:2021-Security Misconfiguration',
  description: "Apache's `mod_status` (`/server-status`) or `mod_info` (`/server-info`) pages answer anyone.",
  risk: 'server-status shows every request being served, with client addresses, virtual hosts and full URLs (tokens in query strings included); server-info shows the modules and the whole configuration.',
  remediation:
    'Restrict the handlers to administrators (`<Location "/server-status"> Require ip 127.0.0.1 </Location>`, likewise for `/server-info`) or unload `mod_status` and `mod_info`.',
  references: [
    { link: 'https://httpd.apache.org/docs/2.4/mod/mod_status.html', name: 'Apache HTTP Server: mod_status' },
    { link: 'https://httpd.apache.org/docs/2.4/mod/mod_info.html', name: 'Apache HTTP Server: mod_info' },
  ],
};

// mod_status in HTML ("Apache Server Status for host") or the machine form (`?auto`, also what a
// proxied status answers), and mod_info ("Apache Server Information").
const STATUS_HEADING = /Apache Server Status for [^<\n]+/;
const STATUS_DETAILS = /Server uptime|Scoreboard Key|requests currently being processed|Current Time:/;
const STATUS_AUTO = /^(?:ServerVersion|Total Accesses): [^\n]+$/m;
const STATUS_SCOREBOARD = /^Scoreboard: [_SRWKDCLGI.]+\s*$/m;
const INFO_HEADING = /Apache Server Information/;
const INFO_DETAILS = [/Server Settings/, /Module Name:/, /Server Version:/, /Current Configuration:/];

/** The Apache status or info page a body shows (with its title), or undefined. */
export function findServerStatus(body: string): Recognised | undefined {
  const heading = STATUS_HEADING.exec(body);
  if (heading !== null && STATUS_DETAILS.test(body))
    return { value: heading[0], offset: heading.index, title: 'Apache server-status page exposed' };
  const auto = STATUS_AUTO.exec(body);
  if (auto !== null && STATUS_SCOREBOARD.test(body))
    return { value: auto[0], offset: auto.index, title: 'Apache server-status page exposed' };
  const info = INFO_HEADING.exec(body);
  if (info !== null && INFO_DETAILS.filter((marker) => marker.test(body)).length >= 2)
    return { value: info[0], offset: info.index, title: 'Apache server-info page exposed' };
  return undefined;
}

/**
 * Apache server-status and server-info: GET /server-status and /server-info once per origin (two
 * requests), and every crawled page judged as it arrives. One finding per origin and path.
 */
export function createServerStatusCheck(): PageCheck {
  return createPathProbeCheck({
    kind: KIND,
    paths: ['/server-status', '/server-info'],
    isPassive: true,
    recognise: (exchange) => findServerStatus(exchange.body),
    observe: (url, found) => `${url.href} answers an Apache status page ("${found.value}").`,
  });
}
