import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from './errors.ts';

/** What `perimeter login` keeps: the server and the keys (a v2 key, and a v3 key for exports and imports). */
export interface ClientConfig {
  server: string;
  /** The v2 key: assets, scans, findings. */
  key?: string;
  /** The v2 key's signing secret, when it has one. */
  secret?: string;
  /** The v3 key: findings export, imports. */
  v3Key?: string;
}

/** $XDG_CONFIG_HOME/perimeter/config.json, else ~/.config/perimeter/config.json. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env['XDG_CONFIG_HOME'] !== undefined && env['XDG_CONFIG_HOME'] !== ''
      ? env['XDG_CONFIG_HOME']
      : join(homedir(), '.config');
  return join(base, 'perimeter', 'config.json');
}

/** The stored configuration, or undefined when there is none. */
export function readConfigFile(path = configPath()): ClientConfig | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as Partial<ClientConfig>;
    if (typeof value.server !== 'string') return undefined;
    return value as ClientConfig;
  } catch {
    throw new UsageError(`${path} is not valid JSON: run perimeter login again`);
  }
}

/** Writes the configuration readable by its owner alone (file 0600, folder 0700). */
export function writeConfigFile(config: ClientConfig, path = configPath()): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  // Written 0600 from the start (never readable by others, even for an instant), then chmod for
  // a file that existed with a wider mode.
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** Removes the stored configuration; true when there was one. */
export function removeConfigFile(path = configPath()): boolean {
  const existed = readConfigFile(path) !== undefined;
  rmSync(path, { force: true });
  return existed;
}

/** Where each setting comes from: a flag, then the environment (PERIMETER_SERVER, PERIMETER_API_KEY, …), then the file. */
export function resolveConfig(
  flags: { server?: string; key?: string; v3Key?: string },
  env: NodeJS.ProcessEnv = process.env,
): Partial<ClientConfig> {
  const file = readConfigFile(configPath(env));
  const pick = (...values: (string | undefined)[]) => values.find((v) => v !== undefined && v !== '');
  const key = pick(flags.key, env['PERIMETER_API_KEY'], file?.key);
  return {
    server: pick(flags.server, env['PERIMETER_SERVER'], file?.server),
    key,
    // The stored secret goes with the stored key only.
    secret: pick(env['PERIMETER_API_SECRET'], key === file?.key ? file?.secret : undefined),
    v3Key: pick(flags.v3Key, env['PERIMETER_V3_API_KEY'], file?.v3Key),
  };
}

/** A server URL as given (`host:port` gets http://), without a trailing slash; a malformed one is a usage error. */
export function normalizeServer(value: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`not a server URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`the server URL must be http or https: ${JSON.stringify(value)}`);
  return url.href.replace(/\/+$/, '');
}
