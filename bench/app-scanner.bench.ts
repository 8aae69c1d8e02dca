import type { ScanLimits, ScanSink } from '../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings } from '../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../src/core/vulnerabilities/vulnerability.types.ts';
import { defaultConfig } from '../src/config/config.ts';
import { createDnsResolver } from '../src/engine/dns/resolver.ts';
import { createHttpScanEngine } from '../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../src/engine/net/egress-guard.ts';
import { manifest } from '../test/support/vulnerable-site/index.ts';
import type { Spot } from '../test/support/vulnerable-site/types.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { writeResult } from './support/report.ts';
import { startFixtureProcess } from './support/site-process.ts';
import {
  runWapiti,
  wapitiCategories,
  wapitiCoveredChecks,
  wapitiFindsSpot,
  wapitiModules,
  wapitiOffline,
  wapitiVersion,
  type WapitiFinding,
} from './support/wapiti.ts';

/**
 * The application scanner against wapiti on the vulnerable fixture site (issue "The
 * application scanner", item 5): each tool scans a fresh vulnerable twin and a fresh safe twin,
 * one at a time, each twin served by a child process of its own that counts what it receives.
 * Recall is measured on the manifest's spots of the HTTP site, false positives on the safe twin.
 */
export const benchmark: Benchmark = {
  name: 'app-scanner',
  description:
    'perimeter vs wapiti on the vulnerable fixture site and its safe twin: recall per check, false positives, wall time, requests',
  run,
};

/** The service's own scan limits (config defaults), so the bench scans as a deployment does. */
const limits: ScanLimits = {
  maxPages: defaultConfig.scanMaxPages,
  maxDepth: defaultConfig.scanMaxDepth,
  maxDurationMs: defaultConfig.scanMaxDurationMs,
  requestTimeoutMs: defaultConfig.scanRequestTimeoutMs,
};

interface ToolRun {
  durationMs: number;
  requests: number;
  /** `checkId location-path` of each finding (ours) or `category method path parameter` (wapiti). */
  findings: string[];
}

interface Side {
  vulnerable: ToolRun;
  safe: ToolRun;
  /** Spot ids found. */
  found: Set<string>;
  /** Findings on the vulnerable site that are no spot of the manifest. */
  extras: string[];
  /** Findings on the safe twin of a class the other tool also reports (wapiti) or any (ours). */
  falsePositives: string[];
}

const pathOf = (location: string): string => location.replace(/^https?:\/\/[^/]+/, '');

async function scanWithPerimeter(
  ctx: BenchContext,
  twin: 'vulnerable' | 'safe',
): Promise<{ run: ToolRun; raw: FindingInput[] }> {
  const site = await startFixtureProcess(ctx.scope, twin);
  try {
    const engine = createHttpScanEngine({ guard: new EgressGuard(['127.0.0.0/8']), resolver: createDnsResolver([]) });
    const raw: FindingInput[] = [];
    const sink: ScanSink = {
      finding: async (f) => void raw.push(f),
      progress: () => undefined,
      warning: (w) => ctx.log(`perimeter warning (${twin}): ${w}`),
    };
    const started = performance.now();
    const outcome = await engine.scan(
      { scheme: 'http', host: '127.0.0.1', port: site.port, scopeName: '127.0.0.1' },
      { ...defaultScanProfileSettings },
      limits,
      sink,
      new AbortController().signal,
    );
    const durationMs = performance.now() - started;
    if (outcome.status !== 'completed') throw new Error(`perimeter's scan of the ${twin} twin ended ${outcome.status}`);
    const requests = (await site.requestsFrom(0)).length;
    return { run: { durationMs, requests, findings: raw.map((f) => `${f.checkId} ${pathOf(f.location)}`) }, raw };
  } finally {
    await site.stop();
  }
}

async function scanWithWapiti(
  ctx: BenchContext,
  twin: 'vulnerable' | 'safe',
): Promise<{ run: ToolRun; raw: WapitiFinding[] }> {
  const site = await startFixtureProcess(ctx.scope, twin);
  const abort = new AbortController();
  ctx.scope.defer('stop wapiti', () => abort.abort());
  try {
    const result = await runWapiti(site.origin, abort.signal);
    const requests = (await site.requestsFrom(0)).length;
    return {
      run: {
        durationMs: result.durationMs,
        requests,
        findings: result.findings.map((f) => `${f.category} ${f.method} ${f.path} ${f.parameter}`.trim()),
      },
      raw: result.findings,
    };
  } finally {
    await site.stop();
  }
}

