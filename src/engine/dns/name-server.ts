import { isIP } from 'node:net';

/** A DNS server: a host name or IP address and a port. */
export interface NameServerAddress {
  host: string;
  port: number;
}

/** Reads `host`, `host:port`, `ipv4:port`, `ipv6`, `[ipv6]` or `[ipv6]:port`; undefined when malformed. */
export function parseNameServer(text: string): NameServerAddress | undefined {
  const trimmed = text.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(trimmed);
  let host: string;
  let port = 53;
  if (bracketed !== null) {
    host = bracketed[1] ?? '';
    if (isIP(host) !== 6) return undefined;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (isIP(trimmed) === 6) {
    host = trimmed;
  } else {
    const match = /^([^:\s]+)(?::(\d{1,5}))?$/.exec(trimmed);
    if (match === null) return undefined;
    host = (match[1] ?? '').replace(/\.$/, '');
    if (match[2] !== undefined) port = Number(match[2]);
    if (isIP(host) === 0 && !/^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/i.test(host)) return undefined;
  }
  return port >= 1 && port <= 65535 ? { host, port } : undefined;
}

/** `host:port` for messages, IPv6 in brackets. */
export function formatNameServer(server: NameServerAddress): string {
  return isIP(server.host) === 6 ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;
}
