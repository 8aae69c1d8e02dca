import { setMaxListeners } from 'node:events';
import type { LookupResult } from '../dns/bulk-resolver.ts';
import { resolveAddresses, type AddressStreams } from './address-lookups.ts';
import { permutationCandidates, shippedWordList, wordCandidates } from './candidate-names.ts';
import type {
  DiscoveredName,
  DiscoveryDeps,
  DiscoveryLimits,
  DiscoveryPorts,
  DiscoveryReport,
  DiscoveryRequest,
  DiscoverySource,
  DiscoveryStats,
  TakeoverObservation,
  TakeoverProvider,
  UnresolvedName,
} from './discovery.types.ts';
import { createHostScanner, isUnderRoot, normaliseHost, parentOf } from './discovery-names.ts';
import { answeringFromRun, GuardDecisions } from './guard-cache.ts';
import { HostScraper } from './host-scraper.ts';
import { LiveNames } from './live-names.ts';
import {
  defaultDiscoveryLimits,
  defaultMaxDepth,
  defaultPorts,
  FirstByName,
  maxWarnings,
  PendingNames,
  type Chained,
} from './run-support.ts';
import { untilAborted } from '../../shared/abortable.ts';
import { NameStates, Status } from './name-states.ts';
import { lookupRootRecords } from './root-records.ts';
import { buildReport, emptyStats, RunProgress } from './run-report.ts';
import { findDelegations, shippedProviders, takeoverTests, type Delegation } from './takeover-checks.ts';
import { WebReader } from './web-sources.ts';
import { answerOf, WildcardDetector } from './wildcard-detector.ts';

export type * from './discovery.types.ts';
export { defaultDiscoveryLimits } from './run-support.ts';

/**
 * One discovery run; discoverSurface() is its only entry point.
 *
 * Candidates go through resolveAddresses: expected names (seeds, names found by scraping) ask
 * A+AAAA at once, guessed ones (words, permutations) A first and AAAA unless NXDOMAIN, the
 * streams side by side and fed lazily: names found by scraping while the word list runs are
 * handed to the resolver before the next word, and live hosts are scraped while it goes on. Per name the
 * run keeps one packed number (NameStates); what a live name carries (addresses, chain) is
 * handed to `onNames` in batches and dropped, or kept for the report when there is no
 * `onNames`. Only names with a CNAME chain (for the takeover tests), failed firm names (for
 * `unresolved`) and up to `permutationBases` bases are kept beside it.
 */
class DiscoveryRun {
  private readonly states = new NameStates();
  /** Names to resolve, in the order they were found (head index: no shifting). */
  private readonly pending = new PendingNames((name) => this.states.status(name) === Status.pending);
  /** Live names: kept for the report, or streamed to `onNames`. */
  private readonly live: LiveNames;
  private readonly chained = new Map<string, Chained>();
  private readonly unresolvedFirm = new Map<string, UnresolvedName>();
  /** Permutation bases: the first live names by name, found in this run and given by the core. */
  private readonly foundBases: FirstByName;
  private readonly knownBases: FirstByName;
  private rootNameServers: string[] = [];
  /** Addresses of the hosts being read (the guard's resolver answers from them). */
  private readonly scraper: HostScraper;
  /** The guard's decisions by address in this run. */
  private readonly guardDecisions: GuardDecisions;
  private readonly delegationCandidates = new Set<string>();
  private readonly delegations: Delegation[] = [];
  private readonly takeovers: TakeoverObservation[] = [];
  private readonly warnings: string[] = [];
  private readonly wildcards: WildcardDetector;
  private readonly web: WebReader;
  private readonly limits: DiscoveryLimits;
  private readonly ports: DiscoveryPorts;
  private readonly providers: readonly TakeoverProvider[];
  private readonly maxDepth: number;
  private readonly signal: AbortSignal;
  private readonly progress: RunProgress;
  private readonly stats: DiscoveryStats = emptyStats();

