import { closestName } from './closest-name.ts';
import { integer, list, parseConnectorEndpoints, parseSmtpUrl } from './value-parsers.ts';
import type { ConnectorProvider } from '../core/connectors/connector.types.ts';
import { readFileSync } from 'node:fs';
import { isValidCidr } from '../shared/cidr.ts';
import { defaultCanaryConfig, isWildcardHost, parseCanaryListen, type CanaryConfig } from './canary.ts';

/** The whole configuration of the service, parsed once at start and passed down. */
export interface Config {
  /** TCP port of the HTTP server. */
  port: number;
  /** Address the HTTP server binds to. */
  host: string;
  /** Folder of the embedded store (SQLite) and of the generated server key. */
  dataDir: string;
  /** PostgreSQL connection string; when set, PostgreSQL is the store instead of SQLite. */
  databaseUrl: string | undefined;
  /** PostgreSQL schema of the store (created when missing); the server's default search path when unset. */
  databaseSchema: string | undefined;
  /** Base64 of 32 bytes; encrypts signing secrets and signs markers. Generated into dataDir when unset. */
  secretKey: string | undefined;
  /** DNS resolvers as `host[:port]`; the system's when empty. */
  dnsResolvers: string[];
  dnsUdpSockets: 'batch' | 'dgram';
  /** CIDR ranges the egress guard allows although they are denied by default. */
  egressAllow: string[];
  /** Public base URL used to build absolute links (v3 pagination). */
  publicUrl: string | undefined;
  /** The e-mail address of the first Admin invited on the first start of an empty store. */
  adminEmail: string;
  /** A console session unused this long ends, in minutes. */
  sessionIdleMinutes: number;
  /** A console session ends this long after sign-in, in hours. */
  sessionMaxHours: number;
  /** Roles this process runs: api, worker, scheduler. */
  roles: Array<'api' | 'worker' | 'scheduler'>;
  /** pino log level. */
  logLevel: string;
  /** Time limit of one ownership check (DNS and HTTP), in milliseconds. */
  verifyTimeoutMs: number;
  /** Memory for cached list pages, in MB (0 disables the cache). */
  pageCacheMb: number;
  /** Page cache of the embedded store (SQLite), in MB; its file is also memory-mapped. */
  storeCacheMb: number;
  /** Reader threads of the embedded store (0: every query on the event loop); undefined: one per core, 2 to 4. */
  storeReaders: number | undefined;
  /** Connections of each process to PostgreSQL; undefined: two per core, at least 4. */
  storePoolSize: number | undefined;
  /** Scans one worker process runs at once. */
  scanConcurrency: number;
  /** Scans of one team running at once, over all workers. */
  scanTeamConcurrency: number;
  /** Threads that run a worker's scans off its event loop (0: scans run on the event loop). */
  scanThreads: number;
  /** Pages one scan crawls at most. */
  scanMaxPages: number;
  /** Link depth one scan follows at most. */
  scanMaxDepth: number;
  /** Time one scan may run, in milliseconds. */
  scanMaxDurationMs: number;
  /** Time limit of one scan request, in milliseconds. */
  scanRequestTimeoutMs: number;
  /** Where the SSRF canary of the scans binds (`host:port`, port 0 ephemeral); undefined (`off`): no canary. */
  scanCanaryListen: CanaryConfig['listen'];
  /** The canary's base URL as targets must use it; derived from the bound address when unset. */
  scanCanaryUrl: string | undefined;
  /** Time the endpoint of a new scan profile has to answer, in milliseconds (the spec's 10 s). */
  endpointValidationTimeoutMs: number;
  /** How often the scheduler role looks for due schedules, in milliseconds. */
  schedulerIntervalMs: number;
  /** Time between two surface-monitoring runs of a monitored domain, in milliseconds (default a day). */
  monitoringIntervalMs: number;
  /** Surface-monitoring runs one worker process runs at once. */
  monitoringConcurrency: number;
  /** First back-off of a failing webhook, in milliseconds (doubles per failure). */
  webhookRetryBaseMs: number;
  /** Longest back-off between two attempts of a failing webhook, in milliseconds. */
  webhookRetryCapMs: number;
  /** A webhook failing for longer than this is disabled, in milliseconds (default 24 h). */
  webhookRetryWindowMs: number;
  /** How often the scheduler role looks for webhooks behind their team's event log, in milliseconds. */
  webhookPollMs: number;
  /** 1: the worker role delivers webhooks on a thread of its own, off the event loop; 0: on the event loop. */
  webhookThreads: number;
  /**
   * API base URLs replacing a connector provider's own (`CDN_D=https://cf-proxy.example.net,…`):
   * a sovereign cloud, an egress proxy, or the tests' local provider servers. Absent: the provider's.
   */
  connectorEndpoints: Partial<Record<ConnectorProvider, string>>;
  /** Time limit of one request of a connector run to its provider, in milliseconds. */
  connectorRequestTimeoutMs: number;
  /** SMTP server of e-mail webhooks (`smtp://user:pass@host:587`, `smtps://…`); undefined: no e-mail channel. */
  smtpUrl: string | undefined;
  /** The From address of e-mail webhooks (`perimeter@example.com` or `Perimeter <perimeter@example.com>`). */
  smtpFrom: string;
  /** Refuse to send over an smtp:// server that does not offer STARTTLS (smtps:// is always TLS). */
  smtpRequireTls: boolean;
  /** Time limit of connecting to, the greeting of, and each reply of the SMTP server, in milliseconds. */
  smtpTimeoutMs: number;
}

