import type { AssetRepository } from '../assets/asset.types.ts';
import type { ApiKeyRepository, TeamRepository } from '../teams/team.types.ts';

/** Every repository of the core, bound to one connection or transaction. */
export interface Repositories {
  teams: TeamRepository;
  keys: ApiKeyRepository;
  assets: AssetRepository;
}

/**
 * The core's view of storage: repositories outside a transaction, and a way to run several
 * operations in one transaction (all or nothing).
 */
export interface Store extends Repositories {
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** True when the store answers and every migration is applied. */
  isReady(): Promise<boolean>;
}
