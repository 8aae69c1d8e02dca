import type { RootDomain } from '../assets/asset.types.ts';
import { parentName } from './dns-names.ts';

/** Finds, for any name, the most specific root asset it falls under (the name itself or a parent). */
export class RootMatcher {
  private readonly byName: Map<string, RootDomain>;

  constructor(roots: RootDomain[]) {
    this.byName = new Map(roots.map((r) => [r.name, r]));
  }

  get isEmpty(): boolean {
    return this.byName.size === 0;
  }

  /** Walks up label by label; an escaped dot (`foo\.example.com`: labels `foo.example`, `com`) is no step. */
  match(name: string): RootDomain | undefined {
    for (let rest: string | undefined = name; rest !== undefined; rest = parentName(rest)) {
      const root = this.byName.get(rest);
      if (root !== undefined) return root;
    }
    return undefined;
  }
}
