import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { continents, countries, type TCountryCode } from 'countries-list';
import { Reader, type CountryResponse } from 'maxmind';
import type { IpEnricher, IpEnrichment } from '../../core/surface/ip-inventory.types.ts';
import { parseIp } from '../../shared/cidr.ts';
import { specialRangeOf } from '../net/special-purpose-ranges.ts';
import { AsnTable } from './asn-table.ts';

const require = createRequire(import.meta.url);

/**
 * The data files, all shipped in npm packages (see docs/surface-monitoring.md for sources and
 * licences); `npm update` of the packages refreshes them.
 */
export const ipDataFiles = {
  /** Country per range (geofeeds, RIR whois and RIR delegations merged), CC0 / CC BY 4.0 NRO. */
  country: () => require.resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb'),
  /** Autonomous system per IPv4 range (RouteViews, RIRs, DB-IP), CC BY 4.0. */
  asnIpv4: () => require.resolve('@ip-location-db/asn/asn-ipv4-num.csv'),
  /** Autonomous system per IPv6 range (RIRs, DB-IP), CC BY 4.0. */
  asnIpv6: () => require.resolve('@ip-location-db/asn/asn-ipv6-num.csv'),
};

interface Loaded {
  /** The records hold `country_code` only (the ip-location-db layout, not MaxMind's). */
  countries: Reader<CountryResponse>;
  asns: AsnTable;
}

/** The data of this process, read once whichever enricher asks first. */
let shared: Promise<Loaded> | undefined;

/**
 * Autonomous system and country of public addresses from the shipped data, loaded once per
 * process (on the first prepare, about a second) and kept in memory. An address that is not globally
 * reachable (IANA special-purpose registries: loopback, private, documentation …) is never
 * looked up and comes back undefined, as does one the data does not know.
 */
export class OfflineIpEnricher implements IpEnricher {
  private loaded: Loaded | undefined;

  async prepare(): Promise<void> {
    shared ??= load().catch((err: unknown) => {
      // A failed read is retried by the next prepare instead of being remembered.
      shared = undefined;
      throw err;
    });
    this.loaded ??= await shared;
  }

  enrich(address: string): IpEnrichment | undefined {
    if (this.loaded === undefined) throw new Error('OfflineIpEnricher.enrich called before prepare()');
    const ip = parseIp(address);
    if (ip === undefined) return undefined;
    const special = specialRangeOf(ip);
    if (special !== undefined && special.globallyReachable !== true) return undefined;
    const as = this.loaded.asns.lookup(address);
    const record = this.loaded.countries.get(address) as { country_code?: unknown } | null;
    const code = typeof record?.country_code === 'string' ? record.country_code.toUpperCase() : undefined;
    const country = code !== undefined && Object.hasOwn(countries, code) ? countries[code as TCountryCode] : undefined;
    if (as === undefined && country === undefined) return undefined;
    return {
      asNumber: as?.number ?? null,
      asName: as?.name ?? null,
      asDomain: null,
      continent: country?.continent ?? null,
      continentName: country === undefined ? null : continents[country.continent],
      country: country === undefined ? null : code!,
      countryName: country?.name ?? null,
    };
  }
}

async function load(): Promise<Loaded> {
  const [countryDb, asnV4, asnV6] = await Promise.all([
    readFile(ipDataFiles.country()),
    readFile(ipDataFiles.asnIpv4(), 'utf8'),
    readFile(ipDataFiles.asnIpv6(), 'utf8'),
  ]);
  return { countries: new Reader<CountryResponse>(countryDb), asns: AsnTable.parse(asnV4, asnV6) };
}
