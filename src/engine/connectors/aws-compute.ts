import {
  DescribeAddressesCommand,
  DescribeInstancesCommand,
  DescribeRegionsCommand,
  EC2Client,
  type Instance,
} from '@aws-sdk/client-ec2';
import { DescribeLoadBalancersCommand, ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import type { ProviderAddress, ProviderHostname } from '../../core/connectors/connector-run.types.ts';
import type { AdapterContext } from './connector-adapter.ts';
import { awsClientSettings, configuredRegions, homeRegion, type AwsCredentials } from './aws-clients.ts';
import { awsCall } from './aws-errors.ts';

/**
 * EC2 and ELBv2, region by region: Elastic IPs, the public IPv4 and the IPv6 addresses of
 * instances, and the DNS names of internet-facing load balancers. Regions are the configured
 * ones, or every region enabled for the account (DescribeRegions in the home region).
 */

/** What compute holds for the account. */
export interface ComputeInventory {
  addresses: ProviderAddress[];
  hostnames: ProviderHostname[];
}

/** The regions to read: the options' list, else the account's enabled regions. */
async function regionsToRead(context: AdapterContext, credentials: AwsCredentials): Promise<string[]> {
  const listed = configuredRegions(context.options);
  if (listed !== undefined) return listed;
  const client = new EC2Client(awsClientSettings(context, homeRegion(context.options), credentials));
  const answer = await awsCall('DescribeRegions', context.signal, () =>
    client.send(new DescribeRegionsCommand({ AllRegions: false }), { abortSignal: context.signal }),
  );
  return (answer.Regions ?? []).flatMap((r) => (r.RegionName === undefined ? [] : [r.RegionName])).sort();
}

/** The public addresses of one instance: its public IPv4 and its interfaces' IPv6 addresses. */
function instanceAddresses(instance: Instance, region: string): ProviderAddress[] {
  const source = `ec2 instance ${instance.InstanceId ?? 'unknown'} (${region})`;
  const found: ProviderAddress[] = [];
  if (instance.PublicIpAddress !== undefined) found.push({ address: instance.PublicIpAddress, source });
  for (const nic of instance.NetworkInterfaces ?? []) {
    if (nic.Association?.PublicIp !== undefined) found.push({ address: nic.Association.PublicIp, source });
    for (const v6 of nic.Ipv6Addresses ?? [])
      if (v6.Ipv6Address !== undefined) found.push({ address: v6.Ipv6Address, source });
  }
  return found;
}

/** Elastic IPs and instance addresses of one region. */
async function regionAddresses(client: EC2Client, region: string, signal: AbortSignal): Promise<ProviderAddress[]> {
  const found: ProviderAddress[] = [];
  const eips = await awsCall('DescribeAddresses', signal, () =>
    client.send(new DescribeAddressesCommand({}), { abortSignal: signal }),
  );
  for (const eip of eips.Addresses ?? [])
    if (eip.PublicIp !== undefined)
      found.push({ address: eip.PublicIp, source: `elastic ip ${eip.AllocationId ?? eip.PublicIp} (${region})` });
  let token: string | undefined;
  do {
    signal.throwIfAborted();
    const nextToken = token;
    const page = await awsCall('DescribeInstances', signal, () =>
      client.send(new DescribeInstancesCommand({ NextToken: nextToken, MaxResults: 1000 }), { abortSignal: signal }),
    );
    for (const reservation of page.Reservations ?? [])
      for (const instance of reservation.Instances ?? []) found.push(...instanceAddresses(instance, region));
    token = page.NextToken === '' ? undefined : page.NextToken;
  } while (token !== undefined);
  return found;
}

/** The DNS names of the internet-facing load balancers of one region (Marker paging). */
async function regionLoadBalancers(
  client: ElasticLoadBalancingV2Client,
  region: string,
  signal: AbortSignal,
): Promise<ProviderHostname[]> {
  const found: ProviderHostname[] = [];
  let marker: string | undefined;
  do {
    signal.throwIfAborted();
    const current = marker;
    const page = await awsCall('DescribeLoadBalancers', signal, () =>
      client.send(new DescribeLoadBalancersCommand({ Marker: current, PageSize: 400 }), { abortSignal: signal }),
    );
    for (const lb of page.LoadBalancers ?? [])
      if (lb.Scheme === 'internet-facing' && lb.DNSName !== undefined)
        found.push({
          name: lb.DNSName.replace(/\.$/, '').toLowerCase(),
          source: `load balancer ${lb.LoadBalancerName ?? lb.DNSName} (${region})`,
        });
    marker = page.NextMarker === '' ? undefined : page.NextMarker;
  } while (marker !== undefined);
  return found;
}

/**
 * Addresses and load balancer names of every region read, each address once (first source kept).
 * Clients are not destroy()ed: that would destroy the run's guarded agents, which the context owns.
 */
export async function collectCompute(context: AdapterContext, credentials: AwsCredentials): Promise<ComputeInventory> {
  const addresses = new Map<string, ProviderAddress>();
  const hostnames = new Map<string, ProviderHostname>();
  for (const region of await regionsToRead(context, credentials)) {
    context.signal.throwIfAborted();
    const ec2 = new EC2Client(awsClientSettings(context, region, credentials));
    const elb = new ElasticLoadBalancingV2Client(awsClientSettings(context, region, credentials));
    for (const a of await regionAddresses(ec2, region, context.signal))
      if (!addresses.has(a.address)) addresses.set(a.address, a);
    for (const h of await regionLoadBalancers(elb, region, context.signal))
      if (!hostnames.has(h.name)) hostnames.set(h.name, h);
  }
  return { addresses: [...addresses.values()], hostnames: [...hostnames.values()] };
}
