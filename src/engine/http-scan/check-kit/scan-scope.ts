import type { ScanTarget } from '../../../core/scans/scan-engine.ts';
import type { ScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import { unbracketHost } from '../../net/egress-guard.ts';

/** Ports scan_common_ports adds as extra origins of the target host. */
export const commonHttpPorts: readonly number[] = [80, 443, 3000, 8000, 8080, 8443];

/** The scheme/host/port of a URL, with the port always explicit. */
export interface Origin {
  scheme: 'http' | 'https';
  host: string;
  port: number;
}

/** `scheme://host:port` with IPv6 bracketed; the port is always written. */
export function originText(origin: Origin): string {
  const host = origin.host.includes(':') ? `[${origin.host}]` : origin.host;
  return `${origin.scheme}://${host}:${origin.port}`;
}

/** The origin of a URL (http/https only). */
export function originOf(url: URL): Origin | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  return { scheme, host: unbracketHost(url.hostname).toLowerCase(), port };
}

/** A URL without fragment and with its query parameters sorted (by name, then value); the URL itself when it has neither. */
export function normaliseUrl(url: URL): URL {
  if (url.search === '' && url.hash === '') return url;
  const out = new URL(url.href);
  out.hash = '';
  const params = [...out.searchParams.entries()].sort(([a, av], [b, bv]) =>
    a === b ? av.localeCompare(bv) : a.localeCompare(b),
  );
  out.search = params.length === 0 ? '' : new URLSearchParams(params).toString();
  return out;
}

/**
 * The crawl identity of a URL: origin, path without a trailing slash (`/a` and `/a/` are one
 * page) and the sorted parameter NAMES (values do not count).
 */
export function dedupKey(url: URL): string {
  const path = url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
  if (url.search === '') return `${url.protocol}//${url.host}${path}?`;
  const names = [...new Set([...url.searchParams.keys()])].sort();
  return `${url.protocol}//${url.host}${path}?${names.join('&')}`;
}

/**
 * The scope rules of one scan. Hosts: the target host, and with crawl_subdomains any host under
 * scopeName that is not a blacklisted subdomain (or under one); never outside scopeName.
 * Ports: the target's, whitelisted ones, the scheme defaults and (with scan_common_ports) the
 * common ones, never a blacklisted one. Paths: blacklisted_paths are plain prefixes (a
 * conservative match: /admin also covers /administrator); whitelisted_paths, when set, admit
 * only paths equal to or under one of them (segment-wise), plus the start page `/`.
 */
export class ScanScope {
  private readonly scopeName: string;
  private readonly targetHost: string;

  constructor(
    private readonly target: ScanTarget,
    private readonly settings: ScanProfileSettings,
  ) {
    this.scopeName = unbracketHost(target.scopeName).toLowerCase().replace(/\.$/, '');
    this.targetHost = unbracketHost(target.host).toLowerCase();
  }

  /** True when a host may be crawled. */
  isHostAllowed(host: string): boolean {
    const bare = unbracketHost(host).toLowerCase().replace(/\.$/, '');
    const isInsideScope = bare === this.scopeName || bare.endsWith(`.${this.scopeName}`);
    if (!isInsideScope) return false;
    if (bare === this.targetHost) return true;
    if (!this.settings.crawl_subdomains) return false;
    if (bare === this.scopeName) return true;
    const sub = bare.slice(0, -(this.scopeName.length + 1));
    return !this.settings.blacklisted_subdomains.some((black) => sub === black || sub.endsWith(`.${black}`));
  }

  /** True when a port may be requested at all. */
  isPortAllowed(port: number): boolean {
    if (this.settings.blacklisted_ports.includes(port)) return false;
    return (
      port === this.target.port ||
      port === 80 ||
      port === 443 ||
      this.settings.whitelisted_ports.includes(port) ||
      (this.settings.scan_common_ports && commonHttpPorts.includes(port))
    );
  }

  /** True when a path may be requested. */
  isPathAllowed(path: string): boolean {
    if (this.settings.blacklisted_paths.some((black) => path.startsWith(black))) return false;
    if (this.settings.whitelisted_paths.length === 0 || path === '/') return true;
    return this.settings.whitelisted_paths.some((white) => {
      const base = white.endsWith('/') ? white : `${white}/`;
      return path === white || path === base.slice(0, -1) || path.startsWith(base);
    });
  }

  /** True when the URL may be requested: http(s), host, port and path all inside the scope. */
  isUrlAllowed(url: URL): boolean {
    const origin = originOf(url);
    if (origin === undefined) return false;
    return (
      this.isHostAllowed(origin.host) &&
      this.isPortAllowed(origin.port) &&
      this.isPathAllowed(decodeURIComponentSafe(url.pathname))
    );
  }

  /** Extra origins of the target host a scan starts from besides the target: whitelisted and common ports. */
  extraPorts(): number[] {
    const ports = [...this.settings.whitelisted_ports, ...(this.settings.scan_common_ports ? commonHttpPorts : [])];
    return [...new Set(ports)].filter(
      (port) => port !== this.target.port && !this.settings.blacklisted_ports.includes(port),
    );
  }
}

/** The decoded path (blacklists are written decoded), or the raw one when it does not decode. */
function decodeURIComponentSafe(path: string): string {
  // Nothing to decode without an escape (most paths): no call, no try.
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
