import type { Static } from '@sinclair/typebox';
import { toWireTime } from '../../core/shared/time.ts';
import type { TechnologyRecord } from '../../core/surface/technology-inventory.types.ts';
import type { Technology } from './technology.schemas.ts';

/** The v3 wire shape of an inventory technology. */
export function presentTechnology(technology: TechnologyRecord, teamToken: string): Static<typeof Technology> {
  return {
    id: String(technology.id),
    asset_id: technology.assetToken,
    team_id: teamToken,
    domain_name: technology.domainName,
    service_protocol: technology.serviceProtocol,
    port: technology.port,
    name: technology.name,
    version: technology.version,
    categories: technology.categories,
    active: technology.active,
    first_seen_at: toWireTime(technology.firstSeenAt),
    disappeared_at: technology.disappearedAt === null ? null : toWireTime(technology.disappearedAt),
  };
}
