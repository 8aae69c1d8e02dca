import { readFileSync } from 'node:fs';
import type { BulkResolver, LookupResult } from '../dns/bulk-resolver.ts';
import { HttpRequestError } from '../http-scan/check-kit/guarded-http-client.ts';
import type { EgressGuard } from '../net/egress-guard.ts';
import { queryNameServer, type DirectAnswer } from './direct-query.ts';
import type { DiscoveryPorts, TakeoverObservation, TakeoverProvider } from './discovery.types.ts';
import { isUnderRoot } from './discovery-names.ts';
import type { WebReader } from './web-sources.ts';
import { eachLimited, type Chained } from './run-support.ts';
import { answerOf } from './wildcard-detector.ts';

/** The shipped provider data file (curated from can-i-take-over-xyz, see docs/discovery.md). */
export const providersPath = new URL('./lists/takeover-providers.json', import.meta.url);

let shipped: readonly TakeoverProvider[] | undefined;

/** Validates the provider file's shape; throws naming the first bad entry. */
export function parseProviders(text: string): TakeoverProvider[] {
  const data = JSON.parse(text) as { providers?: unknown };
  if (!Array.isArray(data.providers)) throw new Error('takeover providers: no "providers" array');
  return data.providers.map((entry: unknown, index) => {
    const p = entry as Partial<TakeoverProvider>;
    const isStrings = (value: unknown): value is string[] =>
      Array.isArray(value) && value.every((item) => typeof item === 'string');
    if (
      typeof p.provider !== 'string' ||
      !isStrings(p.cnames) ||
      !isStrings(p.fingerprints) ||
      typeof p.nxdomain !== 'boolean' ||
      !['vulnerable', 'edge case', 'not vulnerable'].includes(p.status ?? '')
    ) {
      throw new Error(`takeover providers: entry ${index} (${JSON.stringify(p.provider)}) is malformed`);
    }
    return {
      provider: p.provider,
      cnames: p.cnames.map((c) => c.toLowerCase()),
      fingerprints: p.fingerprints,
      nxdomain: p.nxdomain,
      status: p.status as TakeoverProvider['status'],
      reference: p.reference ?? '',
    };
  });
}

/** The shipped providers, read once per process. */
export function shippedProviders(): readonly TakeoverProvider[] {
  shipped ??= parseProviders(readFileSync(providersPath, 'utf8'));
  return shipped;
}

/** The provider whose CNAME suffix the target equals or sits under (the longest suffix wins). */
export function providerOf(target: string, providers: readonly TakeoverProvider[]): TakeoverProvider | undefined {
  let best: { provider: TakeoverProvider; length: number } | undefined;
  for (const provider of providers) {
    for (const suffix of provider.cnames) {
      if (isUnderRoot(target, suffix) && (best === undefined || suffix.length > best.length))
        best = { provider, length: suffix.length };
    }
  }
  return best?.provider;
}

/** The first "unclaimed" signature of the provider found in the body. */
export function matchFingerprint(body: string, provider: TakeoverProvider): string | undefined {
  return provider.fingerprints.find((fingerprint) => fingerprint !== '' && body.includes(fingerprint));
}

/**
 * A dangling CNAME: the chain's last target does not exist. `own` is the lookup of the name
 * (a resolver answers NXDOMAIN with the chain in it), `target` the lookup of the last target
 * when the name's answer stopped at the CNAME.
 */
export function danglingCname(
  name: string,
  chain: string[],
  own: LookupResult,
  target: LookupResult | undefined,
  providers: readonly TakeoverProvider[],
): TakeoverObservation | undefined {
  const last = chain[chain.length - 1];
  if (last === undefined) return undefined;
  const decisive = own.outcome === 'nxdomain' ? own : target;
  if (decisive === undefined || decisive.outcome !== 'nxdomain') return undefined;
  const provider = providerOf(last, providers);
  const links = chain.map((t, i) => `${i === 0 ? name : chain[i - 1]} CNAME ${t}.`).join('; ');
  return {
    name,
    kind: 'cname',
    target: last,
    ...(provider === undefined ? {} : { provider: provider.provider }),
    evidence: `${links}; ${decisive === own ? name : last}: NXDOMAIN (the target does not exist and can be registered or claimed)`,
  };
}