  constructor(
    private readonly deps: DiscoveryDeps,
    private readonly request: DiscoveryRequest,
    private readonly root: string,
  ) {
    this.signal = request.signal;
    this.live = new LiveNames(request.onNames, this.signal);
    this.progress = new RunProgress(request.onProgress, () => ({
      candidates: this.stats.candidates,
      live: this.live.count,
      takeovers: this.takeovers.length,
    }));
    this.limits = { ...defaultDiscoveryLimits, ...deps.limits };
    this.ports = { ...defaultPorts, ...deps.ports };
    this.providers = deps.providers ?? (request.takeoverTests ? shippedProviders() : []);
    this.maxDepth = Math.max(0, request.maxDepth ?? defaultMaxDepth);
    this.foundBases = new FirstByName(this.limits.permutationBases);
    this.knownBases = new FirstByName(this.limits.permutationBases);
    this.wildcards = new WildcardDetector(deps.bulk, this.signal);
    this.guardDecisions = new GuardDecisions(deps.guard);
    // The guard resolves hosts for the web reader: answer from this run's lookups first.
    const cached = answeringFromRun(
      deps.resolver,
      (name) => this.scraper.addressesOf(name) ?? this.chained.get(name)?.addresses ?? this.live.get(name)?.addresses,
    );
    this.web = new WebReader({
      guard: deps.guard,
      resolver: cached,
      ports: this.ports,
      limits: this.limits,
      requestsPerSecond: request.requestsPerSecond,
      customHeaders: request.customHeaders,
      signal: this.signal,
    });
    const add = (name: string, source: DiscoverySource, depth: number): void => this.add(name, source, depth);
    this.scraper = new HostScraper({
      bulk: deps.bulk,
      web: this.web,
      root,
      scan: createHostScanner(root),
      hostConcurrency: this.limits.hostConcurrency,
      stats: this.stats,
      signal: this.signal,
      add,
    });
  }

  async run(): Promise<DiscoveryReport> {
    const startedAt = performance.now();
    const { request } = this;
    const isScraping = request.scrape;
    const isBruteForcing = isScraping && request.bruteForce;
    try {
      this.add(this.root, 'known', 0);
      for (const name of request.knownNames) this.add(name, 'known', 0);
      for (const name of request.zoneNames ?? []) this.add(name, 'zone', 0);
      await this.wildcards.probe(this.root);
      if (isScraping || request.takeoverTests) await this.scrapeRootRecords();
      this.progress.report('seeds', true);
      // The seeds, and beside them the word list with what scraping finds meanwhile.
      await this.resolve({
        expected: this.pending.takeAll(),
        guessed: isBruteForcing ? this.pending.feed(this.bruteForceNames()) : undefined,
      });
      await this.drain();
      if (isBruteForcing) {
        this.progress.report('permutations', true);
        await this.resolve({ guessed: this.pending.feed(this.permutationNames()) });
        await this.drain();
      }
      if (isScraping || request.takeoverTests) {
        await this.findDelegations();
        await this.drain();
      }
      await this.live.finish();
      if (request.takeoverTests) await this.takeoverTests();
      this.stats.durationMs = performance.now() - startedAt;
      this.progress.report('done', true);
      return this.report();
    } finally {
      this.stats.httpRequests = this.web.requests;
      await this.web.close();
    }
  }

  /** Records a name from a source; a new name (or a filtered one now firmly seen) is queued for resolution. */
  private add(text: string, source: DiscoverySource, depth: number): void {
    const name = normaliseHost(text);
    if (name === undefined || !isUnderRoot(name, this.root)) return;
    const change = this.states.add(name, source, depth);
    if (change === 'new' || change === 'requeued') this.pending.push(name);
    else if (change === 'grown') this.live.grow(name, source, depth);
  }

  /** Resolves what is pending and waits for the hosts being read, until neither has work. */
  private async drain(): Promise<void> {
    if (this.pending.hasAny || !this.scraper.isIdle) this.progress.report('scrape', true);
    for (;;) {
      if (this.scraper.failure !== undefined) throw this.scraper.failure;
      if (this.pending.hasAny) {
        // Pending names come from firm sources (DNS answers, certificates, pages): expected to exist.
        await this.resolve({ expected: this.pending.takeAll() });
        continue;
      }
      if (this.scraper.isIdle) return;
      await this.scraper.waitForProgress();
    }
  }

