import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScanLimits, ScanSink } from '../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings, type ScanProfileSettings } from '../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../src/core/vulnerabilities/vulnerability.types.ts';
import { defaultConfig } from '../src/config/config.ts';
import { createDnsResolver } from '../src/engine/dns/resolver.ts';
import { createHttpScanEngine } from '../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../src/engine/net/egress-guard.ts';
import {
  realisticAccounts,
  realisticManifest,
  wapitiCategoriesOf,
  type RealisticClass,
  type RealisticSpot,
} from '../test/support/realistic-app/manifest.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { writeResult } from './support/report.ts';
import { startRealisticAppProcess } from './support/site-process.ts';
import { parseWapitiReport, wapitiVersion, type WapitiFinding } from './support/wapiti.ts';

/**
 * The application scanner against wapiti on the realistic application (issue 37, item 7):
 * test/support/realistic-app, a login-gated DVWA-like site with expiring sessions, button-gated
 * forms, a script-built menu and 10–50 ms answers, each twin in a child process of its own
 * that counts what it receives. Both tools log in with the same account; recall is measured
 * per class on the vulnerable twin's manifest, false positives on the safe twin.
 *
 * Environment: BENCH_REALISTIC_TOOLS (`perimeter`, `wapiti` or both, the default: one tool
 * alone learns its time without the other's), BENCH_REALISTIC_TWINS (`vulnerable`, `safe` or
 * both, the default), BENCH_REALISTIC_JS=0 (perimeter without rendering: the script-only pages
 * leave its reachable manifest).
 */
export const benchmark: Benchmark = {
  name: 'app-scanner-realistic',
  description:
    'perimeter vs wapiti, logged in, on the realistic application and its safe twin: recall per class, false positives, wall time, requests, own login kept',
  run,
};

type Tool = 'perimeter' | 'wapiti';
type Twin = 'vulnerable' | 'safe';

/** The service's own scan limits (config defaults), so the bench scans as a deployment does. */
const limits: ScanLimits = {
  maxPages: defaultConfig.scanMaxPages,
  maxDepth: defaultConfig.scanMaxDepth,
  maxDurationMs: defaultConfig.scanMaxDurationMs,
  requestTimeoutMs: defaultConfig.scanRequestTimeoutMs,
};

/** Wapiti's modules for the manifest's classes. */
export const realisticWapitiModules = [
  'blindsql',
  'brute_login_form',
  'csrf',
  'exec',
  'file',
  'permanentxss',
  'redirect',
  'sql',
  'xss',
];

/**
 * Debian's wapiti 3.0.4 cannot take `-x` on Python 3.11: its `wildcard_translate` puts the
 * regular expression's global flags at the end (`…\Z(?ms)`), which Python 3.11 refuses, and the
 * crawl dies. wapiti is started through this wrapper, which puts the flags first (the same
 * expression, accepted), then runs wapiti's own entry point with the arguments unchanged, on
 * Debian's python3 (the one /usr/bin/wapiti's first line names).
 */
const WAPITI_WRAPPER = `import re, sys
import wapitiCore.net.crawler as crawler
def wildcard_translate(pattern):
    return re.compile(r'(?ms)' + ''.join('.*' if c == '*' else re.escape(c) for c in pattern) + r'\\Z')
crawler.wildcard_translate = wildcard_translate
from wapitiCore.main.wapiti import wapiti_main
sys.argv = ['wapiti'] + sys.argv[1:]
sys.exit(wapiti_main())
`;

/** A bound on wapiti's run (its own scan time limit), so a wedged run cannot hold the bench. */
const wapitiMaxScanSeconds = 1800;

/** One finding of either tool, reduced to what the manifest matches on. */
interface Found {
  /** Our check id, or wapiti's category. */
  kind: string;
  path: string;
  parameter: string;
  text: string;
}

interface ToolRun {
  durationMs: number;
  requests: number;
  findings: Found[];
  /** The twin's counters after the scan: logins, failed logins, password and level changes, expired sessions. */
  counters: Record<string, number>;
  warnings: string[];
}

function listOf(name: string, allowed: string[]): string[] {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return allowed;
  const values = text.split(',').map((v) => v.trim());
  const bad = values.filter((v) => !allowed.includes(v));
  if (bad.length > 0) throw new Error(`${name}: unknown ${bad.join(', ')} (allowed: ${allowed.join(', ')})`);
  return values;
}

/** A finding's location split into path and parameter (`?id=` → id; `?body=q`, `?cookie=c`, `?session_cookie=c` → q, c). */
function splitLocation(location: string): { path: string; parameter: string } {
  const url = new URL(location, 'http://site.invalid');
  const [[key, value] = ['', '']] = [...url.searchParams.entries()];
  const parameter = ['body', 'cookie', 'header', 'session_cookie'].includes(key) && value !== '' ? value : key;
  return { path: url.pathname, parameter };
}

