import { createHash } from 'node:crypto';

/**
 * Normalises a finding location so that cosmetic differences between scans do not create a
 * twin: scheme and host lowercased, default ports dropped, query parameters sorted, fragment
 * and trailing slash removed. Anything that is not a URL is trimmed and lowercased.
 */
export function normaliseLocation(location: string): string {
  const text = location.trim();
  try {
    const url = new URL(text);
    url.hash = '';
    const params = [...url.searchParams.entries()].sort(([a, av], [b, bv]) =>
      a === b ? av.localeCompare(bv) : a.localeCompare(b),
    );
    url.search = new URLSearchParams(params).toString();
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    return `${url.protocol}//${url.host}${path}${url.search}`.toLowerCase().replace(/\/$/, '');
  } catch {
    return text.toLowerCase();
  }
}

/** The deterministic identity of a finding: check id + normalised location + asset. */
export function fingerprintOf(checkId: string, location: string, assetId: number): string {
  return createHash('sha256')
    .update(`${checkId}\u0000${normaliseLocation(location)}\u0000${assetId}`)
    .digest('hex')
    .slice(0, 40);
}