type Source = Record<string, string | undefined>;

interface FieldSpec {
  env: string;
  /** Other names of the variable, read before `env` (which wins when both are set). */
  envAliases?: string[];
  flag: string;
  parse: (raw: string) => unknown;
}

const roleNames = ['api', 'worker', 'scheduler'] as const;

const fields: Record<keyof Config, FieldSpec> = {
  port: { env: 'PORT', flag: 'port', parse: integer(0, 65535) },
  host: { env: 'PERIMETER_HOST', flag: 'host', parse: (s) => s },
  // PERIMETER_DATA_DIR too: every other setting but PORT and DATABASE_URL has the prefix.
  dataDir: { env: 'DATA_DIR', envAliases: ['PERIMETER_DATA_DIR'], flag: 'data-dir', parse: (s) => s },
  databaseUrl: {
    env: 'DATABASE_URL',
    flag: 'database-url',
    parse: (s) => {
      if (!/^postgres(ql)?:\/\//.test(s)) throw new Error('must be a postgres:// or postgresql:// URL');
      return s;
    },
  },
  databaseSchema: {
    env: 'PERIMETER_DATABASE_SCHEMA',
    flag: 'database-schema',
    parse: (s) => {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(s))
        throw new Error('must be a lowercase SQL identifier (letters, digits, underscore)');
      return s;
    },
  },
  secretKey: {
    env: 'PERIMETER_SECRET_KEY',
    flag: 'secret-key',
    parse: (s) => {
      // Exactly 32 bytes in base64 (43 characters and the padding): Node's decoder skips what is
      // not base64, so anything else could pass for a key and be a different one.
      if (!/^[A-Za-z0-9+/]{43}=?$/.test(s.trim()) || Buffer.from(s.trim(), 'base64').length !== 32)
        throw new Error('must be the base64 form of 32 bytes (44 characters, as `openssl rand -base64 32` prints)');
      return s.trim();
    },
  },
  dnsResolvers: {
    env: 'PERIMETER_DNS_RESOLVERS',
    flag: 'dns-resolvers',
    parse: (s) => {
      const items = list(s);
      for (const item of items) {
        if (!/^(\[[0-9a-fA-F:.]+\]|[^:\s]+)(:\d{1,5})?$/.test(item) && !/^[0-9a-fA-F:]+$/.test(item)) {
          throw new Error(`"${item}" is not host[:port]`);
        }
      }
      return items;
    },
  },
  dnsUdpSockets: {
    env: 'PERIMETER_DNS_UDP_SOCKETS',
    flag: 'dns-udp-sockets',
    parse: (s) => {
      if (s !== 'batch' && s !== 'dgram') throw new Error(`must be batch or dgram, not "${s}"`);
      return s;
    },
  },
  egressAllow: {
    env: 'PERIMETER_EGRESS_ALLOW',
    flag: 'egress-allow',
    parse: (s) => {
      const items = list(s);
      for (const item of items) if (!isValidCidr(item)) throw new Error(`"${item}" is not a CIDR range`);
      return items;
    },
  },
  publicUrl: {
    env: 'PERIMETER_PUBLIC_URL',
    flag: 'public-url',
    parse: (s) => {
      const url = new URL(s);
      // Links in findings and `next` URLs are built on it: only a web address makes sense.
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new Error(`must be an http or https URL, got ${JSON.stringify(s)}`);
      return url.toString().replace(/\/$/, '');
    },
  },
  adminEmail: {
    env: 'PERIMETER_ADMIN_EMAIL',
    flag: 'admin-email',
    parse: (s) => {
      const email = s.trim().toLowerCase();
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))
        throw new Error(`must be an e-mail address, got ${JSON.stringify(s)}`);
      return email;
    },
  },
  sessionIdleMinutes: {
    env: 'PERIMETER_SESSION_IDLE_MINUTES',
    flag: 'session-idle-minutes',
    parse: integer(1, 7 * 24 * 60),
  },
  sessionMaxHours: {
    env: 'PERIMETER_SESSION_MAX_HOURS',
    flag: 'session-max-hours',
    parse: integer(1, 30 * 24),
  },
  roles: {
    env: 'PERIMETER_ROLES',
    flag: 'roles',
    parse: (s) => {
      const items = list(s);
      if (items.length === 0) throw new Error('must name at least one role');
      for (const item of items) {
        if (!(roleNames as readonly string[]).includes(item))
          throw new Error(`unknown role "${item}" (api, worker, scheduler)`);
      }
      return items;
    },
  },
  logLevel: {
    env: 'PERIMETER_LOG_LEVEL',
    flag: 'log-level',
    parse: (s) => {
      if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(s))
        throw new Error(`unknown level "${s}"`);
      return s;
    },
  },
  verifyTimeoutMs: { env: 'PERIMETER_VERIFY_TIMEOUT_MS', flag: 'verify-timeout-ms', parse: integer(100, 120_000) },
  pageCacheMb: { env: 'PERIMETER_PAGE_CACHE_MB', flag: 'page-cache-mb', parse: integer(0, 65_536) },
  storeCacheMb: { env: 'PERIMETER_STORE_CACHE_MB', flag: 'store-cache-mb', parse: integer(1, 65_536) },
  storeReaders: { env: 'PERIMETER_STORE_READERS', flag: 'store-readers', parse: integer(0, 16) },
  storePoolSize: { env: 'PERIMETER_STORE_POOL_SIZE', flag: 'store-pool-size', parse: integer(1, 500) },
  scanConcurrency: { env: 'PERIMETER_SCAN_CONCURRENCY', flag: 'scan-concurrency', parse: integer(1, 64) },
  scanTeamConcurrency: {
    env: 'PERIMETER_SCAN_TEAM_CONCURRENCY',
    flag: 'scan-team-concurrency',
    parse: integer(1, 1000),
  },
  scanThreads: { env: 'PERIMETER_SCAN_THREADS', flag: 'scan-threads', parse: integer(0, 64) },
  scanMaxPages: { env: 'PERIMETER_SCAN_MAX_PAGES', flag: 'scan-max-pages', parse: integer(1, 1_000_000) },
  scanMaxDepth: { env: 'PERIMETER_SCAN_MAX_DEPTH', flag: 'scan-max-depth', parse: integer(1, 100) },
  scanMaxDurationMs: {
    env: 'PERIMETER_SCAN_MAX_DURATION_MS',
    flag: 'scan-max-duration-ms',
    parse: integer(1000, 7 * 24 * 3600 * 1000),
  },
  scanRequestTimeoutMs: {
    env: 'PERIMETER_SCAN_REQUEST_TIMEOUT_MS',
    flag: 'scan-request-timeout-ms',
    parse: integer(100, 120_000),
  },
  scanCanaryListen: { env: 'PERIMETER_SCAN_CANARY_LISTEN', flag: 'scan-canary-listen', parse: parseCanaryListen },
  scanCanaryUrl: {
    env: 'PERIMETER_SCAN_CANARY_URL',
    flag: 'scan-canary-url',
    parse: (s) => {
      const url = new URL(s);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('must be an http:// or https:// URL');
      if (url.search !== '' || url.hash !== '')
        throw new Error('must have no query or fragment (tokens are appended to its path)');
      return url.href.replace(/\/+$/, '');
    },
  },
  endpointValidationTimeoutMs: {
    env: 'PERIMETER_ENDPOINT_VALIDATION_TIMEOUT_MS',
    flag: 'endpoint-validation-timeout-ms',
    parse: integer(100, 60_000),
  },
  schedulerIntervalMs: {
    env: 'PERIMETER_SCHEDULER_INTERVAL_MS',
    flag: 'scheduler-interval-ms',
    parse: integer(100, 3_600_000),
  },
  monitoringIntervalMs: {
    env: 'PERIMETER_MONITORING_INTERVAL_MS',
    flag: 'monitoring-interval-ms',
    parse: integer(1000, 90 * 24 * 3_600_000),
  },
  monitoringConcurrency: {
    env: 'PERIMETER_MONITORING_CONCURRENCY',
    flag: 'monitoring-concurrency',
    parse: integer(1, 64),
  },
  webhookRetryBaseMs: {
    env: 'PERIMETER_WEBHOOK_RETRY_BASE_MS',
    flag: 'webhook-retry-base-ms',
    parse: integer(1, 3_600_000),
  },
  webhookRetryCapMs: {
    env: 'PERIMETER_WEBHOOK_RETRY_CAP_MS',
    flag: 'webhook-retry-cap-ms',
    parse: integer(1, 24 * 3_600_000),
  },
  webhookRetryWindowMs: {
    env: 'PERIMETER_WEBHOOK_RETRY_WINDOW_MS',
    flag: 'webhook-retry-window-ms',
    parse: integer(1, 30 * 24 * 3_600_000),
  },
  webhookPollMs: { env: 'PERIMETER_WEBHOOK_POLL_MS', flag: 'webhook-poll-ms', parse: integer(10, 3_600_000) },
  webhookThreads: { env: 'PERIMETER_WEBHOOK_THREADS', flag: 'webhook-threads', parse: integer(0, 1) },
  connectorEndpoints: {
    env: 'PERIMETER_CONNECTOR_ENDPOINTS',
    flag: 'connector-endpoints',
    parse: parseConnectorEndpoints,
  },
  connectorRequestTimeoutMs: {
    env: 'PERIMETER_CONNECTOR_REQUEST_TIMEOUT_MS',
    flag: 'connector-request-timeout-ms',
    parse: integer(100, 600_000),
  },
  smtpUrl: { env: 'PERIMETER_SMTP_URL', flag: 'smtp-url', parse: parseSmtpUrl },
  smtpFrom: {
    env: 'PERIMETER_SMTP_FROM',
    flag: 'smtp-from',
    parse: (s) => {
      const text = s.trim();
      if (!/^([^<>\r\n]*<[^@\s<>]+@[^@\s<>]+>|[^@\s<>]+@[^@\s<>]+)$/.test(text))
        throw new Error(`must be an e-mail address or "Name <address>", got ${JSON.stringify(s)}`);
      return text;
    },
  },
  smtpRequireTls: {
    env: 'PERIMETER_SMTP_REQUIRE_TLS',
    flag: 'smtp-require-tls',
    parse: (s) => {
      if (s !== 'true' && s !== 'false') throw new Error(`must be true or false, got ${JSON.stringify(s)}`);
      return s === 'true';
    },
  },
  smtpTimeoutMs: { env: 'PERIMETER_SMTP_TIMEOUT_MS', flag: 'smtp-timeout-ms', parse: integer(100, 300_000) },
};

