import { el, failure, success, type XmlAnswer } from './aws-xml.ts';

/**
 * The operations the local AWS server answers, over its seeded state: Route 53 ListHostedZones
 * and ListResourceRecordSets, EC2 DescribeRegions / DescribeAddresses / DescribeInstances, and
 * ELBv2 DescribeLoadBalancers, each paging as AWS documents it (Marker/NextMarker and
 * IsTruncated for Route 53 zones, NextRecordName/Type/Identifier for record sets, NextToken for
 * EC2, NextMarker for ELBv2) with page sizes the tests choose.
 */

/** A record set as Route 53 stores it (names as Route 53 writes them: absolute, `\052` for `*`). */
export interface FakeRecordSet {
  name: string;
  type: string;
  ttl?: number;
  values?: string[];
  /** An alias record: the target's DNS name (no TTL, no values). */
  alias?: string;
  setIdentifier?: string;
  weight?: number;
}

/** A hosted zone. */
export interface FakeHostedZone {
  /** Without the `/hostedzone/` prefix. */
  id: string;
  name: string;
  isPrivate?: boolean;
  recordSets: FakeRecordSet[];
}

/** An EC2 instance. */
export interface FakeInstance {
  id: string;
  publicIp?: string;
  privateIp?: string;
  ipv6?: string[];
}

/** What one region holds. */
export interface FakeRegion {
  elasticIps: { allocationId: string; publicIp: string }[];
  instances: FakeInstance[];
  loadBalancers: { name: string; dnsName: string; scheme: 'internet-facing' | 'internal' }[];
}

/** The account behind the server. */
export interface FakeAwsAccount {
  zones: FakeHostedZone[];
  regions: Record<string, FakeRegion>;
}

/** Page sizes the server uses (the smaller of these and the caller's MaxItems / MaxResults). */
export interface FakeAwsPageSizes {
  zones: number;
  recordSets: number;
  instances: number;
  loadBalancers: number;
}

const pageToken = (index: number): string => Buffer.from(`page:${index}`).toString('base64');
const pageIndex = (token: string | null | undefined): number =>
  token === null || token === undefined ? 0 : Number(Buffer.from(token, 'base64').toString().slice(5)) || 0;
const sizeOf = (asked: string | null | undefined, server: number): number =>
  asked === null || asked === undefined ? server : Math.min(Number(asked), server);

/** GET /2013-04-01/hostedzone?marker=&maxitems= */
export function listHostedZones(account: FakeAwsAccount, query: URLSearchParams, size: number): XmlAnswer {
  const marker = query.get('marker');
  const start = marker === null ? 0 : account.zones.findIndex((z) => z.id === marker);
  if (start < 0) return failure('route53', 400, 'InvalidInput', 'The specified marker is not valid.');
  const max = sizeOf(query.get('maxitems'), Math.min(size, 100));
  const page = account.zones.slice(start, start + max);
  const next = account.zones[start + max];
  const zones = page
    .map(
      (z) =>
        `<HostedZone>${el('Id', `/hostedzone/${z.id}`)}${el('Name', z.name)}${el('CallerReference', `ref-${z.id}`)}` +
        `<Config><PrivateZone>${z.isPrivate === true}</PrivateZone></Config>` +
        `${el('ResourceRecordSetCount', z.recordSets.length)}</HostedZone>`,
    )
    .join('');
  const inner =
    `<HostedZones>${zones}</HostedZones>${marker === null ? '' : el('Marker', marker)}` +
    `<IsTruncated>${next !== undefined}</IsTruncated>${next === undefined ? '' : el('NextMarker', next.id)}` +
    el('MaxItems', max);
  return success('route53', 'ListHostedZones', inner);
}

/** Route 53's listing order: names compared label by label from the right, then type, then identifier. */
export function recordSetOrder(a: FakeRecordSet, b: FakeRecordSet): number {
  const key = (s: FakeRecordSet) => s.name.toLowerCase().replace(/\.$/, '').split('.').reverse().join('\u0001');
  const [ka, kb] = [key(a), key(b)];
  if (ka !== kb) return ka < kb ? -1 : 1;
  if (a.type !== b.type) return a.type < b.type ? -1 : 1;
  return (a.setIdentifier ?? '') < (b.setIdentifier ?? '')
    ? -1
    : (a.setIdentifier ?? '') > (b.setIdentifier ?? '')
      ? 1
      : 0;
}

function recordSetXml(s: FakeRecordSet): string {
  const records = (s.values ?? []).map((v) => `<ResourceRecord>${el('Value', v)}</ResourceRecord>`).join('');
  const body =
    s.alias === undefined
      ? `${el('TTL', s.ttl ?? 300)}<ResourceRecords>${records}</ResourceRecords>`
      : `<AliasTarget><HostedZoneId>Z35SXDOTRQ7X7K</HostedZoneId>${el('DNSName', s.alias)}<EvaluateTargetHealth>false</EvaluateTargetHealth></AliasTarget>`;
  return (
    `<ResourceRecordSet>${el('Name', s.name)}${el('Type', s.type)}${el('SetIdentifier', s.setIdentifier)}` +
    `${el('Weight', s.weight)}${body}</ResourceRecordSet>`
  );
}

