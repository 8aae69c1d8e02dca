import { createPathProbeCheck, type Recognised } from './exposure-probe.ts';
import type { FindingKind } from './finding-builder.ts';
import type { PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the default-page check. */
export const defaultPageCheckId = 'default-page';

const KIND: FindingKind = {
  checkId: defaultPageCheckId,
  title: 'Web server default page',
  cwe: 1188,
  cvssVector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
  severity: 'low',
  owasp: 'A05:2021-Security Misconfiguration',
  description:
    'The web server answers the welcome page its package installs (Apache, nginx, IIS, Tomcat) instead of the site, or still keeps that page next to the site.',
  risk: 'A default page marks a server that was installed and never configured or forgotten: it names the server software and often the operating system, and such hosts tend to miss updates and hardening.',
  remediation:
    "Serve the intended site (or nothing: close the port) on this origin, and delete the distribution's default files from the web root (`index.nginx-debian.html`, `iisstart.htm`, the Apache test page).",
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/02-Test_Application_Platform_Configuration',
      name: 'OWASP WSTG: Test application platform configuration',
    },
  ],
};

/** One server's welcome page: the text that identifies it and a second marker it must have. */
interface Signature {
  server: string;
  /** The evidence: the page's heading or title. */
  pattern: RegExp;
  /** A second marker of the real page (its installed sentence, its image), so prose quoting the heading is not one. */
  confirm: RegExp;
}

// Short identifying phrases of the pages the packages install (Debian/Ubuntu, RHEL/Fedora, upstream, Windows).
const SIGNATURES: Signature[] = [
  {
    server: 'nginx',
    pattern: /<(?:title|h1)>Welcome to nginx!<\/(?:title|h1)>/,
    confirm: /nginx web server is successfully installed/,
  },
  {
    server: 'Apache (Debian/Ubuntu)',
    pattern: /Apache2 (?:Debian|Ubuntu) Default Page/,
    confirm: /It works!|default welcome page used to test the correct operation/,
  },
  {
    server: 'Apache (Red Hat/Fedora)',
    pattern: /Test Page for the (?:Apache )?HTTP Server/,
    confirm: /This page is used to test the proper operation of the (?:Apache )?HTTP server/i,
  },
  {
    server: 'Apache',
    pattern: /<h1>It works!<\/h1>/,
    confirm: /^\s*<html><body><h1>It works!<\/h1>(?:\s*<p>This is the default web page for this server\.<\/p>)?/,
  },
  {
    server: 'IIS',
    pattern: /<title>(?:IIS Windows(?: Server)?|IIS[78](?:\.5)?|Microsoft Internet Information Services \d+)<\/title>/,
    confirm: /(?:iisstart|welcome|iis-\d+)\.png/i,
  },
  {
    server: 'Tomcat',
    pattern: /If you're seeing this, you've successfully installed Tomcat\. Congratulations!/,
    confirm: /Apache Tomcat/,
  },
];

/** The server default page a body is (with its title), or undefined. */
export function findDefaultPage(body: string): Recognised | undefined {
  for (const signature of SIGNATURES) {
    const match = signature.pattern.exec(body);
    if (match === null || !signature.confirm.test(body)) continue;
    return { value: match[0], offset: match.index, title: `${KIND.title}: ${signature.server}` };
  }
  return undefined;
}

/**
 * Server default pages: every crawled page is judged (the start page of a forgotten host is
 * the usual place), and the default files Debian's nginx and IIS leave in the web root,
 * `/index.nginx-debian.html` and `/iisstart.htm`, are requested once per origin (two requests).
 * One finding per origin and path.
 */
export function createDefaultPageCheck(): PageCheck {
  return createPathProbeCheck({
    kind: KIND,
    paths: ['/index.nginx-debian.html', '/iisstart.htm'],
    isPassive: true,
    recognise: (exchange) => findDefaultPage(exchange.body),
    observe: (url, found) => `${url.href} answers a web server's default page ("${found.value}").`,
  });
}
