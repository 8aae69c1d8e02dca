import { isIP } from 'node:net';
import { isDomainName } from '../assets/asset-name.ts';
import type { Asset } from '../assets/asset.types.ts';
import { appError } from '../errors/app-error.ts';
import type { EndpointAddress } from './scan-engine.ts';

/** A parsed scan endpoint, with its normalised text (what the profile shows) and unique key. */
export interface ParsedEndpoint extends EndpointAddress {
  text: string;
  key: string;
}

function malformed(raw: unknown, why: string) {
  return appError(
    2606,
    `Scan profile endpoint malformed: ${JSON.stringify(raw)} ${why} (expected [http:// or https://]host[:port], the host a domain or IP address)`,
    ['endpoint'],
  );
}

/**
 * Parses an endpoint: a domain, an IPv4 address or an IPv6 address (bracketed when it has a
 * port), an optional port 1-65535, an optional http:// or https:// scheme and at most a
 * trailing slash: no path, query, user-info or fragment (2606).
 */
export function parseEndpoint(raw: unknown): ParsedEndpoint {
  if (typeof raw !== 'string') throw malformed(raw, 'is not a string');
  let text = raw.trim();
  if (text.length === 0) throw malformed(raw, 'is empty');
  if (!/^[\x21-\x7e]+$/.test(text))
    throw malformed(raw, 'holds characters outside ASCII or white space (send punycode)');
  let scheme: EndpointAddress['scheme'] = null;
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(text);
  if (schemeMatch !== null) {
    const given = schemeMatch[1]!.toLowerCase();
    if (given !== 'http' && given !== 'https')
      throw malformed(raw, `has the scheme ${given}; only http and https are scanned`);
    scheme = given;
    text = text.slice(schemeMatch[0].length);
  }
  text = text.replace(/\/$/, '');
  if (/[/?#@\\]/.test(text)) throw malformed(raw, 'holds a path, query, fragment or user-info');
  let host: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed !== null) {
    host = bracketed[1]!.toLowerCase();
    if (isIP(host) !== 6) throw malformed(raw, 'is not a valid IPv6 address');
    portText = bracketed[2];
  } else if (isIP(text) === 6) {
    host = text.toLowerCase();
  } else {
    const parts = text.split(':');
    if (parts.length > 2) throw malformed(raw, 'has more than one port');
    host = parts[0]!.toLowerCase().replace(/\.$/, '');
    portText = parts[1];
    if (isIP(host) !== 4 && !isDomainName(host)) throw malformed(raw, 'does not name a valid domain or IP address');
  }
  let port: number | null = null;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535)
      throw malformed(raw, 'has a port outside 1-65535');
    port = Number(portText);
  }
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;
  const normalised = `${scheme === null ? '' : `${scheme}://`}${urlHost}${port === null ? '' : `:${port}`}`;
  return { host, port, scheme, text: normalised, key: normalised };
}

/** True when the host is the asset's name or lies under it (domains), or is the asset's address (IPs). */
export function isInsideAsset(host: string, assetName: string): boolean {
  const name = assetName.toLowerCase();
  if (isIP(name) !== 0) return isIP(host) !== 0 && normaliseIp(host) === normaliseIp(name);
  return host === name || host.endsWith(`.${name}`);
}

/**
 * The asset names that could hold a host, longest first: a domain and each of its parents of two
 * labels or more (`a.sub.example.com`, `sub.example.com`, `example.com`); an IP address and its
 * other spelling (with or without the `::ffff:` prefix of an IPv4-mapped address).
 */
export function assetNamesHolding(host: string): string[] {
  if (isIP(host) !== 0) {
    const plain = normaliseIp(host);
    return [...new Set([host, plain, ...(isIP(plain) === 4 ? [`::ffff:${plain}`] : [])])];
  }
  const labels = host.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

function normaliseIp(address: string): string {
  return address.toLowerCase().replace(/^::ffff:/, '');
}

/** 2607 unless the endpoint's host is the asset's name or lies under it. */
export function assertEndpointOfAsset(endpoint: ParsedEndpoint, asset: Pick<Asset, 'name'>): void {
  if (!isInsideAsset(endpoint.host, asset.name)) {
    throw appError(
      2607,
      `Endpoint does not match the associated asset name: ${endpoint.host} is neither ${asset.name} nor a subdomain of it`,
      ['endpoint'],
    );
  }
}
