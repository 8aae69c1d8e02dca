import type { ConnectorProvider } from './connector.types.ts';

/**
 * The option fields of each provider (docs/connectors.md has the same table): which are required,
 * which optional, and the shape a value must have. A create body naming a field its provider does
 * not have, missing a required one, or giving one in the wrong shape answers 1051 naming the field.
 */
export interface OptionField {
  name: string;
  isRequired: boolean;
  /** For people (docs, OpenAPI). */
  meaning: string;
  /** What a value must look like, or undefined for any non-empty text. */
  shape?: { pattern: RegExp; says: string };
}

const uuid = {
  pattern: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  says: 'a UUID',
};
const regionList = {
  pattern: /^[a-z]{2}(?:-[a-z]+)+-\d(?:\s*,\s*[a-z]{2}(?:-[a-z]+)+-\d)*$/,
  says: 'a comma-separated list of region names such as us-east-1,eu-west-1',
};
const awsRegions: OptionField = {
  name: 'regions',
  isRequired: false,
  meaning: 'Regions whose compute and load balancers are read (default: every region enabled for the account)',
  shape: regionList,
};

/** The real provider each value stands for (the spec hides their names; docs/connectors.md). */
export const connectorProviderNames: Readonly<Record<ConnectorProvider, string>> = {
  CLOUD_A_ROLE_BASED: 'Amazon Web Services, role assumption',
  CLOUD_A_CRED_BASED: 'Amazon Web Services, access keys',
  CLOUD_B: 'Microsoft Azure',
  CLOUD_C: 'Google Cloud',
  CDN_D: 'Cloudflare',
  CLOUD_E: 'DigitalOcean',
  CLOUD_F: 'Oracle Cloud Infrastructure',
  REGISTRAR_G: 'GoDaddy',
  DNS_H: 'IBM NS1 Connect',
};

