import type { BulkResolver } from '../dns/bulk-resolver.ts';
import type { WildcardObservation } from './discovery.types.ts';
import { randomLabel } from './discovery-names.ts';

/** Random labels asked per level: a wildcard that answers with rotating address subsets still shows in their union. */
const PROBES = 3;
/** Filtered names kept as samples per wildcard. */
const SAMPLES = 5;

/** What random labels under one parent resolved to. */
interface Wildcard {
  addresses: Set<string>;
  cnames: Set<string>;
  observation: WildcardObservation;
}

/** Addresses and the CNAME chain of a lookup answer for `name`. */
export function answerOf(
  name: string,
  records: Array<{ name: string; type: string; data: string }>,
): { addresses: string[]; chain: string[] } {
  // The common answer: one address of the name itself.
  if (records.length === 1) {
    const only = records[0] as { name: string; type: string; data: string };
    if ((only.type === 'A' || only.type === 'AAAA') && only.name === name) return { addresses: [only.data], chain: [] };
  }
  const chain: string[] = [];
  let current = name;
  for (let hop = 0; hop < 16; hop += 1) {
    const cname = records.find((r) => r.type === 'CNAME' && r.name === current);
    if (cname === undefined) break;
    current = cname.data.endsWith('.') ? cname.data.slice(0, -1) : cname.data;
    if (chain.includes(current)) break;
    chain.push(current);
  }
  const addresses = records
    .filter((r) => (r.type === 'A' || r.type === 'AAAA') && r.name === current)
    .map((r) => r.data);
  return { addresses: [...new Set(addresses)].sort(), chain };
}

/**
 * Detects wildcard levels and filters what they would flood the inventory with. A level is a
 * wildcard when random labels under it resolve; a brute-force or permutation candidate there is
 * dropped when its answer is the wildcard's (its CNAME target, or addresses all among the
 * wildcard's), and kept when it differs (a real record beside the wildcard). Each level is
 * probed once per run, the first time a candidate under it is judged.
 */
export class WildcardDetector {
  private readonly pending = new Map<string, Promise<Wildcard | undefined>>();
  private readonly known = new Map<string, Wildcard | undefined>();

  constructor(
    private readonly bulk: BulkResolver,
    private readonly signal: AbortSignal,
  ) {}

  /** The wildcard at `parent` when it is already known (undefined: none, or not probed yet; see isKnown). */
  peek(parent: string): Wildcard | undefined {
    return this.known.get(parent);
  }

  isKnown(parent: string): boolean {
    return this.known.has(parent);
  }

  /** Probes `parent` (once) and returns its wildcard, if any. */
  probe(parent: string): Promise<Wildcard | undefined> {
    let pending = this.pending.get(parent);
    if (pending === undefined) {
      pending = this.detect(parent).then((wildcard) => {
        this.known.set(parent, wildcard);
        return wildcard;
      });
      this.pending.set(parent, pending);
    }
    return pending;
  }

  /** True (and counted) when the answer is the wildcard's. */
  isWildcardAnswer(wildcard: Wildcard, name: string, addresses: string[], chain: string[]): boolean {
    const first = chain[0];
    const isSame =
      first !== undefined
        ? wildcard.cnames.has(first)
        : addresses.length > 0 && addresses.every((a) => wildcard.addresses.has(a));
    if (isSame) {
      wildcard.observation.filtered += 1;
      if (wildcard.observation.samples.length < SAMPLES) wildcard.observation.samples.push(name);
    }
    return isSame;
  }

  /** Every wildcard met so far. */
  observations(): WildcardObservation[] {
    return [...this.known.values()]
      .flatMap((w) => (w === undefined ? [] : [w.observation]))
      .sort((a, b) => a.parent.localeCompare(b.parent));
  }

  private async detect(parent: string): Promise<Wildcard | undefined> {
    const addresses = new Set<string>();
    const cnames = new Set<string>();
    const results = await Promise.all(
      Array.from({ length: PROBES }, () => this.bulk.lookup(`${randomLabel()}.${parent}`, ['A', 'AAAA'], this.signal)),
    );
    for (const result of results) {
      if (result.outcome !== 'answer') continue;
      const answer = answerOf(result.name, result.records);
      for (const address of answer.addresses) addresses.add(address);
      if (answer.chain[0] !== undefined) cnames.add(answer.chain[0]);
    }
    if (addresses.size === 0 && cnames.size === 0) return undefined;
    return {
      addresses,
      cnames,
      observation: { parent, addresses: [...addresses].sort(), cnames: [...cnames].sort(), filtered: 0, samples: [] },
    };
  }
}