/** The scan settings perimeter gets: the login of the scanner's account, rendering on. */
function perimeterSettings(renderJavascript: boolean): ScanProfileSettings {
  const { user } = realisticAccounts;
  return {
    ...defaultScanProfileSettings,
    render_javascript: renderJavascript,
    start_urls: [],
    login: {
      url: '/login',
      fields: [
        { name: 'username', value: user.username },
        { name: 'password', value: user.password },
      ],
      logged_in_text: 'Logout',
      logged_in_selector: null,
      logged_out_text: null,
      logged_out_selector: 'input[name="Login"]',
    },
  };
}

async function scanWithPerimeter(ctx: BenchContext, twin: Twin, renderJavascript: boolean): Promise<ToolRun> {
  const site = await startRealisticAppProcess(ctx.scope, twin);
  try {
    const engine = createHttpScanEngine({ guard: new EgressGuard(['127.0.0.0/8']), resolver: createDnsResolver([]) });
    const raw: FindingInput[] = [];
    const warnings: string[] = [];
    const sink: ScanSink = {
      finding: async (f) => void raw.push(f),
      progress: () => undefined,
      warning: (w) => void warnings.push(w),
    };
    const started = performance.now();
    const outcome = await engine.scan(
      { scheme: 'http', host: '127.0.0.1', port: site.port, scopeName: '127.0.0.1' },
      perimeterSettings(renderJavascript),
      limits,
      sink,
      new AbortController().signal,
    );
    const durationMs = performance.now() - started;
    if (outcome.status !== 'completed') throw new Error(`perimeter's scan of the ${twin} twin ended ${outcome.status}`);
    return {
      durationMs,
      requests: (await site.requestsFrom(0)).length,
      findings: raw.map((f) => ({ kind: f.checkId, ...splitLocation(f.location), text: f.title })),
      counters: await site.counters(),
      warnings,
    };
  } finally {
    await site.stop();
  }
}

/** Wapiti logged in by its own form login (`--auth-type post`, the login page as first start URL), the logout excluded. */
async function scanWithWapiti(ctx: BenchContext, twin: Twin): Promise<ToolRun> {
  const site = await startRealisticAppProcess(ctx.scope, twin);
  const abort = new AbortController();
  ctx.scope.defer('stop wapiti', () => abort.abort());
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-wapiti-realistic-'));
  const report = join(dir, 'report.json');
  const { user } = realisticAccounts;
  const args = [
    '-u',
    `${site.origin}/`,
    '--scope',
    'folder',
    '-m',
    realisticWapitiModules.join(','),
    '--auth-type',
    'post',
    '-a',
    `${user.username}%${user.password}`,
    '-s',
    `${site.origin}/login`,
    '-x',
    `${site.origin}/logout`,
    '--max-scan-time',
    String(wapitiMaxScanSeconds),
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
    '1',
    '--no-bugreport',
  ];
  try {
    const started = performance.now();
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('/usr/bin/python3', ['-c', WAPITI_WRAPPER, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        signal: abort.signal,
      });
      let text = '';
      const keep = (chunk: Buffer): void => void (text = (text + chunk.toString()).slice(-20_000));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve(text) : reject(new Error(`wapiti exited with ${code}: ${text.slice(-3000)}`)),
      );
    });
    const durationMs = performance.now() - started;
    const findings: WapitiFinding[] = parseWapitiReport(readFileSync(report, 'utf8'));
    const login = /Login (success|failed[^\n]*)/.exec(output)?.[0] ?? 'no login line';
    return {
      durationMs,
      requests: (await site.requestsFrom(0)).length,
      findings: findings.map((f) => ({ kind: f.category, path: f.path, parameter: f.parameter, text: f.info })),
      counters: await site.counters(),
      warnings: [login],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await site.stop();
  }
}

/** Whether a finding of the tool is this spot: its check (ours) or a category of its class (wapiti), the path, the parameter. */
function isSpot(tool: Tool, found: Found, spot: RealisticSpot): boolean {
  const kindMatches =
    tool === 'perimeter' ? found.kind === spot.checkId : wapitiCategoriesOf[spot.class].includes(found.kind);
  if (!kindMatches || found.path !== spot.path) return false;
  return spot.parameters.length === 0 || spot.parameters.includes(found.parameter);
}

/**
 * Checks whose finding is true on both twins by construction: both are served over plain HTTP,
 * so their login form is too. Listed apart, neither a spot nor a false positive.
 */