/**
 * A CNAME into a provider that serves its "unclaimed" page for the name: the page at `/` over
 * HTTPS then HTTP is read with the name as host; a body holding the provider's signature is
 * the evidence. A claimed resource (normal content) raises nothing.
 */
export async function unclaimedAtProvider(
  name: string,
  chain: string[],
  providers: readonly TakeoverProvider[],
  web: WebReader,
): Promise<TakeoverObservation | undefined> {
  const target = chain.find((t) => providerOf(t, providers) !== undefined);
  const provider = target === undefined ? undefined : providerOf(target, providers);
  if (
    target === undefined ||
    provider === undefined ||
    provider.status !== 'vulnerable' ||
    provider.fingerprints.length === 0
  )
    return undefined;
  for (const scheme of ['https', 'http'] as const) {
    const url = web.urlOf(name, scheme);
    const answer = await web.get(url);
    if (answer instanceof HttpRequestError) continue;
    const signature = matchFingerprint(answer.body, provider);
    if (signature === undefined) continue;
    return {
      name,
      kind: 'cname',
      target,
      provider: provider.provider,
      evidence: `${name} CNAME ${chain.join(' → ')}; GET ${url.href} answered ${answer.status} with ${provider.provider}'s unclaimed-resource page: "${signature}"`,
    };
  }
  return undefined;
}

/** One delegation to check: the zone cut and its name servers (from the parent's referral). */
export interface Delegation {
  zone: string;
  nameServers: string[];
}

/** Why one name server does not serve the zone, or undefined when it does (or could not be judged). */
function serverFailure(answer: DirectAnswer, zone: string): string | undefined {
  if (answer.kind === 'timeout' || answer.kind === 'denied' || answer.kind === 'error') return undefined;
  const { message, rcode } = answer;
  if (rcode === 'SERVFAIL' || rcode === 'REFUSED' || rcode === 'NXDOMAIN') return `answered ${rcode} for ${zone} SOA`;
  if (rcode !== 'NOERROR') return undefined;
  const hasSoa = message.answers.some((r) => r.type === 'SOA' && r.name === zone);
  if (hasSoa && message.isAuthoritative) return undefined;
  return `answered without an authoritative SOA for ${zone} (${message.authorities.some((r) => r.type === 'NS') ? 'a referral' : 'no data'}): the zone is not hosted there`;
}

/**
 * A broken delegation: every name server of the zone either does not exist (NXDOMAIN) or, asked
 * directly for the zone's SOA, answers SERVFAIL, REFUSED, NXDOMAIN or without the zone. A server
 * that times out or that the egress guard refuses cannot be judged, so it keeps the delegation
 * from being reported (no false alarm for a firewalled server).
 */
export async function brokenDelegation(
  delegation: Delegation,
  deps: { bulk: BulkResolver; guard: EgressGuard; ports: DiscoveryPorts; timeoutMs: number; signal: AbortSignal },
): Promise<TakeoverObservation | undefined> {
  if (delegation.nameServers.length === 0) return undefined;
  const reasons: string[] = [];
  for (const server of delegation.nameServers) {
    const lookup = await deps.bulk.lookup(server, ['A', 'AAAA'], deps.signal);
    if (lookup.outcome === 'nxdomain') {
      reasons.push(`${server}: NXDOMAIN (the name server's name does not exist)`);
      continue;
    }
    const addresses = lookup.records.filter((r) => r.type === 'A' || r.type === 'AAAA').map((r) => r.data);
    if (addresses.length === 0) return undefined;
    const failures: string[] = [];
    for (const address of addresses) {
      const answer = await queryNameServer(
        deps.guard,
        { address, port: deps.ports.dns },
        delegation.zone,
        'SOA',
        deps.timeoutMs,
        deps.signal,
      );
      const failure = serverFailure(answer, delegation.zone);
      if (failure === undefined) return undefined;
      failures.push(`${server} (${address}) ${failure}`);
    }
    reasons.push(...failures);
  }
  return {
    name: delegation.zone,
    kind: 'ns',
    target: delegation.nameServers.join(', '),
    evidence: `${delegation.zone} NS ${delegation.nameServers.map((s) => `${s}.`).join(' ')}; ${reasons.join('; ')}`,
  };
}

