import type { NewEvent } from '../events/event.types.ts';
import type { Severity } from '../vulnerabilities/vulnerability.types.ts';
import type { PolicySeverity } from './policy-catalogue.ts';
import type { Breach, BreachEventRepositories } from './breach.types.ts';

/**
 * The events of breach evaluation (breach.opened, breach.closed), built from the breaches one
 * evaluation opened, reopened and resolved and appended in its transaction, in one call. The
 * data carries exactly the catalogue's fields (core/events/event-catalogue.ts); the event's
 * severity (what webhook filters compare) is the policy's, in the findings' scale.
 */

/** A policy severity in the scale of findings and events (`INFO` is `information`). */
export function eventSeverity(severity: PolicySeverity): Severity {
  return severity === 'INFO' ? 'information' : (severity.toLowerCase() as Severity);
}

/** The fields of a breach that its events carry. */
export type BreachChange = Pick<Breach, 'id' | 'policyId' | 'policyName' | 'assetName' | 'severity'>;

/**
 * Appends a breach.opened event per opened (new or reopened) breach and a breach.closed event per
 * resolved one, in the caller's transaction; the root asset's token and name are read once, and
 * only when there is an event to write.
 */
export async function appendBreachEvents(
  tx: BreachEventRepositories,
  change: { teamId: number; assetId: number; at: Date },
  opened: readonly BreachChange[],
  closed: readonly BreachChange[],
): Promise<void> {
  if (opened.length + closed.length === 0) return;
  const asset = await tx.assets.findById(change.teamId, change.assetId);
  // The asset deleted meanwhile: its breaches go with it, and no event names it.
  if (asset === undefined) return;
  const event = (kind: 'breach.opened' | 'breach.closed', b: BreachChange): NewEvent => ({
    teamId: change.teamId,
    kind,
    occurredAt: change.at,
    assetId: asset.id,
    severity: eventSeverity(b.severity),
    data: {
      asset_token: asset.token,
      asset_name: asset.name,
      breach_id: String(b.id),
      policy_id: b.policyId,
      policy_name: b.policyName,
      host: b.assetName,
      severity: eventSeverity(b.severity),
    },
  });
  await tx.events.append([
    ...opened.map((b) => event('breach.opened', b)),
    ...closed.map((b) => event('breach.closed', b)),
  ]);
}