const transportChecks = new Set(['login-over-http']);

/** The categories of wapiti's report that are one of the manifest's classes. */
const comparableWapitiCategories = new Set(Object.values(wapitiCategoriesOf).flat());

interface Side {
  vulnerable?: ToolRun;
  safe?: ToolRun;
  found: Set<string>;
  extras: string[];
  falsePositives: string[];
  /** Findings of `transportChecks` on either twin. */
  transport: string[];
}

function score(tool: Tool, vulnerable: ToolRun | undefined, safe: ToolRun | undefined): Side {
  const spots = realisticManifest;
  const describe = (f: Found): string => `${f.kind} ${f.path} ${f.parameter}`.trim();
  const found = new Set(
    spots.filter((s) => (vulnerable?.findings ?? []).some((f) => isSpot(tool, f, s))).map((s) => s.id),
  );
  const isTransport = (f: Found): boolean => transportChecks.has(f.kind);
  const extras = (vulnerable?.findings ?? [])
    .filter((f) => !isTransport(f) && !spots.some((s) => isSpot(tool, f, s)))
    .map(describe);
  const falsePositives = (safe?.findings ?? [])
    .filter((f) => !isTransport(f) && (tool === 'perimeter' || comparableWapitiCategories.has(f.kind)))
    .map(describe);
  const transport = [...(vulnerable?.findings ?? []), ...(safe?.findings ?? [])].filter(isTransport).map(describe);
  return { vulnerable, safe, found, extras, falsePositives, transport };
}

const seconds = (ms: number | undefined): string => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);

function printTable(header: string[], lines: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(format(line));
}

