import { isIP } from 'node:net';
import type { EndpointAddress, ProbeResult } from '../../core/scans/scan-engine.ts';
import type { DnsResolver } from '../dns/resolver.ts';
import type { EgressGuard } from '../net/egress-guard.ts';
import { unbracketHost } from '../net/egress-guard.ts';
import { classifyFailure, createGuardedHttpClient, type HttpExchange } from './check-kit/guarded-http-client.ts';
import { scannerUserAgent } from './check-kit/scan-session.ts';

/** Redirects a probe follows at most. */
export const probeMaxRedirects = 5;

type Scheme = 'http' | 'https';

/** True when a host is the scope name or under it. */
function isInsideScope(host: string, scopeName: string): boolean {
  const bare = unbracketHost(host).toLowerCase().replace(/\.$/, '');
  const scope = unbracketHost(scopeName).toLowerCase().replace(/\.$/, '');
  return bare === scope || bare.endsWith(`.${scope}`);
}

/** The start URLs of a probe, in order: https then http (443 then 80 without a port), or the given scheme. */
function plannedUrls(endpoint: EndpointAddress): URL[] {
  const host = isIP(endpoint.host) === 6 ? `[${endpoint.host}]` : endpoint.host;
  const schemes: Scheme[] = endpoint.scheme === null ? ['https', 'http'] : [endpoint.scheme];
  return schemes.map((scheme) => {
    const port = endpoint.port ?? (scheme === 'https' ? 443 : 80);
    return new URL(`${scheme}://${host}:${port}/`);
  });
}

/** The answering origin as ProbeResult wants it. */
function answered(url: URL, exchange: HttpExchange): ProbeResult {
  const scheme: Scheme = url.protocol === 'https:' ? 'https' : 'http';
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  return { isReachable: true, scheme, port, status: exchange.status, url: url.href };
}

/**
 * Endpoint validation: GET over HTTPS then HTTP within `timeoutMs` in total; any HTTP response
 * answers. Redirects are followed (at most five) while they stay inside `scopeName`; the
 * response that redirects out of it, or whose next hop fails, is the answer. Never throws for
 * network problems: an unreachable endpoint yields one observation line per attempt.
 */
export async function probeEndpoint(
  deps: { guard: EgressGuard; resolver: DnsResolver },
  endpoint: EndpointAddress,
  scopeName: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ProbeResult> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  const client = createGuardedHttpClient({
    guard: deps.guard,
    resolver: deps.resolver,
    requestTimeoutMs: timeoutMs,
    bodyLimit: 64 * 1024,
    signal: deadline,
  });
  const observations: string[] = [];
  try {
    for (const start of plannedUrls(endpoint)) {
      const label = `${start.protocol}//${start.host}`;
      if (deadline.aborted) {
        observations.push(`${label}: ${signal.aborted ? 'aborted' : `no time left (probe limit ${timeoutMs} ms)`}`);
        continue;
      }
      let url = start;
      let last: { url: URL; exchange: HttpExchange } | undefined;
      for (let hop = 0; hop <= probeMaxRedirects; hop += 1) {
        try {
          const headers = [{ name: 'user-agent', value: scannerUserAgent }];
          const exchange = await client.send({ method: 'GET', url, headers }, deadline);
          last = { url, exchange };
        } catch (err) {
          const failure = classifyFailure(err, timeoutMs, signal.aborted);
          if (last === undefined)
            observations.push(
              `${label}: ${failure.kind === 'timeout' || (deadline.aborted && !signal.aborted) ? `timed out (probe limit ${timeoutMs} ms)` : failure.message}`,
            );
          break;
        }
        const location = last.exchange.headers.find((h) => h.name === 'location')?.value;
        if (
          last.exchange.status < 300 ||
          last.exchange.status >= 400 ||
          location === undefined ||
          hop === probeMaxRedirects
        )
          break;
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          break;
        }
        if ((next.protocol !== 'http:' && next.protocol !== 'https:') || !isInsideScope(next.hostname, scopeName))
          break;
        url = next;
      }
      if (last !== undefined) return answered(last.url, last.exchange);
    }
    return { isReachable: false, observations };
  } finally {
    await client.close();
  }
}
