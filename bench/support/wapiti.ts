import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Spot } from '../../test/support/vulnerable-site/types.ts';

/**
 * Wapiti (Debian's `wapiti` package, 3.0.x) as the benchmark's reference DAST scanner: run it
 * against a fixture twin, read its JSON report, and say which manifest spots its findings are.
 */

/** One finding of wapiti's JSON report (`vulnerabilities` → category → list). */
export interface WapitiFinding {
  category: string;
  method: string;
  /** The path without the query string (wapiti's `file_path`). */
  path: string;
  parameter: string;
  info: string;
}

/**
 * Wapiti's modules that apply to the fixture's classes. Left out: `csrf`, `htaccess` and
 * `shellshock` (no counterpart among our checks or spots: they would only add time) and `wapp`
 * (fingerprinting, another issue's engine; it also downloads its database from the internet).
 * `ssrf` and `xxe` are run, but wapiti confirms most of their payloads through its public
 * endpoint (wapiti3.ovh), which this machine cannot reach: see `wapitiOffline`.
 */
export const wapitiModules = [
  'backup',
  'blindsql',
  'brute_login_form',
  'buster',
  'cookieflags',
  'crlf',
  'csp',
  'exec',
  'file',
  'http_headers',
  'methods',
  'nikto',
  'permanentxss',
  'redirect',
  'sql',
  'ssrf',
  'xss',
  'xxe',
];

/** Checks whose wapiti module needs its internet endpoint to confirm anything out of band. */
export const wapitiOffline = new Set(['server-side-request-forgery']);

/** Wapiti's report categories and the checks of ours that report the same class. */
export const wapitiCategories: Record<string, string[]> = {
  'SQL Injection': ['sql-injection'],
  'Blind SQL Injection': ['sql-injection'],
  'Cross Site Scripting': ['reflected-xss', 'stored-xss'],
  'Command execution': ['command-injection'],
  'Path Traversal': ['path-traversal'],
  'Open Redirect': ['open-redirect'],
  'CRLF Injection': ['crlf-injection'],
  'XML External Entity': ['xml-external-entity'],
  'Server Side Request Forgery': ['server-side-request-forgery'],
  'Backup file': ['backup-files'],
  // nikto's and buster's finds: any known sensitive path.
  'Potentially dangerous file': [
    'exposed-git',
    'exposed-svn',
    'exposed-env-file',
    'phpinfo',
    'server-status',
    'directory-listing',
    'backup-files',
  ],
  'HTTP Secure Headers': ['http-security-headers'],
  'Content Security Policy Configuration': ['http-security-headers'],
  'HttpOnly Flag cookie': ['cookie-flags'],
  'Secure Flag cookie': ['cookie-flags'],
  'Weak credentials': ['default-credentials'],
};

/** Our check ids that some wapiti module reports (the classes "both cover"). */
export function wapitiCoveredChecks(): Set<string> {
  return new Set(Object.values(wapitiCategories).flat());
}

/** `wapiti --version`, or undefined when it is not installed. */
export function wapitiVersion(): string | undefined {
  const run = spawnSync('wapiti', ['--version'], { encoding: 'utf8' });
  if (run.error !== undefined || run.status !== 0) return undefined;
  return /Wapiti[- ]?([\d.]+)/i.exec(`${run.stdout}${run.stderr}`)?.[1] ?? 'unknown';
}

export interface WapitiRun {
  durationMs: number;
  findings: WapitiFinding[];
  exitCode: number | null;
}

/** Runs wapiti with its defaults (scope folder, normal force, its own timeout) and the modules above. */
export async function runWapiti(origin: string, signal: AbortSignal): Promise<WapitiRun> {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-wapiti-'));
  const report = join(dir, 'report.json');
  const args = [
    '-u',
    `${origin}/`,
    '--scope',
    'folder',
    '-m',
    wapitiModules.join(','),
    '--flush-session',
    '--store-session',
    join(dir, 'session'),
    '--store-config',
    join(dir, 'config'),
    '-f',
    'json',
    '-o',
    report,
    '-v',
    '0',
    '--no-bugreport',
  ];
  const started = performance.now();
  try {
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('wapiti', args, { stdio: ['ignore', 'ignore', 'pipe'], signal });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)));
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve(code) : reject(new Error(`wapiti exited with ${code}: ${stderr}`)),
      );
    });
    const durationMs = performance.now() - started;
    return { durationMs, exitCode, findings: parseWapitiReport(readFileSync(report, 'utf8')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The findings of a wapiti JSON report. */
export function parseWapitiReport(text: string): WapitiFinding[] {
  const report = JSON.parse(text) as {
    vulnerabilities?: Record<string, Array<{ method?: string; path?: string; parameter?: string; info?: string }>>;
  };
  return Object.entries(report.vulnerabilities ?? {}).flatMap(([category, list]) =>
    list.map((v) => ({
      category,
      method: v.method ?? 'GET',
      path: v.path ?? '/',
      parameter: v.parameter ?? '',
      info: v.info ?? '',
    })),
  );
}

/** A spot location split into its path and what follows `?` (`?id=`, `?body=q`, `?header=x`). */
function splitLocation(location: string): { path: string; query: URLSearchParams | undefined } {
  const at = location.indexOf('?');
  return at < 0
    ? { path: location, query: undefined }
    : { path: location.slice(0, at), query: new URLSearchParams(location.slice(at + 1)) };
}

/**
 * Whether a wapiti finding is this spot: a category that reports the spot's check, and the
 * same place: the path (a prefix for `/{}` path segments and for directories), the parameter
 * for injection spots, the header or cookie named in wapiti's text for header and cookie spots.
 */
export function wapitiFindsSpot(finding: WapitiFinding, spot: Spot): boolean {
  if (!(wapitiCategories[finding.category] ?? []).includes(spot.checkId)) return false;
  const { path, query } = splitLocation(spot.location);
  const info = finding.info.toLowerCase();
  if (query?.has('header') === true && spot.checkId === 'http-security-headers')
    return (
      info.includes(query.get('header')!.toLowerCase()) ||
      (query.get('header') === 'content-security-policy' && finding.category.startsWith('Content Security Policy'))
    );
  if (query?.has('cookie') === true && spot.checkId === 'cookie-flags') {
    const flag = query.get('flag');
    const categoryFlag = finding.category.startsWith('HttpOnly')
      ? 'httponly'
      : finding.category.startsWith('Secure')
        ? 'secure'
        : undefined;
    return flag === categoryFlag && info.includes(query.get('cookie')!.toLowerCase());
  }
  if (path.endsWith('/{}')) return finding.path.startsWith(path.slice(0, -2));
  // Stored XSS: wapiti names the page where the payload was injected; our spot names the same form target.
  if (query !== undefined) {
    const [[key, value] = ['', '']] = [...query.entries()];
    const parameter = value === '' ? key : value;
    return finding.path === path && finding.parameter === parameter;
  }
  if (path.endsWith('/')) return finding.path.startsWith(path);
  return finding.path === path;
}
