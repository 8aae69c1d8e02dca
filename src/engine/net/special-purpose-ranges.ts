import { isInRange, parseCidr, type CidrRange, type IpAddress } from '../../shared/cidr.ts';

/**
 * The address ranges the egress guard knows, in one table. Each row is an entry of an IANA
 * registry (or, for `metadata`, of this project) with the registry's "Globally Reachable" value.
 * The guard denies every range that is not globally reachable; a more specific row wins over the
 * rows that contain it, so 192.0.0.9/32 (True) stays reachable inside 192.0.0.0/24 (False).
 *
 * Registry versions used (written offline, without fetching iana.org; compare with
 * https://www.iana.org/assignments/iana-ipv4-special-registry/ and
 * https://www.iana.org/assignments/iana-ipv6-special-registry/ when a registry changes):
 * - IANA IPv4 Special-Purpose Address Registry, last updated 2025-10-09 (RFC 6890)
 * - IANA IPv6 Special-Purpose Address Registry, last updated 2025-10-09 (RFC 6890); newest
 *   entry 100:0:0:1::/64 (RFC 9780, 2025-04)
 * - IANA Internet Protocol Version 6 Address Space, last updated 2025-10-23: the blocks
 *   "Reserved by IETF" (IANA assigns global unicast from 2000::/3 only; a LAN may route the
 *   rest) and ff00::/8 multicast
 * - IANA IPv4 Multicast Address Space Registry (RFC 5771): 224.0.0.0/4 as a whole
 *
 * "Globally Reachable: N/A" (Teredo, 6to4) and the empty cells of terminated entries
 * (192.88.99.0/24, 2001:10::/28) count as not globally reachable: N/A means the registry cannot
 * vouch for the range, and reachability there depends on a relay and on the IPv4 address the
 * IPv6 address carries, which may be an internal host. An allow-list entry opens them; the guard still judges
 * the embedded IPv4 address (see embedded-ipv4.ts).
 */

/** One row: where it comes from, what it is called, and whether it is globally reachable. */
export interface SpecialRange {
  cidr: CidrRange;
  /** The registry's name of the entry. */
  name: string;
  rfc: string;
  /** The registry's "Globally Reachable"; 'n/a' also stands for the empty cells of a terminated entry. */
  globallyReachable: boolean | 'n/a';
  /** The word used in messages: `10.0.0.1 is in private range 10.0.0.0/8`. */
  label: string;
  registry: string;
}

type Row = [cidr: string, label: string, name: string, rfc: string, globallyReachable: boolean | 'n/a'];

const IPV4_SPECIAL = 'IANA IPv4 Special-Purpose Address Registry (2025-10-09)';
const IPV6_SPECIAL = 'IANA IPv6 Special-Purpose Address Registry (2025-10-09)';
const IPV6_SPACE = 'IANA Internet Protocol Version 6 Address Space (2025-10-23)';
const IPV4_MULTICAST = 'IANA IPv4 Multicast Address Space Registry (RFC 5771)';
const PERIMETER = 'perimeter: cloud metadata endpoints';