  /** Resolves names (expected ones A+AAAA, guessed ones A, then AAAA unless NXDOMAIN) through the bulk resolver, judging each answer as it comes. */
  private async resolve(streams: AddressStreams): Promise<void> {
    const stats = await untilAborted(
      resolveAddresses(this.deps.bulk, streams, (result) => this.judge(result), this.signal),
      this.signal,
    );
    if (this.scraper.failure !== undefined) throw this.scraper.failure;
    this.stats.candidates += stats.names;
    this.stats.queries += stats.queries;
    this.stats.retries += stats.retries;
    this.stats.timeouts += stats.timeouts;
    this.stats.resolveMs += stats.durationMs;
  }

  /** Brute-force candidates not seen yet, registered as they are handed to the resolver. */
  private bruteForceNames(): Generator<string> {
    return this.unseen(
      wordCandidates(this.deps.wordList ?? shippedWordList(), this.root),
      'brute-force',
      () => (this.stats.bruteForceCandidates += 1),
    );
  }

  /** Permutations of live names (found names first, then known ones), bounded. */
  private permutationNames(): Generator<string> {
    // The first by name of the live names found in this run, then of the known ones: the same
    // bases whatever order the answers came in.
    const bases = [...this.foundBases.names, ...this.knownBases.names].slice(0, this.limits.permutationBases);
    const { names, isCapped } = permutationCandidates(bases, this.root, this.limits.maxPermutations);
    this.stats.isPermutationCapped = isCapped;
    return this.unseen(names, 'permutation', () => (this.stats.permutationCandidates += 1));
  }

  /** The candidates not seen yet, registered as they are handed to the resolver; a seen one only gains the source. */
  private *unseen(
    candidates: Iterable<string>,
    source: 'brute-force' | 'permutation',
    count: () => void,
  ): Generator<string> {
    if (source === 'brute-force') this.progress.report('brute-force', true);
    for (const name of candidates) {
      count();
      const change = this.states.add(name, source, 0);
      if (change === 'new') yield name;
      else if (change === 'grown') this.live.grow(name, source, undefined);
    }
  }

  /** Judges one lookup: live (after the wildcard filter), gone, unresolved, or a delegation to probe. */
  private judge(result: LookupResult): void | Promise<void> {
    this.progress.report(this.progress.phase, false);
    const name = result.name;
    const packed = this.states.get(name);
    if (packed === undefined || NameStates.status(packed) !== Status.pending) return undefined;
    if (
      result.outcome === 'answer' ||
      (result.outcome === 'nxdomain' && result.records.some((r) => r.type === 'CNAME'))
    ) {
      const { addresses, chain } = answerOf(name, result.records);
      const nxdomainAnswer = result.outcome === 'nxdomain' ? result : undefined;
      if (addresses.length === 0 && chain.length > 0 && result.outcome === 'answer')
        return this.followChain(name, chain);
      if (addresses.length === 0 && chain.length === 0) return this.settleEmpty(name, packed, 'nodata');
      return this.settleAnswer(name, packed, addresses, chain, nxdomainAnswer);
    }
    if (result.outcome === 'nxdomain' || result.outcome === 'nodata')
      return this.settleEmpty(name, packed, result.outcome);
    this.states.setStatusOf(name, packed, Status.unresolved);
    if (NameStates.isFirm(packed))
      this.unresolvedFirm.set(name, { name, outcome: result.outcome, detail: result.failures[0]?.detail ?? '' });
    if (result.outcome === 'servfail' || result.outcome === 'refused') this.delegationCandidates.add(name);
    return undefined;
  }

  /** An answer that stopped at a CNAME (an authoritative server does not chase other zones): ask the target. */
  private async followChain(name: string, chain: string[]): Promise<void> {
    let addresses: string[] = [];
    const full = [...chain];
    for (let hop = 0; hop < 8; hop += 1) {
      const target = full[full.length - 1] as string;
      const result = await this.deps.bulk.lookup(target, ['A', 'AAAA'], this.signal);
      const next = answerOf(target, result.records);
      addresses = next.addresses;
      for (const t of next.chain) if (!full.includes(t)) full.push(t);
      if (addresses.length > 0 || next.chain.length === 0 || result.outcome !== 'answer') break;
    }
    return this.settleAnswer(name, undefined, addresses, full, undefined);
  }

