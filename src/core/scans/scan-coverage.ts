import type { ScanCoverage } from '../vulnerabilities/vulnerability.types.ts';

/**
 * What a completed application scan covered, from the `origin/path` of every request it got an
 * answer to: a finding's location (`origin/path`, then `?point` or nothing; see the checks) is
 * covered when a request to its origin and path was answered. A path pattern of a location
 * (`/items/{id}`, `/a/{}` for a path segment) is covered by any answered path it matches. A
 * location that is not of that form is covered (patched as before locations were kept).
 *
 * So a rescan that times out on a path, no longer reaches a port, or no longer crawls a path
 * after the profile's scope was narrowed leaves the findings there as they were, instead of
 * calling them patched.
 */
export function scanCoverage(answered: readonly string[]): ScanCoverage {
  const exact = new Set(answered);
  const pathsByOrigin = new Map<string, string[]>();
  for (const key of answered) {
    const parts = splitLocation(key);
    if (parts === undefined) continue;
    const paths = pathsByOrigin.get(parts.origin);
    if (paths === undefined) pathsByOrigin.set(parts.origin, [parts.path]);
    else paths.push(parts.path);
  }
  return (location) => {
    const parts = splitLocation(location);
    if (parts === undefined) return true;
    if (!parts.path.includes('{')) return exact.has(`${parts.origin}${parts.path}`);
    const pattern = new RegExp(
      `^${parts.path
        .split(/\{[^}]*\}/)
        .map(escapeRegExp)
        .join('[^/]+')}$`,
    );
    return (pathsByOrigin.get(parts.origin) ?? []).some((path) => pattern.test(path));
  };
}

/** `scheme://authority` and the path (without query or fragment) of a location; undefined when it has neither form. */
function splitLocation(location: string): { origin: string; path: string } | undefined {
  const match = /^(https?:\/\/[^/?#]+)(\/[^?#]*)?/.exec(location);
  if (match === null) return undefined;
  return { origin: match[1]!, path: match[2] ?? '/' };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