const TABLE: ReadonlyArray<[registry: string, rows: Row[]]> = [
  [
    IPV4_SPECIAL,
    [
      ['0.0.0.0/8', 'this-network', '"This network"', 'RFC 791 §3.2', false],
      ['0.0.0.0/32', 'unspecified', '"This host on this network"', 'RFC 1122 §3.2.1.3', false],
      ['10.0.0.0/8', 'private', 'Private-Use', 'RFC 1918', false],
      ['100.64.0.0/10', 'CGNAT', 'Shared Address Space', 'RFC 6598', false],
      ['127.0.0.0/8', 'loopback', 'Loopback', 'RFC 1122 §3.2.1.3', false],
      ['169.254.0.0/16', 'link-local', 'Link Local', 'RFC 3927', false],
      ['172.16.0.0/12', 'private', 'Private-Use', 'RFC 1918', false],
      ['192.0.0.0/24', 'IETF protocol assignments', 'IETF Protocol Assignments', 'RFC 6890 §2.1', false],
      ['192.0.0.0/29', 'IPv4 service continuity', 'IPv4 Service Continuity Prefix', 'RFC 7335', false],
      ['192.0.0.8/32', 'dummy', 'IPv4 dummy address', 'RFC 7600', false],
      ['192.0.0.9/32', 'PCP anycast', 'Port Control Protocol Anycast', 'RFC 7723', true],
      ['192.0.0.10/32', 'TURN anycast', 'Traversal Using Relays around NAT Anycast', 'RFC 8155', true],
      ['192.0.0.170/32', 'NAT64 discovery', 'NAT64/DNS64 Discovery', 'RFC 8880, RFC 7050 §2.2', false],
      ['192.0.0.171/32', 'NAT64 discovery', 'NAT64/DNS64 Discovery', 'RFC 8880, RFC 7050 §2.2', false],
      ['192.0.2.0/24', 'documentation', 'Documentation (TEST-NET-1)', 'RFC 5737', false],
      ['192.31.196.0/24', 'AS112', 'AS112-v4', 'RFC 7535', true],
      ['192.52.193.0/24', 'AMT', 'AMT', 'RFC 7450', true],
      ['192.88.99.0/24', '6to4 relay anycast (deprecated)', 'Deprecated (6to4 Relay Anycast)', 'RFC 7526', 'n/a'],
      ['192.88.99.2/32', '6a44 relay anycast', '6a44-relay anycast address', 'RFC 6751', false],
      ['192.168.0.0/16', 'private', 'Private-Use', 'RFC 1918', false],
      ['192.175.48.0/24', 'AS112', 'Direct Delegation AS112 Service', 'RFC 7534', true],
      ['198.18.0.0/15', 'benchmarking', 'Benchmarking', 'RFC 2544', false],
      ['198.51.100.0/24', 'documentation', 'Documentation (TEST-NET-2)', 'RFC 5737', false],
      ['203.0.113.0/24', 'documentation', 'Documentation (TEST-NET-3)', 'RFC 5737', false],
      ['240.0.0.0/4', 'reserved', 'Reserved', 'RFC 1112 §4', false],
      ['255.255.255.255/32', 'limited broadcast', 'Limited Broadcast', 'RFC 8190, RFC 919 §7', false],
    ],
  ],
  [
    IPV6_SPECIAL,
    [
      ['::1/128', 'loopback', 'Loopback Address', 'RFC 4291', false],
      ['::/128', 'unspecified', 'Unspecified Address', 'RFC 4291', false],
      // Judged by the IPv4 address it spells, never by this row (see embedded-ipv4.ts).
      ['::ffff:0:0/96', 'IPv4-mapped', 'IPv4-mapped Address', 'RFC 4291', false],
      ['64:ff9b::/96', 'NAT64', 'IPv4-IPv6 Translat.', 'RFC 6052', true],
      ['64:ff9b:1::/48', 'NAT64 local-use', 'IPv4-IPv6 Translat.', 'RFC 8215', false],
      ['100::/64', 'discard-only', 'Discard-Only Address Block', 'RFC 6666', false],
      ['100:0:0:1::/64', 'dummy', 'Dummy IPv6 Prefix', 'RFC 9780', false],
      ['2001::/23', 'IETF protocol assignments', 'IETF Protocol Assignments', 'RFC 2928', false],
      ['2001::/32', 'Teredo', 'TEREDO', 'RFC 4380, RFC 8190', 'n/a'],
      ['2001:1::1/128', 'PCP anycast', 'Port Control Protocol Anycast', 'RFC 7723', true],
      ['2001:1::2/128', 'TURN anycast', 'Traversal Using Relays around NAT Anycast', 'RFC 8155', true],
      ['2001:1::3/128', 'DNS-SD SRP anycast', 'DNS-SD Service Registration Protocol Anycast', 'RFC 9665', true],
      ['2001:2::/48', 'benchmarking', 'Benchmarking', 'RFC 5180, RFC Errata 1752', false],
      ['2001:3::/32', 'AMT', 'AMT', 'RFC 7450', true],
      ['2001:4:112::/48', 'AS112', 'AS112-v6', 'RFC 7535', true],
      ['2001:10::/28', 'ORCHID (deprecated)', 'Deprecated (previously ORCHID)', 'RFC 4843', 'n/a'],
      ['2001:20::/28', 'ORCHIDv2', 'ORCHIDv2', 'RFC 7343', true],
      ['2001:30::/28', 'drone remote ID', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', 'RFC 9374', true],
      ['2001:db8::/32', 'documentation', 'Documentation', 'RFC 3849', false],
      ['2002::/16', '6to4', '6to4', 'RFC 3056', 'n/a'],
      ['2620:4f:8000::/48', 'AS112', 'Direct Delegation AS112 Service', 'RFC 7534', true],
      ['3fff::/20', 'documentation', 'Documentation', 'RFC 9637', false],
      ['5f00::/16', 'SRv6 SIDs', 'Segment Routing (SRv6) SIDs', 'RFC 9602', false],
      ['fc00::/7', 'private', 'Unique-Local', 'RFC 4193, RFC 8190', false],
      ['fe80::/10', 'link-local', 'Link-Local Unicast', 'RFC 4291', false],
    ],
  ],
  [
    IPV6_SPACE,
    [
      ['::/8', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      // Noted under ::/8: the deprecated IPv4-compatible prefix; its own row for the message.
      ['::/96', 'IPv4-compatible (deprecated)', 'IPv4-compatible IPv6 address', 'RFC 4291 §2.5.5.1', false],
      ['100::/8', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['200::/7', 'reserved', 'Reserved by IETF (formerly OSI NSAP-mapped)', 'RFC 4048', false],
      ['400::/6', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['800::/5', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['1000::/4', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['4000::/3', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['6000::/3', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['8000::/3', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['a000::/3', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['c000::/3', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['e000::/4', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['f000::/5', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['f800::/6', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['fe00::/9', 'reserved', 'Reserved by IETF', 'RFC 4291', false],
      ['fec0::/10', 'site-local (deprecated)', 'Reserved by IETF (formerly site-local)', 'RFC 3879', false],
      ['ff00::/8', 'multicast', 'Multicast', 'RFC 4291', false],
    ],
  ],
  [IPV4_MULTICAST, [['224.0.0.0/4', 'multicast', 'IPv4 multicast address space', 'RFC 5771', false]]],
  // Inside link-local and unique-local space, so denied anyway; their own rows name them.
  [
    PERIMETER,
    [
      ['169.254.169.254/32', 'metadata', 'cloud instance metadata (AWS, GCP, Azure, …)', '-', false],
      ['fd00:ec2::254/128', 'metadata', 'AWS instance metadata over IPv6', '-', false],
    ],
  ],
];

/** Every row, the most specific first, so the first match is the entry that decides. */
export const SPECIAL_RANGES: readonly SpecialRange[] = TABLE.flatMap(([registry, rows]) =>
  rows.map(([text, label, name, rfc, globallyReachable]) => {
    const cidr = parseCidr(text);
    if (cidr === undefined) throw new Error(`special-purpose table: bad CIDR ${text}`);
    return { cidr, name, rfc, globallyReachable, label, registry };
  }),
).sort((a, b) => b.cidr.prefix - a.cidr.prefix);

/** The most specific row containing the address, if any (IPv4-mapped addresses match only ::ffff:0:0/96). */
export function specialRangeOf(ip: IpAddress): SpecialRange | undefined {
  return SPECIAL_RANGES.find((range) => isInRange(ip, range.cidr));
}