/** Defaults of every setting; the lowest layer. */
export const defaultConfig: Config = {
  port: 8080,
  // Loopback unless the operator says otherwise: a fresh `npm start` is not reachable from the network.
  host: '127.0.0.1',
  dataDir: './data',
  databaseUrl: undefined,
  databaseSchema: undefined,
  secretKey: undefined,
  dnsResolvers: [],
  dnsUdpSockets: 'batch',
  egressAllow: [],
  publicUrl: undefined,
  adminEmail: 'admin@example.com',
  sessionIdleMinutes: 30,
  sessionMaxHours: 12,
  roles: ['api', 'worker', 'scheduler'],
  logLevel: 'info',
  verifyTimeoutMs: 10_000,
  pageCacheMb: 64,
  storeCacheMb: 32,
  storeReaders: undefined,
  storePoolSize: undefined,
  scanConcurrency: 2,
  scanTeamConcurrency: 2,
  scanThreads: 1,
  scanMaxPages: 2000,
  scanMaxDepth: 10,
  scanMaxDurationMs: 2 * 3600 * 1000,
  scanRequestTimeoutMs: 10_000,
  scanCanaryListen: defaultCanaryConfig.listen,
  scanCanaryUrl: undefined,
  endpointValidationTimeoutMs: 10_000,
  schedulerIntervalMs: 5000,
  monitoringIntervalMs: 24 * 3_600_000,
  monitoringConcurrency: 2,
  webhookRetryBaseMs: 5000,
  webhookRetryCapMs: 3_600_000,
  webhookRetryWindowMs: 24 * 3_600_000,
  webhookPollMs: 1000,
  webhookThreads: 1,
  connectorEndpoints: {},
  connectorRequestTimeoutMs: 30_000,
  smtpUrl: undefined,
  smtpFrom: 'perimeter@localhost',
  smtpRequireTls: false,
  smtpTimeoutMs: 30_000,
};

