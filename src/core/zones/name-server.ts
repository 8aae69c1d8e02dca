import { isIP } from 'node:net';
import type { NameServer } from './zone-engine.ts';

const hostName = /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/;

/**
 * Reads `host`, `host:port`, `ipv4:port`, `ipv6`, `[ipv6]` or `[ipv6]:port` (port 53 when
 * absent); undefined when malformed. A host name is lower-cased without its trailing dot; one
 * without a dot is refused unless `singleLabel` (a resolver of the configuration may be one)
 * or it is `localhost`.
 */
export function parseNameServer(raw: unknown, options: { singleLabel?: boolean } = {}): NameServer | undefined {
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  let host: string;
  let port = 53;
  if (bracketed !== null) {
    host = bracketed[1] ?? '';
    if (isIP(host) !== 6) return undefined;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (isIP(text) === 6) {
    host = text;
  } else {
    const match = /^([^:\s]+)(?::(\d{1,5}))?$/.exec(text);
    if (match === null) return undefined;
    host = (match[1] ?? '').toLowerCase().replace(/\.$/, '');
    if (match[2] !== undefined) port = Number(match[2]);
    if (isIP(host) === 0) {
      if (!hostName.test(host)) return undefined;
      if (!host.includes('.') && options.singleLabel !== true && host !== 'localhost') return undefined;
    }
  }
  return port >= 1 && port <= 65535 ? { host, port } : undefined;
}

/** `host:port` for messages, IPv6 in brackets. */
export function formatNameServer(server: NameServer): string {
  return isIP(server.host) === 6 ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;
}