  /** A name with addresses or a CNAME chain: filtered when a wildcard gave it, else live. */
  private settleAnswer(
    name: string,
    known: number | undefined,
    addresses: string[],
    chain: string[],
    nxdomainAnswer: LookupResult | undefined,
  ): void | Promise<void> {
    // After a wait (a chain followed, a level probed) the state is read again: sources may have grown.
    const packed = known ?? (this.states.get(name) as number);
    const parent = parentOf(name);
    if (!NameStates.isFirm(packed) && parent !== undefined && isUnderRoot(parent, this.root)) {
      if (!this.wildcards.isKnown(parent)) {
        return this.wildcards
          .probe(parent)
          .then(() => this.settleAnswer(name, undefined, addresses, chain, nxdomainAnswer));
      }
      const wildcard = this.wildcards.peek(parent);
      if (wildcard !== undefined && this.wildcards.isWildcardAnswer(wildcard, name, addresses, chain)) {
        this.states.setStatusOf(name, packed, Status.filtered);
        return undefined;
      }
    }
    if (chain.length > 0 && this.request.takeoverTests)
      this.chained.set(name, { cnames: chain, addresses, ...(nxdomainAnswer === undefined ? {} : { nxdomainAnswer }) });
    const depth = NameStates.depth(packed);
    if (this.request.scrape && depth < this.maxDepth) for (const target of chain) this.add(target, 'dns', depth + 1);
    const found = this.confirm(name, packed, addresses, chain, undefined);
    this.scheduleScrape(name, packed, addresses);
    return found;
  }

  /** No address and no CNAME: gone for now (a delegation probe may still make it live). */
  private settleEmpty(name: string, packed: number, outcome: 'nxdomain' | 'nodata'): void {
    this.states.setStatusOf(name, packed, outcome === 'nxdomain' ? Status.goneNxdomain : Status.goneNodata);
    if (outcome === 'nodata' && name !== this.root) this.delegationCandidates.add(name);
  }

  /** A name is live: streamed to the core in batches (awaited: a slow consumer holds the resolver back), or kept for the report. */
  private confirm(
    name: string,
    packed: number,
    addresses: string[],
    chain: string[],
    nameServers: string[] | undefined,
  ): void | Promise<void> {
    this.states.setStatusOf(name, packed, Status.live);
    if (name !== this.root) {
      (NameStates.isFound(packed) ? this.foundBases : this.knownBases).offer(name);
    }
    // Optional fields set after the literal, not spread into it: a spread is a runtime copy per name.
    const found: DiscoveredName = {
      name,
      sources: NameStates.sources(packed),
      addresses,
      depth: NameStates.depth(packed),
    };
    if (chain.length > 0) found.cnames = chain;
    if (nameServers !== undefined) found.nameServers = nameServers;
    return this.live.deliver(found);
  }

  /** Queues a live host for scraping when there is something to read (its records, its certificate and pages). */
  private scheduleScrape(name: string, packed: number, addresses: string[]): void {
    const depth = NameStates.depth(packed);
    if (!this.request.scrape || depth >= this.maxDepth) return;
    const isAskingRecords = name !== this.root && NameStates.isScraped(packed);
    let isReadingWeb = false;
    if (addresses.length > 0) {
      isReadingWeb = addresses.every((address) => this.isAllowed(address));
      if (!isReadingWeb) this.stats.hostsSkippedByGuard += 1;
    }
    if (!isAskingRecords && !isReadingWeb) return;
    this.scraper.schedule({ name, depth, isAskingRecords, isReadingWeb, addresses });
  }

  /** The root's MX, NS, TXT and SOA, and well-known SRV names: their targets under the root. */
  private async scrapeRootRecords(): Promise<void> {
    const { nameServers, targets } = await lookupRootRecords(
      this.deps.bulk,
      this.root,
      this.request.scrape,
      this.signal,
    );
    this.rootNameServers = nameServers;
    for (const target of targets) this.add(target, 'dns', 1);
  }

