import { evaluatePolicies, policyById, type PolicyBreachObservation, type PolicyInput } from './policy-catalogue.ts';
import { appendBreachEvents, type BreachChange } from './breach-events.ts';
import { chunksOf } from '../shared/chunks.ts';
import type { InventoryPosition } from '../shared/inventory-list.ts';
import { diffInventory } from '../shared/inventory-diff.ts';
import type {
  Breach,
  BreachListFilter,
  BreachPage,
  BreachRepositories,
  BreachStore,
  NewBreach,
} from './breach.types.ts';

/** What one evaluation changed. */
export interface BreachEvaluationSummary {
  /** (policy, host) pairs in breach for the first time. */
  opened: number;
  /** RESOLVED breaches found breached again (NEW again). */
  reopened: number;
  /** NEW breaches no longer breached (RESOLVED). */
  resolved: number;
  /** (policy, host) pairs in breach now. */
  breached: number;
}

/** The identity of a breach within its root asset. */
function breachKey(policyId: string, assetName: string): string {
  return `${policyId} ${assetName}`;
}

/** The inventory of one root asset as the policies read it: open ports and active technologies. */
async function policyInput(tx: BreachRepositories, teamId: number, assetId: number): Promise<PolicyInput> {
  // One after the other: a transaction holds one connection.
  const ports = await tx.ports.listOfAsset(teamId, assetId);
  const technologies = await tx.technologies.listOfAsset(teamId, assetId);
  return {
    ports: ports
      .filter((p) => p.status === 'OPEN')
      .map((p) => ({
        ipAddress: p.ipAddress,
        port: p.port,
        domainName: p.domainName,
        service: p.service.name,
        isTls: p.service.isTls,
        isHttp: p.service.isHttp,
      })),
    technologies: technologies
      .filter((t) => t.active)
      .map((t) => ({
        domainName: t.domainName,
        port: t.port,
        name: t.name,
        version: t.version,
        categories: t.categories,
      })),
  };
}

/**
 * Evaluates the policies over a root asset's inventory as it stands (after a completed
 * monitoring run recorded its ports and technologies) and brings its breaches in line, in one
 * transaction: a (policy, host) in breach for the first time is inserted NEW (first seen and
 * status updated now); a RESOLVED one breached again is NEW again (first_seen_at kept,
 * disappeared_at cleared); a NEW one no longer breached becomes RESOLVED and inactive, with
 * disappeared_at and status_updated_at now. Running it twice over the same inventory changes
 * nothing but last_seen_at. A breach.opened event is written for every breach opened or
 * reopened and a breach.closed event for every one resolved, in the same transaction.
 */
export async function evaluateBreaches(
  store: BreachStore,
  input: { teamId: number; assetId: number; at: number },
): Promise<BreachEvaluationSummary> {
  const at = new Date(input.at);
  return store.transaction(async (tx) => {
    const observed = evaluatePolicies(await policyInput(tx, input.teamId, input.assetId));
    const seen = new Map<string, PolicyBreachObservation>(observed.map((o) => [breachKey(o.policyId, o.assetName), o]));
    const existing = await tx.breaches.listOfAsset(input.teamId, input.assetId);
    const diff = diffInventory(
      existing,
      seen,
      (row: Breach) => breachKey(row.policyId, row.assetName),
      (row) => row.active,
    );
    const fresh: NewBreach[] = diff.fresh.map(({ seen: o }) => {
      const policy = policyById.get(o.policyId)!;
      return {
        teamId: input.teamId,
        assetId: input.assetId,
        policyId: policy.id,
        policyName: policy.name,
        assetName: o.assetName,
        severity: policy.severity,
        evidence: o.evidence,
        at,
      };
    });
    const opened: BreachChange[] = [];
    for (const part of chunksOf(fresh)) opened.push(...(await tx.breaches.insertMany(part)));
    for (const { row, seen: o } of diff.again)
      if (row.evidence !== o.evidence) await tx.breaches.setEvidence(input.teamId, row.id, o.evidence);
    for (const part of chunksOf(diff.again.map(({ row }) => row.id)))
      await tx.breaches.markSeen(input.teamId, part, at);
    for (const part of chunksOf(diff.again.filter(({ row }) => !row.active).map(({ row }) => row.id)))
      await tx.breaches.markReturned(input.teamId, part, at);
    for (const part of chunksOf(diff.gone.map((row) => row.id))) await tx.breaches.markResolved(input.teamId, part, at);
    opened.push(...diff.again.filter(({ row }) => !row.active).map(({ row }) => row));
    await appendBreachEvents(tx, { teamId: input.teamId, assetId: input.assetId, at }, opened, diff.gone);
    return { opened: fresh.length, reopened: diff.returned, resolved: diff.gone.length, breached: seen.size };
  });
}

/** One page of the team's breaches in (first_seen_at, id) order, after the given position. */
export function listBreaches(
  store: BreachStore,
  teamId: number,
  filter: BreachListFilter,
  after: InventoryPosition | undefined,
  limit: number,
): Promise<BreachPage> {
  return store.breaches.listPage({ teamId, filter, after, limit });
}
