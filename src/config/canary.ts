/**
 * The canary settings as configuration reads them (PERIMETER_SCAN_CANARY_LISTEN and _URL): the
 * engine's canary listener (engine/http-scan/check-kit/canary-listener.ts) takes them as they are parsed
 * here, so configuration never loads the engine.
 */

/** Where the canary binds, and the base URL a target must use to reach it. */
export interface CanaryConfig {
  /** Address and port to bind (port 0: an ephemeral one); undefined: no canary, the checks needing it are skipped. */
  listen: { host: string; port: number } | undefined;
  /** Base URL handed to targets (a target on the internet cannot reach 127.0.0.1); default `http://<listen host>:<bound port>`. */
  url: string | undefined;
}

/** The safe default: loopback only, an ephemeral port (only targets on this machine can reach it). */
export const defaultCanaryConfig: CanaryConfig = { listen: { host: '127.0.0.1', port: 0 }, url: undefined };

/** Parses `host:port` (`[v6]:port`), or `off` for no canary. */
export function parseCanaryListen(raw: string): CanaryConfig['listen'] {
  const text = raw.trim();
  if (text.toLowerCase() === 'off') return undefined;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(text);
  if (match === null) throw new Error(`must be host:port ([v6]:port) or "off", got "${raw}"`);
  const port = Number(match[3]);
  if (port > 65535) throw new Error(`port must lie between 0 and 65535, got ${port}`);
  return { host: match[1] ?? match[2]!, port };
}

/** True for an address that binds every interface: no URL can be derived from it. */
export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}
