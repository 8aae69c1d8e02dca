import type { BodyEvidence, FindingKind } from './finding-builder.ts';
import { createPathProbeCheck } from './exposure-probe.ts';
import type { PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the exposed-svn check. */
export const exposedSvnCheckId = 'exposed-svn';

const KIND: FindingKind = {
  checkId: exposedSvnCheckId,
  title: 'Subversion working copy exposed (/.svn/ readable)',
  cwe: 527,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
  severity: 'high',
  owasp: 'A05:2021-Security Misconfiguration',
  description:
    'The web server serves the `.svn` metadata of a Subversion working copy: `/.svn/wc.db` (SVN 1.7 and later) or `/.svn/entries` answers the real file.',
  risk: 'The working-copy database lists every file of the checkout and the repository URL; with the pristine copies under `/.svn/pristine/` an attacker rebuilds the source code, configuration and secrets included.',
  remediation:
    'Deploy exported build artefacts rather than working copies (`svn export`), or deny every path under `/.svn/` in the web server; rotate secrets that were in the source.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information',
      name: 'OWASP WSTG: Review old backup and unreferenced files',
    },
  ],
};

const SQLITE_HEADER = 'SQLite format 3\u0000';

/**
 * The Subversion metadata a body holds, or undefined: a `wc.db` (an SQLite file whose schema
 * names the working-copy tables) or an `entries` file (format 8–10: the number, `dir`, the
 * revision and the repository URL; the old XML `<wc-entries xmlns="svn:">`; from 1.7 on just `12`).
 */
export function findSvnMetadata(body: string): BodyEvidence | undefined {
  if (body.startsWith(SQLITE_HEADER)) {
    return /CREATE TABLE (?:WCROOT|NODES|REPOSITORY|PRISTINE)\b/.test(body)
      ? { value: 'SQLite format 3', offset: 0 }
      : undefined;
  }
  const entries = /^(?:8|9|10)\r?\n\r?\ndir\r?\n\d+\r?\n((?:https?|svn(?:\+ssh)?|file):\/\/[^\s]+)\r?\n/.exec(body);
  if (entries?.[1] !== undefined) return { value: entries[1], offset: entries[0].indexOf(entries[1]) };
  const xml = /<wc-entries\s+xmlns="svn:"/.exec(body);
  if (xml !== null) return { value: xml[0], offset: xml.index };
  return /^12\r?\n?$/.test(body) ? { value: '12', offset: 0 } : undefined;
}

/**
 * Exposed Subversion working copy: GET /.svn/wc.db, then /.svn/entries, once per origin (at most
 * two requests); reported when the body really is SVN metadata. One finding per origin at
 * `origin/.svn/`.
 */
export function createExposedSvnCheck(): PageCheck {
  return createPathProbeCheck({
    kind: KIND,
    paths: ['/.svn/wc.db', '/.svn/entries'],
    isOnePerOrigin: true,
    locationPath: () => '/.svn/',
    recognise: (exchange) => findSvnMetadata(exchange.body),
    observe: (url, found) => `${url.href} answers Subversion working-copy metadata ("${found.value}").`,
  });
}