/** Every provider's option fields, in the order the docs list them. */
export const connectorOptionFields: Readonly<Record<ConnectorProvider, readonly OptionField[]>> = {
  CLOUD_A_ROLE_BASED: [
    {
      name: 'role_arn',
      isRequired: true,
      meaning: "The IAM role to assume; its trust policy names this server's account and the team's external ID",
      shape: {
        pattern: /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/,
        says: 'an IAM role ARN (arn:aws:iam::<12 digits>:role/<name>)',
      },
    },
    awsRegions,
  ],
  CLOUD_A_CRED_BASED: [
    {
      name: 'access_key',
      isRequired: true,
      meaning: 'The access key ID of an IAM user',
      shape: {
        pattern: /^[A-Z0-9]{16,128}$/,
        says: 'an access key ID (16 to 128 capital letters and digits, e.g. AKIA…)',
      },
    },
    { name: 'secret_key', isRequired: true, meaning: 'Its secret access key' },
    awsRegions,
  ],
  CLOUD_B: [
    { name: 'tenant_id', isRequired: true, meaning: 'The Microsoft Entra tenant (directory) ID', shape: uuid },
    { name: 'client_id', isRequired: true, meaning: 'The application (client) ID of a service principal', shape: uuid },
    { name: 'client_secret', isRequired: true, meaning: 'A client secret of that application' },
    {
      name: 'subscription_id',
      isRequired: true,
      meaning: 'The subscription whose DNS zones and public IP addresses are read',
      shape: uuid,
    },
  ],
  CLOUD_C: [
    {
      name: 'service_account_key',
      isRequired: true,
      meaning: 'The JSON key file of a service account (its whole text)',
      shape: {
        pattern: /^\s*\{[\s\S]*"type"\s*:\s*"service_account"[\s\S]*\}\s*$/,
        says: 'the JSON key file of a service account ("type": "service_account")',
      },
    },
    {
      name: 'project_id',
      isRequired: false,
      meaning: "The project whose Cloud DNS zones and addresses are read (default: the key's project)",
      shape: {
        pattern: /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/,
        says: 'a project ID (6 to 30 lower-case letters, digits or hyphens)',
      },
    },
  ],
  CDN_D: [
    { name: 'api_token', isRequired: true, meaning: 'An API token with Zone:Read and DNS:Read' },
    {
      name: 'account_id',
      isRequired: false,
      meaning: 'Read only the zones of this account (default: every zone the token can read)',
      shape: { pattern: /^[0-9a-f]{32}$/, says: 'an account ID (32 hexadecimal characters)' },
    },
  ],
  CLOUD_E: [{ name: 'token', isRequired: true, meaning: 'A personal access token with read scope' }],
  CLOUD_F: [
    {
      name: 'tenancy_ocid',
      isRequired: true,
      meaning: 'The tenancy OCID',
      shape: { pattern: /^ocid1\.tenancy\.[a-z0-9.-]*\.[a-z0-9]+$/, says: 'a tenancy OCID (ocid1.tenancy.…)' },
    },
    {
      name: 'user_ocid',
      isRequired: true,
      meaning: 'The OCID of the API signing user',
      shape: { pattern: /^ocid1\.user\.[a-z0-9.-]*\.[a-z0-9]+$/, says: 'a user OCID (ocid1.user.…)' },
    },
    {
      name: 'fingerprint',
      isRequired: true,
      meaning: 'The fingerprint of its API signing key',
      shape: {
        pattern: /^[0-9a-f]{2}(?::[0-9a-f]{2}){15}$/,
        says: 'a key fingerprint (16 hexadecimal pairs separated by colons)',
      },
    },
    {
      name: 'private_key',
      isRequired: true,
      meaning: 'The API signing private key (PEM)',
      shape: {
        pattern: /^\s*-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+-----END [A-Z ]*PRIVATE KEY-----\s*$/,
        says: 'a PEM private key',
      },
    },
    { name: 'passphrase', isRequired: false, meaning: 'The passphrase of the private key, when it has one' },
    {
      name: 'region',
      isRequired: true,
      meaning: 'The home region, e.g. eu-frankfurt-1',
      shape: { pattern: /^[a-z]{2}(?:-[a-z]+)+-\d$/, says: 'a region name such as eu-frankfurt-1' },
    },
    {
      name: 'compartment_ocid',
      isRequired: false,
      meaning: 'The compartment read (default: the tenancy, the root compartment)',
      shape: {
        pattern: /^ocid1\.(?:compartment|tenancy)\.[a-z0-9.-]*\.[a-z0-9]+$/,
        says: 'a compartment OCID (ocid1.compartment.…)',
      },
    },
  ],
  REGISTRAR_G: [
    { name: 'api_key', isRequired: true, meaning: 'A production API key' },
    { name: 'api_secret', isRequired: true, meaning: 'Its secret' },
  ],
  DNS_H: [{ name: 'api_key', isRequired: true, meaning: 'An API key allowed to view zones' }],
};

/** What is wrong with a provider's options, naming the field, or undefined. Values are never echoed. */
export function connectorOptionsProblem(
  provider: ConnectorProvider,
  options: Readonly<Record<string, string>>,
): { field: string; problem: string } | undefined {
  const fields = connectorOptionFields[provider];
  for (const name of Object.keys(options)) {
    if (!fields.some((f) => f.name === name))
      return {
        field: `options.${name}`,
        problem: `is not an option of provider ${provider} (its options: ${fields.map((f) => f.name).join(', ')})`,
      };
  }
  for (const field of fields) {
    const value = options[field.name];
    if (value === undefined) {
      if (field.isRequired) return { field: `options.${field.name}`, problem: `is required for provider ${provider}` };
      continue;
    }
    if (field.shape !== undefined && !field.shape.pattern.test(value))
      return { field: `options.${field.name}`, problem: `must be ${field.shape.says}` };
  }
  return undefined;
}
