import type { ServiceLogger } from '../shared/service-logger.ts';
import type { Team } from '../teams/team.types.ts';
import { assetEvent } from './asset-events.ts';
import type { Asset, AssetStore } from './asset.types.ts';

/**
 * Records an ownership check of an asset (`isVerified`: ownership proven, or an operator's
 * decision): a verified asset stays verified. When the check makes it verified, `asset.verified`
 * is logged in the same transaction (once, however many checks race).
 */
export async function recordOwnershipCheck(
  store: AssetStore,
  asset: Pick<Asset, 'id' | 'teamId'>,
  isVerified: boolean,
  at = new Date(),
): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.assets.lockTeam(asset.teamId);
    const current = await tx.assets.findById(asset.teamId, asset.id);
    if (current === undefined) return;
    await tx.assets.recordCheck(current.id, isVerified ? 'verified' : current.status, at);
    if (isVerified && current.status !== 'verified')
      await tx.events.append([assetEvent('asset.verified', current, at)]);
  });
}

/** What an ownership check found. */
export interface OwnershipCheckResult {
  isVerified: boolean;
  /** How ownership was proven, when it was. */
  via?: 'dns' | 'http' | 'https';
  /** What each way tried reported (unreachable, wrong code, denied by the egress guard …). */
  observations: string[];
}

/** The engine part that looks for the verification code; it never throws for "unreachable". */
export interface OwnershipChecker {
  check(
    target: { name: string; kind: 'domain' | 'ip'; port: number | null },
    code: string,
    signal: AbortSignal,
  ): Promise<OwnershipCheckResult>;
}

/**
 * Asset ownership: an asset becomes verified when a DNS TXT record at its name holds
 * `perimeter-verification=<team code>`, or `http(s)://NAME/.well-known/perimeter-verification.txt`
 * answers the code. A verified asset stays verified; a failed check only records the attempt.
 */
export class VerificationService {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly controller = new AbortController();

  constructor(
    private readonly store: AssetStore,
    private readonly checker: OwnershipChecker,
    private readonly timeoutMs: number,
    private readonly log: ServiceLogger,
  ) {}

  /** Runs one check now and records the outcome. */
  async check(team: Team, asset: Asset): Promise<OwnershipCheckResult> {
    const signal = AbortSignal.any([this.controller.signal, AbortSignal.timeout(this.timeoutMs)]);
    const result = await this.checker.check(
      { name: asset.name, kind: asset.kind, port: asset.port },
      team.verificationCode,
      signal,
    );
    await recordOwnershipCheck(this.store, asset, result.isVerified);
    this.log.info(
      { asset: asset.token, verified: result.isVerified, via: result.via, observations: result.observations },
      'ownership check',
    );
    return result;
  }

  /** Starts a check without waiting for it (after an asset is added). */
  checkInBackground(team: Team, asset: Asset): void {
    const run = this.check(team, asset).catch((err: unknown) => {
      this.log.warn({ asset: asset.token, err }, 'ownership check failed');
    });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /** Waits for the background checks (tests, graceful shutdown). */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Aborts the background checks and waits for them to end. */
  async close(): Promise<void> {
    this.controller.abort();
    await this.settle();
  }
}
