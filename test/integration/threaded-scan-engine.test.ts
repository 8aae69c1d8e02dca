import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ScanCounters, ScanEngine, ScanLimits, ScanSink, ScanTarget } from '../../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { defaultCanaryConfig } from '../../src/config/canary.ts';
import { createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { createThreadedScanEngine, type ThreadedScanEngine } from '../../src/engine/http-scan/threaded-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { summary } from '../support/fixture-scan.ts';
import { createHarness } from '../support/harness.ts';
import { startGeneratedSite, startTargetSite, type TargetServer, type TargetSites } from '../support/target-site.ts';

const threadConfig = { egressAllow: ['127.0.0.0/8'], dnsResolvers: ['127.0.0.1:9'], canary: defaultCanaryConfig };
const inProcess = createHttpScanEngine({
  guard: new EgressGuard(threadConfig.egressAllow),
  resolver: createDnsResolver(['127.0.0.1:9']) /* no name leaves the machine: a closed loopback port */,
  canary: defaultCanaryConfig,
});
const limits: ScanLimits = { maxPages: 20_000, maxDepth: 100, maxDurationMs: 60_000, requestTimeoutMs: 2000 };
const targetOf = (server: TargetServer): ScanTarget => ({
  scheme: server.scheme,
  host: '127.0.0.1',
  port: server.port,
  scopeName: '127.0.0.1',
});

interface Recorded extends ScanSink {
  findings: FindingInput[];
  warnings: string[];
  counters: ScanCounters[];
}

/** A sink that keeps what it is told; `onFinding` may delay or refuse a finding. */
function recorder(onFinding: (finding: FindingInput) => Promise<void> = async () => undefined): Recorded {
  const sink: Recorded = {
    findings: [],
    warnings: [],
    counters: [],
    finding: async (finding) => {
      await onFinding(finding);
      sink.findings.push(finding);
    },
    progress: (counters) => sink.counters.push(counters),
    warning: (message) => sink.warnings.push(message),
  };
  return sink;
}

/** `check-id /path` of each finding, sorted: two scans compared regardless of the order of their findings. */
const sorted = (findings: FindingInput[]): string[] => summary(findings).sort();

async function scan(
  engine: ScanEngine,
  server: TargetServer,
  sink = recorder(),
  signal = new AbortController().signal,
) {
  const outcome = await engine.scan(targetOf(server), { ...defaultScanProfileSettings }, limits, sink, signal);
  return { outcome, sink };
}

/** Resolves once the sink has seen `pages` pages crawled. */
async function crawled(sink: Recorded, pages: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((sink.counters.at(-1)?.pagesCrawled ?? 0) < pages) {
    if (Date.now() > deadline) throw new Error(`fewer than ${pages} pages crawled after 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('application scans on threads of their own', () => {
  let sites: TargetSites;
  let big: TargetServer;
  let threaded: ThreadedScanEngine;
  before(async () => {
    sites = await startTargetSite();
    big = await startGeneratedSite(20_000);
    threaded = createThreadedScanEngine(inProcess, { threads: 2, config: threadConfig });
  });
  after(async () => {
    await threaded.close();
    await sites.stop();
    await big.stop();
  });

  it('finds on a thread exactly what the engine finds in process, on the vulnerable site and its safe twin', async () => {
    for (const site of [sites.vulnerable, sites.safe]) {
      const [onThread, here] = await Promise.all([scan(threaded, site), scan(inProcess, site)]);
      assert.equal(onThread.outcome.status, 'completed', onThread.outcome.error);
      assert.equal(here.outcome.status, 'completed', here.outcome.error);
      assert.deepEqual(sorted(onThread.sink.findings), sorted(here.sink.findings));
      assert.equal(onThread.sink.counters.at(-1)?.pagesCrawled, here.sink.counters.at(-1)?.pagesCrawled);
    }
    const vulnerable = await scan(threaded, sites.vulnerable);
    assert.ok(
      vulnerable.sink.findings.some((f) => f.checkId === 'reflected-xss'),
      'the vulnerable site has a reflected XSS',
    );
    const xss = vulnerable.sink.findings.find((f) => f.checkId === 'reflected-xss')!;
    assert.equal(xss.cwe, 79);
    assert.ok(xss.request !== undefined && xss.response !== undefined, 'evidence crosses the thread boundary');
    assert.ok(xss.definition.module_release instanceof Date, 'dates cross as dates');
  });

  it('a finding waits for the sink; one the sink refuses fails as it does in process, and the scan goes on', async () => {
    let slow = 0;
    const delayed = await scan(
      threaded,
      sites.vulnerable,
      recorder(async () => {
        slow += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }),
    );
    assert.equal(delayed.outcome.status, 'completed');
    assert.equal(delayed.sink.findings.length, slow, 'every finding was taken before the scan ended');
    // A refusal reaches the check as it would in process: the same findings and warnings either way.
    const refusing = (): Recorded =>
      recorder(async (finding) => {
        if (finding.checkId === 'exposed-git') throw new Error('the store refused it');
      });
    const [onThread, here] = await Promise.all([
      scan(threaded, sites.vulnerable, refusing()),
      scan(inProcess, sites.vulnerable, refusing()),
    ]);
    assert.equal(onThread.outcome.status, 'completed');
    assert.deepEqual(sorted(onThread.sink.findings), sorted(here.sink.findings));
    const portless = (warnings: string[]): string[] => warnings.map((w) => w.replace(/:\d+/g, ':PORT')).sort();
    assert.deepEqual(portless(onThread.sink.warnings), portless(here.sink.warnings));
    assert.ok(!onThread.sink.findings.some((f) => f.checkId === 'exposed-git'), 'the refused finding is not taken');
    assert.ok(
      onThread.sink.findings.some((f) => f.checkId === 'reflected-xss'),
      'other findings still arrive',
    );
  });

  it('a sink that throws, even synchronously, fails only what it was told: the scan completes and the process lives', async () => {
    const throwing: ScanSink = {
      finding: () => {
        throw new Error('no store');
      },
      progress: () => {
        throw new Error('no counters');
      },
      warning: () => {
        throw new Error('no warnings');
      },
    };
    const outcome = await threaded.scan(
      targetOf(sites.vulnerable),
      { ...defaultScanProfileSettings },
      limits,
      throwing,
      new AbortController().signal,
    );
    assert.equal(outcome.status, 'completed', outcome.error);
  });

  it('aborts a scan in its thread within 5 s', async () => {
    const controller = new AbortController();
    const sink = recorder();
    const running = scan(threaded, big, sink, controller.signal);
    await crawled(sink, 50);
    const abortedAt = Date.now();
    controller.abort();
    const { outcome } = await running;
    assert.equal(outcome.status, 'aborted');
    assert.ok(Date.now() - abortedAt < 5000, `ended ${Date.now() - abortedAt} ms after the abort`);
  });

  it('spreads scans over its threads, and a thread that dies ends its scans unable_to_complete, never the process', async () => {
    const first = recorder();
    const second = recorder();
    const running = [scan(threaded, big, first), scan(threaded, big, second)];
    await Promise.all([crawled(first, 20), crawled(second, 20)]);
    assert.equal(threaded.liveThreads, 2, 'two scans at once run on two threads');
    await threaded.terminateThreads();
    for (const { outcome } of await Promise.all(running)) {
      assert.equal(outcome.status, 'unable_to_complete');
      assert.match(outcome.error ?? '', /the scan thread stopped: it was terminated/);
    }
    assert.equal(threaded.liveThreads, 0);
    const again = await scan(threaded, sites.safe);
    assert.equal(again.outcome.status, 'completed', 'the next scan starts a new thread');
    assert.equal(threaded.liveThreads, 1);
  });

  it('refuses scans once closed, and an aborted signal never reaches a thread', async () => {
    const aborted = new AbortController();
    aborted.abort();
    assert.equal((await scan(threaded, sites.safe, recorder(), aborted.signal)).outcome.status, 'aborted');
    const closed = createThreadedScanEngine(inProcess, { threads: 1, config: threadConfig });
    await closed.close();
    const { outcome } = await scan(closed, sites.safe);
    assert.equal(outcome.status, 'unable_to_complete');
    assert.match(outcome.error ?? '', /closed/);
    assert.equal(closed.liveThreads, 0);
  });

  it('the runtime runs its scans on a thread by default, on the event loop with scanThreads 0', async () => {
    for (const [scanThreads, isThreaded] of [
      [undefined, true],
      [0, false],
    ] as const) {
      const h = await createHarness(scanThreads === undefined ? {} : { scanThreads });
      try {
        assert.equal('liveThreads' in h.runtime.scanEngine, isThreaded, `scanThreads ${scanThreads}`);
        assert.equal(h.runtime.scanRunner.engine, h.runtime.scanEngine);
      } finally {
        await h.close();
      }
    }
  });
});