/** The command-line flags of the settings (`--config` and one per setting). */
export const configFlagNames: readonly string[] = ['config', ...Object.values(fields).map((spec) => spec.flag)];

/** Thrown when the configuration is invalid; lists every problem at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Builds the configuration: defaults < config file (`--config` or PERIMETER_CONFIG, JSON with
 * the camelCase keys above) < environment < flags. Every error is collected before throwing.
 */
export function loadConfig(options: { env?: Source; flags?: Source; overrides?: Partial<Config> } = {}): Config {
  const env = options.env ?? process.env;
  const flags = options.flags ?? {};
  const problems: string[] = [];
  const config: Config = { ...defaultConfig };
  const target = config as unknown as Record<string, unknown>;

  const filePath = flags['config'] ?? env['PERIMETER_CONFIG'];
  if (filePath !== undefined) {
    try {
      const fromFile = JSON.parse(readFileSync(filePath, 'utf8')) as Record<string, unknown>;
      for (const [key, value] of Object.entries(fromFile)) {
        const spec = fields[key as keyof Config];
        if (spec === undefined) problems.push(`config file: unknown setting "${key}"`);
        else {
          try {
            target[key] = spec.parse(Array.isArray(value) ? value.join(',') : String(value));
          } catch (err) {
            problems.push(`config file: ${key} ${(err as Error).message}`);
          }
        }
      }
    } catch (err) {
      problems.push(`config file ${filePath}: ${(err as Error).message}`);
    }
  }

  for (const [key, spec] of Object.entries(fields)) {
    const layers: Array<[string, string | undefined]> = [
      ...(spec.envAliases ?? []).map((name): [string, string | undefined] => [name, env[name]]),
      [spec.env, env[spec.env]],
      [`--${spec.flag}`, flags[spec.flag]],
    ];
    for (const [layer, raw] of layers) {
      if (raw === undefined || raw === '') continue;
      try {
        target[key] = spec.parse(raw);
      } catch (err) {
        problems.push(`${layer} ${(err as Error).message}`);
      }
    }
  }
  problems.push(...canaryProblems(config));
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...config, ...options.overrides };
}

