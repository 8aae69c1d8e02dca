import { NodeHttpHandler } from '@smithy/node-http-handler';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import type { STSClientConfig } from '@aws-sdk/client-sts';
import type { AdapterContext } from './connector-adapter.ts';

/**
 * What every AWS client of a run shares: the guarded Node agents (the SDK never opens a
 * connection of its own), the run's request time-out, a short retry back-off and, when the
 * operator set one, the endpoint that replaces every AWS service URL (the tests' local server
 * answers STS, Route 53, EC2 and ELBv2 on one port and tells them apart by the signing scope).
 */

/** The credentials a client signs with: fixed keys or a provider that refreshes them. */
export type AwsCredentials = NonNullable<STSClientConfig['credentials']>;

/** Attempts per call, the first included (the SDK's standard mode also makes 3 retries). */
const maxAttempts = 4;

/**
 * Milliseconds to wait before retry `attempt` (1-based). The SDK's own throttling base is a
 * second with jitter; a connector run would rather fail fast as 'throttled' and run again at its
 * next schedule than hold a worker for long, so 0.2 s, 0.4 s, 0.8 s.
 */
const retryDelayMs = (attempt: number): number => 100 * 2 ** attempt;

/** The settings passed to each client's constructor (the config types share these fields). */
export interface AwsClientSettings {
  region: string;
  endpoint?: string;
  credentials?: AwsCredentials;
  requestHandler: NodeHttpHandler;
  retryStrategy: ConfiguredRetryStrategy;
  maxAttempts: number;
  retryMode: string;
  defaultsMode: 'standard';
  useFipsEndpoint: boolean;
  useDualstackEndpoint: boolean;
  ignoreConfiguredEndpointUrls: boolean;
  authSchemePreference: string[];
  disableClockSkewCorrection: boolean;
  userAgentAppId: () => Promise<string | undefined>;
}

/**
 * Client settings for one region. `credentials` undefined lets the SDK use its default provider
 * chain (the server's own identity, for the role assumption). Every setting the SDK would
 * otherwise look up in AWS_* variables and ~/.aws/config (endpoint URL, FIPS, dual-stack, retry
 * mode, app id…) is pinned, so the host's AWS setup cannot redirect or reshape a run.
 */
export function awsClientSettings(
  context: AdapterContext,
  region: string,
  credentials: AwsCredentials | undefined,
): AwsClientSettings {
  return {
    region,
    ...(context.endpoint === undefined ? {} : { endpoint: context.endpoint }),
    ...(credentials === undefined ? {} : { credentials }),
    requestHandler: new NodeHttpHandler({
      httpAgent: context.agents.http,
      httpsAgent: context.agents.https,
      requestTimeout: context.requestTimeoutMs,
      connectionTimeout: context.requestTimeoutMs,
      throwOnRequestTimeout: true,
    }),
    retryStrategy: new ConfiguredRetryStrategy(maxAttempts, retryDelayMs),
    maxAttempts,
    retryMode: 'standard',
    defaultsMode: 'standard',
    useFipsEndpoint: false,
    useDualstackEndpoint: false,
    ignoreConfiguredEndpointUrls: true,
    authSchemePreference: [],
    disableClockSkewCorrection: false,
    userAgentAppId: () => Promise.resolve(undefined),
  };
}

/**
 * The region global services (STS, Route 53) and DescribeRegions are called in: that of the
 * account's partition, told by a role ARN (arn:aws-cn:…) or by the first configured region.
 */
export function homeRegion(options: Readonly<Record<string, string>>): string {
  const partition = /^arn:(aws[a-z-]*):/.exec(options.role_arn ?? '')?.[1];
  const firstRegion = configuredRegions(options)?.[0] ?? '';
  if (partition === 'aws-cn' || firstRegion.startsWith('cn-')) return 'cn-north-1';
  if (partition === 'aws-us-gov' || firstRegion.startsWith('us-gov-')) return 'us-gov-west-1';
  return 'us-east-1';
}

/** The regions the options name (`regions`, a comma list), or undefined for "every enabled one". */
export function configuredRegions(options: Readonly<Record<string, string>>): string[] | undefined {
  const listed = (options.regions ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  return listed.length === 0 ? undefined : [...new Set(listed)];
}

/** The options of each `send`: the run's signal aborts the call. */
export function sendOptions(context: AdapterContext): { abortSignal: AbortSignal } {
  return { abortSignal: context.signal };
}
