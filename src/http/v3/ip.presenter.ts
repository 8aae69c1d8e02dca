import type { Static } from '@sinclair/typebox';
import { toWireTime } from '../../core/shared/time.ts';
import type { IpAddressRecord } from '../../core/surface/ip-inventory.types.ts';
import type { IpAddress } from './ip.schemas.ts';

/** The v3 wire shape of an inventory address. */
export function presentIpAddress(ip: IpAddressRecord, teamToken: string): Static<typeof IpAddress> {
  const e = ip.enrichment;
  return {
    id: String(ip.id),
    ip_address: ip.ipAddress,
    ip_version: ip.ipVersion,
    domain_name: ip.domainName,
    asset_id: ip.assetToken,
    team_id: teamToken,
    active: ip.active,
    enriched: ip.enriched,
    first_seen_at: toWireTime(ip.firstSeenAt),
    disappeared_at: ip.disappearedAt === null ? null : toWireTime(ip.disappearedAt),
    autonomous_system: { name: e.asName, domain: e.asDomain, number: e.asNumber },
    geolocation: { continent: e.continent, continent_name: e.continentName, country: e.country, country_name: e.countryName },
  };
}