/** PERIMETER_ variables read outside the settings: the config file's path, the scans' browser (read where a scan runs), and the test runner's own. */
const otherVariables = [
  'PERIMETER_CONFIG',
  'PERIMETER_SCAN_BROWSER',
  'PERIMETER_TEST_STORE',
  'PERIMETER_TEST_DATABASE_URL',
  'PERIMETER_TEST_RUN',
  'PERIMETER_FUZZ_SEED',
  'PERIMETER_FUZZ_REQUESTS',
];

/** Every environment variable the service or its tests read. */
export const knownVariables: readonly string[] = [
  ...new Set([...Object.values(fields).flatMap((spec) => [spec.env, ...(spec.envAliases ?? [])]), ...otherVariables]),
].sort();

/**
 * One warning per `PERIMETER_*` variable that nothing reads (a typo such as PERIMETER_EGRES_ALLOW
 * is otherwise silently ignored), naming the closest known variable when one is near.
 */
export function unknownVariableWarnings(env: Source = process.env): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('PERIMETER_') || knownVariables.includes(name)) continue;
    const closest = closestName(name, knownVariables);
    warnings.push(
      `${name} is not a setting of perimeter and is ignored${closest === undefined ? '' : `: did you mean ${closest}?`}`,
    );
  }
  return warnings;
}

/** The canary settings that cannot work together: a URL targets could not follow, or none at all. */
function canaryProblems(config: Config): string[] {
  const listen = config.scanCanaryListen;
  if (listen === undefined) return [];
  if (config.scanCanaryUrl !== undefined && listen.port === 0)
    return [
      'PERIMETER_SCAN_CANARY_URL needs a fixed port in PERIMETER_SCAN_CANARY_LISTEN (an ephemeral port changes with every start)',
    ];
  if (config.scanCanaryUrl === undefined && isWildcardHost(listen.host))
    return [
      `PERIMETER_SCAN_CANARY_URL is required when the canary listens on ${listen.host} (every interface): say which address targets must use`,
    ];
  // Each scan thread has a canary of its own: one fixed port cannot be bound by two of them.
  if (listen.port !== 0 && config.scanThreads > 1)
    return [
      `PERIMETER_SCAN_THREADS ${config.scanThreads} needs an ephemeral canary port (each thread binds its own canary): use one thread, or port 0 in PERIMETER_SCAN_CANARY_LISTEN`,
    ];
  return [];
}
