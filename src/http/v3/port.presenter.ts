import type { Static } from '@sinclair/typebox';
import { toWireTime } from '../../core/shared/time.ts';
import type { PortRecord } from '../../core/surface/port-inventory.types.ts';
import type { Port } from './port.schemas.ts';

/** The v3 wire shape of an inventory port. */
export function presentPort(port: PortRecord, teamToken: string): Static<typeof Port> {
  return {
    id: String(port.id),
    team_id: teamToken,
    asset_id: port.assetToken,
    domain_name: port.domainName,
    ip_address: port.ipAddress,
    port: port.port,
    status: port.status,
    first_seen_at: toWireTime(port.firstSeenAt),
    disappeared_at: port.disappearedAt === null ? null : toWireTime(port.disappearedAt),
  };
}
