import type { DiscoverySource } from './discovery.types.ts';

/** Where a name stands in a run. */
export const Status = {
  pending: 0,
  live: 1,
  goneNxdomain: 2,
  goneNodata: 3,
  unresolved: 4,
  filtered: 5,
} as const;
export type Status = (typeof Status)[keyof typeof Status];

/** Sources in the order their bits are numbered (and listed after the first one). */
const SOURCES: readonly DiscoverySource[] = [
  'known',
  'zone',
  'dns',
  'certificate',
  'page',
  'brute-force',
  'permutation',
];
const SOURCE_INDEX = new Map<DiscoverySource, number>(SOURCES.map((source, index) => [source, index]));
/** Sources that are evidence a name exists (a wildcard never filters them). */
const FIRM_MASK = sourceMask(['dns', 'certificate', 'page', 'zone', 'known']);
/** Sources whose names get their own MX/NS/TXT asked: found names, not bulk lists. */
const SCRAPED_MASK = sourceMask(['dns', 'certificate', 'page']);
const GIVEN_MASK = sourceMask(['known', 'zone']);

// Layout of a packed state: status (3 bits), sources mask (7), first source (3), depth (the rest).
const STATUS_BITS = 0x7;
const MASK_SHIFT = 3;
const FIRST_SHIFT = 10;
const DEPTH_SHIFT = 13;
const MAX_DEPTH = 0xffff;

function sourceMask(sources: DiscoverySource[]): number {
  return sources.reduce((mask, source) => mask | (1 << (SOURCE_INDEX.get(source) as number)), 0);
}

const maskOf = (packed: number): number => (packed >>> MASK_SHIFT) & 0x7f;
const depthOf = (packed: number): number => packed >>> DEPTH_SHIFT;

/** What add() did: a new name, a filtered name firmly seen again, a known name with a new source or smaller depth, or nothing. */
export type AddChange = 'new' | 'requeued' | 'grown' | 'same';

/**
 * What a run knows of every name it met, one small integer per name (status, sources, the
 * first source and the depth): the only per-name state kept for the whole run, so a run over
 * a large inventory holds a map of names to numbers rather than an object per name.
 */
export class NameStates {
  private readonly states = new Map<string, number>();

  get size(): number {
    return this.states.size;
  }

  /** Records a name from a source at a depth (the smallest depth wins). */
  add(name: string, source: DiscoverySource, depth: number): AddChange {
    const bit = 1 << (SOURCE_INDEX.get(source) as number);
    const packed = this.states.get(name);
    const clamped = Math.min(Math.max(0, depth), MAX_DEPTH);
    if (packed === undefined) {
      this.states.set(
        name,
        Status.pending |
          (bit << MASK_SHIFT) |
          ((SOURCE_INDEX.get(source) as number) << FIRST_SHIFT) |
          (clamped << DEPTH_SHIFT),
      );
      return 'new';
    }
    let next = packed | (bit << MASK_SHIFT);
    if (clamped < depthOf(packed)) next = (next & ((1 << DEPTH_SHIFT) - 1)) | (clamped << DEPTH_SHIFT);
    if ((packed & STATUS_BITS) === Status.filtered && (bit & FIRM_MASK) !== 0) {
      this.states.set(name, (next & ~STATUS_BITS) | Status.pending);
      return 'requeued';
    }
    if (next === packed) return 'same';
    this.states.set(name, next);
    return 'grown';
  }

  /** The packed state of a name (read it with the statics below), undefined when never met. */
  get(name: string): number | undefined {
    return this.states.get(name);
  }

  static status(packed: number): Status {
    return (packed & STATUS_BITS) as Status;
  }

  static depth(packed: number): number {
    return depthOf(packed);
  }

  static isFirm(packed: number): boolean {
    return (maskOf(packed) & FIRM_MASK) !== 0;
  }

  static isScraped(packed: number): boolean {
    return (maskOf(packed) & SCRAPED_MASK) !== 0;
  }

  /** True when a source other than the core's lists (known, zone) produced the name. */
  static isFound(packed: number): boolean {
    return (maskOf(packed) & ~GIVEN_MASK) !== 0;
  }

  /** The sources of a packed state: the first one that produced the name, then the others. */
  static sources(packed: number): DiscoverySource[] {
    const mask = maskOf(packed);
    const first = (packed >>> FIRST_SHIFT) & 0x7;
    const sources: DiscoverySource[] = [SOURCES[first] as DiscoverySource];
    if (mask !== 1 << first)
      for (let index = 0; index < SOURCES.length; index += 1)
        if (index !== first && (mask & (1 << index)) !== 0) sources.push(SOURCES[index] as DiscoverySource);
    return sources;
  }

  /** Sets the status of a name whose packed state was read with get(). */
  setStatusOf(name: string, packed: number, status: Status): void {
    this.states.set(name, (packed & ~STATUS_BITS) | status);
  }

  /** The status of a name, undefined when never met. */
  status(name: string): Status | undefined {
    const packed = this.states.get(name);
    return packed === undefined ? undefined : ((packed & STATUS_BITS) as Status);
  }

  /** Sets the status of a name met before. */
  setStatus(name: string, status: Status): void {
    const packed = this.states.get(name);
    if (packed !== undefined) this.states.set(name, (packed & ~STATUS_BITS) | status);
  }

  /** Names the core gave (known, zone) that ended NXDOMAIN or NODATA. */
  *goneGiven(): Generator<[string, 'nxdomain' | 'nodata']> {
    for (const [name, packed] of this.states) {
      const status = packed & STATUS_BITS;
      if ((status === Status.goneNxdomain || status === Status.goneNodata) && (maskOf(packed) & GIVEN_MASK) !== 0)
        yield [name, status === Status.goneNxdomain ? 'nxdomain' : 'nodata'];
    }
  }
}