/** What the takeover phase of a run needs. */
export interface TakeoverContext {
  bulk: BulkResolver;
  guard: EgressGuard;
  ports: DiscoveryPorts;
  timeoutMs: number;
  signal: AbortSignal;
  providers: readonly TakeoverProvider[];
  web: WebReader;
  hostConcurrency: number;
  /** The egress guard's (cached) decision for an address. */
  isAllowed: (address: string) => boolean;
}

/**
 * The takeover phase of a run: every live name with a CNAME chain (a dangling target, or a
 * provider's "unclaimed" page when its addresses may be reached) and every delegation under the root.
 */
export async function takeoverTests(
  chained: ReadonlyMap<string, Chained>,
  delegations: readonly Delegation[],
  context: TakeoverContext,
): Promise<TakeoverObservation[]> {
  const found: TakeoverObservation[] = [];
  await eachLimited([...chained.entries()], context.hostConcurrency, async ([name, entry]) => {
    const chain = entry.cnames;
    let observation: TakeoverObservation | undefined;
    if (entry.addresses.length === 0) {
      const own = entry.nxdomainAnswer ?? (await context.bulk.lookup(name, ['A', 'AAAA'], context.signal));
      const last = chain[chain.length - 1] as string;
      const target =
        own.outcome === 'nxdomain' ? undefined : await context.bulk.lookup(last, ['A', 'AAAA'], context.signal);
      observation = danglingCname(name, chain, own, target, context.providers);
    } else if (entry.addresses.every((a) => context.isAllowed(a))) {
      observation = await unclaimedAtProvider(name, chain, context.providers, context.web);
    }
    if (observation !== undefined) found.push(observation);
  });
  await eachLimited(delegations, 8, async (delegation) => {
    const observation = await brokenDelegation(delegation, context);
    if (observation !== undefined) found.push(observation);
  });
  return found;
}

/**
 * Names that exist without an address (NODATA) or fail (SERVFAIL, REFUSED) may be zone cuts:
 * the root's own name servers, asked directly, answer a delegation with its NS records. Answers
 * the delegations found, or undefined when no name server of the root may be reached.
 */
export async function findDelegations(
  candidates: readonly string[],
  rootServers: readonly string[],
  context: Omit<TakeoverContext, 'providers' | 'web' | 'hostConcurrency'>,
): Promise<Delegation[] | undefined> {
  const addresses: string[] = [];
  for (const server of rootServers) {
    const result = await context.bulk.lookup(server, ['A', 'AAAA'], context.signal);
    addresses.push(...answerOf(server, result.records).addresses.filter((a) => context.isAllowed(a)));
  }
  if (addresses.length === 0) return undefined;
  const found: Delegation[] = [];
  await eachLimited(candidates, 8, async (zone) => {
    for (const address of addresses) {
      const answer = await queryNameServer(
        context.guard,
        { address, port: context.ports.dns },
        zone,
        'NS',
        context.timeoutMs,
        context.signal,
      );
      if (answer.kind !== 'message') continue;
      const records = [...answer.message.answers, ...answer.message.authorities].filter(
        (r) => r.type === 'NS' && r.name === zone,
      );
      if (records.length > 0) found.push({ zone, nameServers: records.map((r) => r.data.replace(/\.$/, '')) });
      return;
    }
  });
  return found;
}
