// The parsers of configuration values that more than one field uses (config.ts).
import { connectorProviders, type ConnectorProvider } from '../core/connectors/connector.types.ts';

/** A comma-separated list, blanks dropped. */
export function list(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A parser of whole numbers between min and max. */
export function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw.trim())) throw new Error(`must be an integer, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new Error(`must lie between ${min} and ${max}, got ${n}`);
    return n;
  };
}

/** An smtp:// or smtps:// URL with a host; the error never repeats the URL (it may hold a password). */
export function parseSmtpUrl(s: string): string {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new Error('must be an smtp:// or smtps:// URL (smtp://user:password@host:587)');
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '')
    throw new Error(`must be an smtp:// or smtps:// URL with a host, got the scheme ${JSON.stringify(url.protocol)}`);
  return s;
}

/** `PROVIDER=URL` pairs separated by commas: each provider a connector provider value, each URL http(s). */
export function parseConnectorEndpoints(s: string): Partial<Record<ConnectorProvider, string>> {
  const out: Partial<Record<ConnectorProvider, string>> = {};
  for (const item of list(s)) {
    const at = item.indexOf('=');
    const provider = item.slice(0, at).trim();
    if (at < 0 || !(connectorProviders as readonly string[]).includes(provider))
      throw new Error(`"${item}" is not PROVIDER=URL with a provider among ${connectorProviders.join(', ')}`);
    const url = new URL(item.slice(at + 1).trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`the URL of ${provider} must be http or https, got ${JSON.stringify(url.protocol)}`);
    out[provider as ConnectorProvider] = url.toString().replace(/\/$/, '');
  }
  return out;
}