async function run(ctx: BenchContext): Promise<void> {
  const tools = listOf('BENCH_REALISTIC_TOOLS', ['perimeter', 'wapiti']) as Tool[];
  const twins = listOf('BENCH_REALISTIC_TWINS', ['vulnerable', 'safe']) as Twin[];
  const renderJavascript = process.env['BENCH_REALISTIC_JS'] !== '0';
  const version = tools.includes('wapiti') ? wapitiVersion() : undefined;
  if (tools.includes('wapiti') && version === undefined)
    throw new Error('wapiti is not installed: apt-get install wapiti (Debian), then run this benchmark again');

  const runs: Record<Tool, Partial<Record<Twin, ToolRun>>> = { perimeter: {}, wapiti: {} };
  for (const tool of tools)
    for (const twin of twins) {
      ctx.log(`${tool}: ${twin} twin`);
      const result =
        tool === 'perimeter' ? await scanWithPerimeter(ctx, twin, renderJavascript) : await scanWithWapiti(ctx, twin);
      runs[tool][twin] = result;
      ctx.log(
        `${tool} (${twin}): ${seconds(result.durationMs)}, ${result.requests} requests, ${result.findings.length} findings, counters ${JSON.stringify(result.counters)}`,
      );
      for (const w of result.warnings.slice(0, 20)) ctx.log(`${tool} (${twin}) warning: ${w}`);
    }

  const spots = realisticManifest;
  const reachable = spots.filter((s) => renderJavascript || !s.needsJs);
  const ours = score('perimeter', runs.perimeter.vulnerable, runs.perimeter.safe);
  const theirs = score('wapiti', runs.wapiti.vulnerable, runs.wapiti.safe);
  const classes = [...new Set(spots.map((s) => s.class))];
  const rows = classes.map((spotClass: RealisticClass) => {
    const of = spots.filter((s) => s.class === spotClass);
    const shared = wapitiCategoriesOf[spotClass].length > 0;
    const mine = of.filter((s) => ours.found.has(s.id)).length;
    const their = of.filter((s) => theirs.found.has(s.id)).length;
    return {
      class: spotClass,
      spots: of.length,
      withoutJs: of.filter((s) => !s.needsJs).length,
      perimeter: mine,
      wapiti: shared ? their : undefined,
      atLeastWapiti: !shared || !tools.includes('wapiti') || mine >= their,
    };
  });
  console.log(
    `\nperimeter vs wapiti ${version ?? '(not run)'} on the realistic application, logged in (${spots.length} spots; "no JS": spots a crawler that runs no script can reach; — : wapiti has no module for the class)`,
  );
  printTable(
    ['class', 'spots', 'no JS', 'perimeter', 'wapiti'],
    rows.map((r) => [
      r.class,
      String(r.spots),
      String(r.withoutJs),
      tools.includes('perimeter') ? String(r.perimeter) : '—',
      r.wapiti === undefined || !tools.includes('wapiti') ? '—' : String(r.wapiti),
    ]),
  );
  const counter = (side: Side, twin: Twin, name: string): string => String(side[twin]?.counters[name] ?? '—');
  const summary = [
    ['', 'perimeter', `wapiti ${version ?? ''}`.trim()],
    ['recall, all spots', `${ours.found.size}/${spots.length}`, `${theirs.found.size}/${spots.length}`],
    [
      'recall, reachable spots',
      `${reachable.filter((s) => ours.found.has(s.id)).length}/${reachable.length}`,
      `${spots.filter((s) => !s.needsJs && theirs.found.has(s.id)).length}/${spots.filter((s) => !s.needsJs).length} (no JS)`,
    ],
    ['false positives (safe twin)', String(ours.falsePositives.length), String(theirs.falsePositives.length)],
    ['findings that are no spot', String(ours.extras.length), String(theirs.extras.length)],
    ['wall time, vulnerable twin', seconds(ours.vulnerable?.durationMs), seconds(theirs.vulnerable?.durationMs)],
    ['wall time, safe twin', seconds(ours.safe?.durationMs), seconds(theirs.safe?.durationMs)],
    ['requests, vulnerable twin', String(ours.vulnerable?.requests ?? '—'), String(theirs.vulnerable?.requests ?? '—')],
    ['requests, safe twin', String(ours.safe?.requests ?? '—'), String(theirs.safe?.requests ?? '—')],
    ['logins (vulnerable twin)', counter(ours, 'vulnerable', 'logins'), counter(theirs, 'vulnerable', 'logins')],
    ['sessions expired (vulnerable)', counter(ours, 'vulnerable', 'expired'), counter(theirs, 'vulnerable', 'expired')],
    [
      'own password changed (vulnerable)',
      counter(ours, 'vulnerable', 'passwordChanges'),
      counter(theirs, 'vulnerable', 'passwordChanges'),
    ],
    [
      'security level changed (vulnerable)',
      counter(ours, 'vulnerable', 'levelChanges'),
      counter(theirs, 'vulnerable', 'levelChanges'),
    ],
  ];
  console.log('');
  printTable(summary[0]!, summary.slice(1));
  const list = (title: string, items: string[]): void => {
    if (items.length > 0) console.log(`\n${title}:\n  ${items.join('\n  ')}`);
  };
  if (tools.includes('perimeter')) {
    list("perimeter's findings on the safe twin", ours.falsePositives);
    list("perimeter's findings that are no spot", ours.extras);
    list('true on both twins (served over HTTP), not counted', [...new Set(ours.transport)]);
    list(
      'spots perimeter missed',
      spots.filter((s) => !ours.found.has(s.id)).map((s) => `${s.id} (${s.checkId} ${s.path})`),
    );
  }
  if (tools.includes('wapiti')) {
    list("wapiti's findings on the safe twin (comparable categories)", theirs.falsePositives);
    list("wapiti's findings that are no spot", theirs.extras);
    list(
      'spots only wapiti found',
      spots.filter((s) => theirs.found.has(s.id) && !ours.found.has(s.id)).map((s) => s.id),
    );
  }

  const both = tools.includes('perimeter') && tools.includes('wapiti');
  const ourTime = ours.vulnerable?.durationMs;
  const theirTime = theirs.vulnerable?.durationMs;
  const targets = {
    recallAtLeast90PercentOfReachable: reachable.filter((s) => ours.found.has(s.id)).length >= 0.9 * reachable.length,
    recallAtLeastWapitiOnEverySharedClass: both ? rows.every((r) => r.atLeastWapiti) : null,
    zeroFalsePositives: ours.safe === undefined ? null : ours.falsePositives.length === 0,
    wallTimeAtMostHalfOfWapiti: ourTime === undefined || theirTime === undefined ? null : ourTime <= 0.5 * theirTime,
    ownLoginKept:
      ours.vulnerable === undefined
        ? null
        : (ours.vulnerable.counters['passwordChanges'] ?? 0) === 0 &&
          (ours.vulnerable.counters['levelChanges'] ?? 0) === 0,
  };
  console.log(
    `\ntargets: ${Object.entries(targets)
      .map(([k, v]) => `${k} ${v === null ? 'not measured' : v ? 'met' : 'MISSED'}`)
      .join(', ')}`,
  );
  const path = writeResult(ctx.outDir, 'app-scanner-realistic', {
    tools,
    twins,
    renderJavascript,
    wapitiVersion: version ?? null,
    wapitiModules: realisticWapitiModules,
    spots: spots.length,
    reachable: reachable.length,
    rows,
    perimeter: { ...ours, found: [...ours.found].sort() },
    wapiti: { ...theirs, found: [...theirs.found].sort() },
    targets,
  });
  ctx.log(`results in ${path}`);
}
