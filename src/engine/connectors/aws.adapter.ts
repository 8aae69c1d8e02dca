import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { Route53Client } from '@aws-sdk/client-route-53';
import { ConnectorRunError, type ProviderInventory } from '../../core/connectors/connector-run.types.ts';
import type { AdapterContext, ConnectorAdapter } from './connector-adapter.ts';
import { awsClientSettings, homeRegion, type AwsCredentials } from './aws-clients.ts';
import { awsCall } from './aws-errors.ts';
import { collectRoute53 } from './aws-route53.ts';
import { collectCompute } from './aws-compute.ts';

/**
 * Amazon Web Services through the official AWS SDK v3: Route 53 zones, EC2 addresses and ELBv2
 * load balancer names. Two ways in: an IAM user's access keys (CLOUD_A_CRED_BASED), or a role of
 * the customer's account assumed with this server's own credentials and the team's external ID
 * (CLOUD_A_ROLE_BASED), the way AWS recommends for third parties.
 */

/** The session name AWS records in the customer's CloudTrail for our role sessions. */
const roleSessionName = 'perimeter-connector';
/** Shortest session AWS grants; the provider below assumes the role again before it ends. */
const roleSessionSeconds = 900;
/**
 * Assume again when the session has less than this left: the SDK itself asks its credentials
 * provider again from 5 minutes before expiry, so the same margin avoids asking for nothing.
 */
const refreshMarginMs = 300_000;

/** Reads one account with the given credentials (Route 53 first, then each region's compute). */
async function collectAccount(context: AdapterContext, credentials: AwsCredentials): Promise<ProviderInventory> {
  const route53 = new Route53Client(awsClientSettings(context, homeRegion(context.options), credentials));
  const dns = await collectRoute53(route53, context.signal);
  const compute = await collectCompute(context, credentials);
  const seen = new Set(dns.hostnames.map((h) => h.name));
  const hostnames = [...dns.hostnames, ...compute.hostnames.filter((h) => !seen.has(h.name))];
  return { zones: dns.zones, addresses: compute.addresses, hostnames };
}

/**
 * A refusal of AssumeRole. AWS answers AccessDenied both when our own identity may not call
 * sts:AssumeRole and when the role's trust policy does not name our account or the external ID
 * (it does not say which), and the second is by far the common case for a connector: the customer
 * set the role up. It is a 'permission' failure (our credentials were accepted) and the message
 * says what to check. A refusal of the credentials is about this server's own, not the team's.
 */
function assumeRoleError(err: unknown): unknown {
  if (err instanceof ConnectorRunError && err.kind === 'credentials')
    return new ConnectorRunError(
      'credentials',
      `${err.message.replace('the credentials', "this server's own AWS credentials")}: the operator must fix them`,
    );
  if (err instanceof ConnectorRunError && err.kind === 'permission')
    return new ConnectorRunError(
      'permission',
      `${err.message}. The role's trust policy must allow this server's account to assume it and require ` +
        "the team's external ID (sts:ExternalId)",
    );
  return err;
}

/** Temporary credentials of a role session. */
interface SessionCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

/** A credentials provider that assumes the role and assumes it again shortly before the session ends. */
function assumedRoleCredentials(
  context: AdapterContext,
  serverCredentials: AwsCredentials | undefined,
): () => Promise<SessionCredentials> {
  const sts = new STSClient(awsClientSettings(context, homeRegion(context.options), serverCredentials));
  let current: SessionCredentials | undefined;
  return async () => {
    if (current !== undefined && current.expiration.getTime() - Date.now() > refreshMarginMs) return current;
    const answer = await awsCall('AssumeRole', context.signal, () =>
      sts.send(
        new AssumeRoleCommand({
          RoleArn: context.options.role_arn,
          ExternalId: context.externalId,
          RoleSessionName: roleSessionName,
          DurationSeconds: roleSessionSeconds,
        }),
        { abortSignal: context.signal },
      ),
    ).catch((err: unknown) => {
      throw assumeRoleError(err);
    });
    const c = answer.Credentials;
    if (c?.AccessKeyId === undefined || c.SecretAccessKey === undefined || c.SessionToken === undefined)
      throw new ConnectorRunError('provider', 'AWS answered AssumeRole without temporary credentials');
    current = {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      sessionToken: c.SessionToken,
      expiration: c.Expiration ?? new Date(Date.now() + roleSessionSeconds * 1000),
    };
    return current;
  };
}

/**
 * The role-based adapter. `serverCredentials` are this server's own AWS credentials; undefined
 * (production) lets the SDK's default provider chain find them (environment, shared files, SSO,
 * container or instance metadata: the operator's setup, not the customer's, so those lookups do
 * not pass the egress guard; every call to the customer's account does).
 */
export function createAwsRoleAdapter(serverCredentials?: AwsCredentials): ConnectorAdapter {
  return {
    provider: 'CLOUD_A_ROLE_BASED',
    async collect(context) {
      const credentials = assumedRoleCredentials(context, serverCredentials);
      // Assume first, so that a refused role fails the run before any other call is made.
      await credentials();
      return collectAccount(context, credentials);
    },
  };
}

/** CLOUD_A_ROLE_BASED with the server's credentials from the SDK's default provider chain. */
export const awsRoleAdapter: ConnectorAdapter = createAwsRoleAdapter();

/** CLOUD_A_CRED_BASED: an IAM user's access key id and secret access key from the options. */
export const awsCredentialsAdapter: ConnectorAdapter = {
  provider: 'CLOUD_A_CRED_BASED',
  collect(context) {
    const credentials = {
      accessKeyId: context.options.access_key ?? '',
      secretAccessKey: context.options.secret_key ?? '',
    };
    return collectAccount(context, credentials);
  },
};