function pct(part: number, whole: number): string {
  return whole === 0 ? '—' : `${((100 * part) / whole).toFixed(0)} %`;
}

async function run(ctx: BenchContext): Promise<void> {
  const version = wapitiVersion();
  if (version === undefined)
    throw new Error('wapiti is not installed: apt-get install wapiti (Debian), then run this benchmark again');
  // The plain-HTTP site: spots that need HTTPS (HSTS, mixed content) are measured by the tests, not here.
  const spots = manifest().filter((s) => (s.scheme ?? 'http') === 'http');
  const covered = wapitiCoveredChecks();

  ctx.log(`perimeter: vulnerable twin (${spots.length} spots)`);
  const ourVulnerable = await scanWithPerimeter(ctx, 'vulnerable');
  ctx.log(
    `perimeter: ${(ourVulnerable.run.durationMs / 1000).toFixed(1)} s, ${ourVulnerable.run.requests} requests; safe twin`,
  );
  const ourSafe = await scanWithPerimeter(ctx, 'safe');
  ctx.log(`wapiti ${version}: vulnerable twin (modules ${wapitiModules.join(',')})`);
  const theirVulnerable = await scanWithWapiti(ctx, 'vulnerable');
  ctx.log(
    `wapiti: ${(theirVulnerable.run.durationMs / 1000).toFixed(1)} s, ${theirVulnerable.run.requests} requests; safe twin`,
  );
  const theirSafe = await scanWithWapiti(ctx, 'safe');

  const ourSpotOf = (f: FindingInput): Spot | undefined =>
    spots.find((s) => s.checkId === f.checkId && s.location === pathOf(f.location));
  const ours: Side = {
    vulnerable: ourVulnerable.run,
    safe: ourSafe.run,
    found: new Set(
      ourVulnerable.raw
        .map(ourSpotOf)
        .filter((s) => s !== undefined)
        .map((s) => s.id),
    ),
    extras: ourVulnerable.raw
      .filter((f) => ourSpotOf(f) === undefined)
      .map((f) => `${f.checkId} ${pathOf(f.location)}`),
    falsePositives: ourSafe.run.findings,
  };
  const comparable = (f: WapitiFinding): boolean => f.category in wapitiCategories;
  const theirs: Side = {
    vulnerable: theirVulnerable.run,
    safe: theirSafe.run,
    found: new Set(spots.filter((s) => theirVulnerable.raw.some((f) => wapitiFindsSpot(f, s))).map((s) => s.id)),
    extras: theirVulnerable.raw
      .filter((f) => !spots.some((s) => wapitiFindsSpot(f, s)))
      .map((f) => `${f.category} ${f.method} ${f.path} ${f.parameter}`.trim()),
    falsePositives: theirSafe.raw
      .filter(comparable)
      .map((f) => `${f.category} ${f.method} ${f.path} ${f.parameter}`.trim()),
  };

  // Recall per check (the "class" of the issue's targets), both tools side by side.
  const checks = [...new Set(spots.map((s) => s.checkId))];
  const rows = checks.map((checkId) => {
    const of = spots.filter((s) => s.checkId === checkId);
    const isCovered = covered.has(checkId) && !wapitiOffline.has(checkId);
    const mine = of.filter((s) => ours.found.has(s.id)).length;
    const their = of.filter((s) => theirs.found.has(s.id)).length;
    return {
      checkId,
      class: of[0]!.class,
      spots: of.length,
      perimeter: mine,
      wapiti: isCovered ? their : undefined,
      atLeastWapiti: !isCovered || mine >= their,
    };
  });
  const header = ['check', 'class', 'spots', 'perimeter', 'wapiti'];
  const lines = rows.map((r) => [
    r.checkId,
    r.class,
    String(r.spots),
    String(r.perimeter),
    r.wapiti === undefined ? '—' : String(r.wapiti),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]): string =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(
    `\napplication scanner vs wapiti ${version} on the fixture site (${spots.length} spots over HTTP; — : no wapiti module for it, or it needs wapiti's internet endpoint)`,
  );
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(format(line));

  const coveredSpots = spots.filter((s) => covered.has(s.checkId) && !wapitiOffline.has(s.checkId));
  const summary = [
    ['', 'perimeter', `wapiti ${version}`],
    [
      'recall, all spots',
      `${ours.found.size}/${spots.length} (${pct(ours.found.size, spots.length)})`,
      `${theirs.found.size}/${spots.length} (${pct(theirs.found.size, spots.length)})`,
    ],
    [
      'recall, spots wapiti covers',
      `${coveredSpots.filter((s) => ours.found.has(s.id)).length}/${coveredSpots.length}`,
      `${coveredSpots.filter((s) => theirs.found.has(s.id)).length}/${coveredSpots.length}`,
    ],
    ['false positives (safe twin)', String(ours.falsePositives.length), String(theirs.falsePositives.length)],
    ['findings that are no spot', String(ours.extras.length), String(theirs.extras.length)],
    [
      'wall time, vulnerable twin',
      `${(ours.vulnerable.durationMs / 1000).toFixed(1)} s`,
      `${(theirs.vulnerable.durationMs / 1000).toFixed(1)} s`,
    ],
    [
      'wall time, safe twin',
      `${(ours.safe.durationMs / 1000).toFixed(1)} s`,
      `${(theirs.safe.durationMs / 1000).toFixed(1)} s`,
    ],
    ['requests, vulnerable twin', String(ours.vulnerable.requests), String(theirs.vulnerable.requests)],
    ['requests, safe twin', String(ours.safe.requests), String(theirs.safe.requests)],
  ];
  const sw = [0, 1, 2].map((i) => Math.max(...summary.map((r) => r[i]!.length)));
  console.log('');
  for (const r of summary) console.log(`${r[0]!.padEnd(sw[0]!)}  ${r[1]!.padStart(sw[1]!)}  ${r[2]!.padStart(sw[2]!)}`);
  if (ours.falsePositives.length > 0)
    console.log(`\nperimeter's findings on the safe twin:\n  ${ours.falsePositives.join('\n  ')}`);
  if (theirs.falsePositives.length > 0)
    console.log(
      `\nwapiti's findings on the safe twin (comparable categories):\n  ${theirs.falsePositives.join('\n  ')}`,
    );
  if (ours.extras.length > 0) console.log(`\nperimeter's findings that are no spot:\n  ${ours.extras.join('\n  ')}`);
  const missed = spots.filter((s) => !ours.found.has(s.id));
  if (missed.length > 0)
    console.log(
      `\nspots perimeter missed:\n  ${missed.map((s) => `${s.id} (${s.checkId} ${s.location})`).join('\n  ')}`,
    );
  const wapitiOnly = spots.filter((s) => theirs.found.has(s.id) && !ours.found.has(s.id));
  if (wapitiOnly.length > 0) console.log(`\nspots only wapiti found:\n  ${wapitiOnly.map((s) => s.id).join('\n  ')}`);

  const targets = {
    recallAtLeastWapitiOnEveryClass: rows.every((r) => r.atLeastWapiti),
    recallAtLeast90Percent: ours.found.size >= 0.9 * spots.length,
    zeroFalsePositives: ours.falsePositives.length === 0,
    wallTimeAtMostWapiti: ours.vulnerable.durationMs <= theirs.vulnerable.durationMs,
  };
  console.log(
    `\ntargets: ${Object.entries(targets)
      .map(([k, v]) => `${k} ${v ? 'met' : 'MISSED'}`)
      .join(', ')}`,
  );
  const path = writeResult(ctx.outDir, 'app-scanner', {
    wapitiVersion: version,
    wapitiModules,
    spots: spots.length,
    rows,
    perimeter: serialise(ours),
    wapiti: serialise(theirs),
    targets,
  });
  ctx.log(`results in ${path}`);
}

function serialise(side: Side): Record<string, unknown> {
  return { ...side, found: [...side.found].sort() };
}