/** GET /2013-04-01/hostedzone/{Id}/rrset?name=&type=&identifier=&maxitems= (sets sorted by recordSetOrder). */
export function listRecordSets(zone: FakeHostedZone, query: URLSearchParams, size: number): XmlAnswer {
  const name = query.get('name');
  const type = query.get('type');
  if (type !== null && name === null)
    return failure('route53', 400, 'InvalidInput', 'The input is not valid: type without name');
  const from: FakeRecordSet = { name: name ?? '', type: type ?? '', setIdentifier: query.get('identifier') ?? '' };
  const start = name === null ? 0 : zone.recordSets.findIndex((s) => recordSetOrder(s, from) >= 0);
  const sets = start < 0 ? [] : zone.recordSets.slice(start);
  const max = sizeOf(query.get('maxitems'), Math.min(size, 300));
  const page = sets.slice(0, max);
  const next = sets[max];
  const inner =
    `<ResourceRecordSets>${page.map(recordSetXml).join('')}</ResourceRecordSets>` +
    `<IsTruncated>${next !== undefined}</IsTruncated>` +
    (next === undefined
      ? ''
      : el('NextRecordName', next.name) +
        el('NextRecordType', next.type) +
        el('NextRecordIdentifier', next.setIdentifier)) +
    el('MaxItems', max);
  return success('route53', 'ListResourceRecordSets', inner);
}

/** EC2 DescribeRegions (the account's enabled regions). */
export function describeRegions(account: FakeAwsAccount): XmlAnswer {
  const items = Object.keys(account.regions)
    .map(
      (r) =>
        `<item>${el('regionName', r)}${el('regionEndpoint', `ec2.${r}.amazonaws.com`)}<optInStatus>opt-in-not-required</optInStatus></item>`,
    )
    .join('');
  return success('ec2', 'DescribeRegions', `<regionInfo>${items}</regionInfo>`);
}

/** EC2 DescribeAddresses (not paged, as AWS documents). */
export function describeAddresses(region: FakeRegion): XmlAnswer {
  const items = region.elasticIps
    .map((a) => `<item>${el('publicIp', a.publicIp)}${el('allocationId', a.allocationId)}<domain>vpc</domain></item>`)
    .join('');
  return success('ec2', 'DescribeAddresses', `<addressesSet>${items}</addressesSet>`);
}

function instanceXml(i: FakeInstance): string {
  const v6 = (i.ipv6 ?? []).map((a) => `<item>${el('ipv6Address', a)}</item>`).join('');
  const nic =
    `<networkInterfaceSet><item>${el('networkInterfaceId', `eni-${i.id.slice(2)}`)}${el('privateIpAddress', i.privateIp)}` +
    (i.publicIp === undefined ? '' : `<association>${el('publicIp', i.publicIp)}</association>`) +
    `<ipv6AddressesSet>${v6}</ipv6AddressesSet></item></networkInterfaceSet>`;
  return (
    `<item>${el('instanceId', i.id)}<instanceState><code>16</code><name>running</name></instanceState>` +
    `${el('privateIpAddress', i.privateIp)}${el('ipAddress', i.publicIp)}${nic}</item>`
  );
}

/** EC2 DescribeInstances (NextToken / MaxResults 5..1000; one reservation per instance). */
export function describeInstances(region: FakeRegion, params: URLSearchParams, size: number): XmlAnswer {
  const asked = params.get('MaxResults');
  if (asked !== null && (Number(asked) < 5 || Number(asked) > 1000))
    return failure('ec2', 400, 'InvalidParameterValue', 'Value for parameter maxResults is invalid.');
  const start = pageIndex(params.get('NextToken'));
  const max = sizeOf(asked, size);
  const page = region.instances.slice(start, start + max);
  const more = start + max < region.instances.length;
  const reservations = page
    .map(
      (i) =>
        `<item>${el('reservationId', `r-${i.id.slice(2)}`)}<ownerId>123456789012</ownerId><groupSet/>` +
        `<instancesSet>${instanceXml(i)}</instancesSet></item>`,
    )
    .join('');
  const inner = `<reservationSet>${reservations}</reservationSet>${more ? el('nextToken', pageToken(start + max)) : ''}`;
  return success('ec2', 'DescribeInstances', inner);
}

/** ELBv2 DescribeLoadBalancers (Marker / NextMarker, PageSize 1..400). */
export function describeLoadBalancers(region: FakeRegion, params: URLSearchParams, size: number): XmlAnswer {
  const start = pageIndex(params.get('Marker'));
  const max = sizeOf(params.get('PageSize'), size);
  const page = region.loadBalancers.slice(start, start + max);
  const more = start + max < region.loadBalancers.length;
  const members = page
    .map(
      (lb) =>
        `<member>${el('LoadBalancerArn', `arn:aws:elasticloadbalancing:region:123456789012:loadbalancer/app/${lb.name}/50dc6c495c0c9188`)}` +
        `${el('Scheme', lb.scheme)}${el('LoadBalancerName', lb.name)}${el('DNSName', lb.dnsName)}` +
        `<Type>application</Type><State><Code>active</Code></State><IpAddressType>ipv4</IpAddressType></member>`,
    )
    .join('');
  const inner = `<LoadBalancers>${members}</LoadBalancers>${more ? el('NextMarker', pageToken(start + max)) : ''}`;
  return success('elasticloadbalancing', 'DescribeLoadBalancers', inner);
}