  /** Zone cuts among the names that exist without an address or fail (see findDelegations). */
  private async findDelegations(): Promise<void> {
    const candidates = [...this.delegationCandidates];
    this.delegationCandidates.clear();
    if (candidates.length === 0 || this.rootNameServers.length === 0) return;
    const context = {
      bulk: this.deps.bulk,
      guard: this.deps.guard,
      ports: this.ports,
      timeoutMs: this.limits.nameServerTimeoutMs,
      signal: this.signal,
      isAllowed: (a: string) => this.isAllowed(a),
    };
    const found = await findDelegations(candidates, this.rootNameServers, context);
    if (found === undefined)
      this.warn(`delegations not checked: no name server of ${this.root} is reachable through the egress guard`);
    for (const delegation of found ?? []) await this.recordDelegation(delegation.zone, delegation.nameServers);
  }

  /** A zone cut under the root: live, with its name servers (names under the root followed). */
  private recordDelegation(zone: string, servers: string[]): void | Promise<void> {
    const packed = this.states.get(zone);
    if (packed === undefined || NameStates.status(packed) === Status.live) return undefined;
    const nameServers = [...new Set(servers)].sort();
    this.delegations.push({ zone, nameServers });
    this.unresolvedFirm.delete(zone);
    const depth = NameStates.depth(packed);
    if (this.request.scrape && depth < this.maxDepth)
      for (const server of nameServers) this.add(server, 'dns', depth + 1);
    return this.confirm(zone, packed, [], [], nameServers);
  }

  /** Dangling CNAMEs, provider fingerprints and broken delegations of every live name. */
  private async takeoverTests(): Promise<void> {
    this.progress.report('takeover', true);
    const context = {
      bulk: this.deps.bulk,
      guard: this.deps.guard,
      ports: this.ports,
      timeoutMs: this.limits.nameServerTimeoutMs,
      signal: this.signal,
    };
    const found = await takeoverTests(this.chained, this.delegations, {
      ...context,
      providers: this.providers,
      web: this.web,
      hostConcurrency: this.limits.hostConcurrency,
      isAllowed: (a) => this.isAllowed(a),
    });
    this.takeovers.push(...found);
  }

  /** The egress guard's decision for an address, remembered for the run (bounded). */
  private isAllowed(address: string): boolean {
    return this.guardDecisions.isAllowed(address);
  }

  private warn(message: string): void {
    if (this.warnings.length < maxWarnings) this.warnings.push(message);
  }

  private report(): DiscoveryReport {
    return buildReport({
      root: this.root,
      states: this.states,
      unresolvedFirm: this.unresolvedFirm.values(),
      wildcards: this.wildcards.observations(),
      names: this.live.values(),
      takeovers: this.takeovers,
      warnings: this.warnings,
      stats: { ...this.stats, httpRequests: this.web.requests },
    });
  }
}

/**
 * Discovers the names under a root domain and, when asked, the ones another party could take
 * over. Called once per monitoring run by the core: re-checks the names it gives (known and
 * zone names), scrapes DNS answers, certificates and pages recursively to `maxDepth`, tries the
 * word list and permutations (with wildcard filtering) when brute force is on, and reports
 * plain data; it never writes the store. Every connection passes the egress guard. Live names
 * are returned in `report.names`, or, when `request.onNames` is given, handed to it in batches
 * as they are confirmed (awaited; `report.names` is then empty). Rejects with the signal's
 * reason when aborted (or with the error `onNames` rejects with); never throws for an
 * unreachable host or a failed lookup.
 */
export async function discoverSurface(deps: DiscoveryDeps, request: DiscoveryRequest): Promise<DiscoveryReport> {
  request.signal.throwIfAborted();
  const root = normaliseHost(request.root);
  if (root === undefined || !root.includes('.'))
    throw new Error(`discovery: ${JSON.stringify(request.root)} is not a domain name`);
  // One internal signal carries the caller's abort to the many lookups and requests in flight
  // (each listens to it), so the caller's signal holds a single listener.
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const forward = (): void => controller.abort(request.signal.reason);
  request.signal.addEventListener('abort', forward, { once: true });
  try {
    return await new DiscoveryRun(deps, { ...request, signal: controller.signal }, root).run();
  } finally {
    request.signal.removeEventListener('abort', forward);
  }
}
