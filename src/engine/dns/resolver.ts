import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

/** DNS queries the engine needs; "no such name" and "no such record" are answers ([]), not errors. */
export interface DnsResolver {
  /** TXT records at the name, each record's character strings joined. */
  resolveTxt(name: string, signal: AbortSignal): Promise<string[]>;
  /** A then AAAA addresses of the name. */
  resolveAddresses(name: string, signal: AbortSignal): Promise<string[]>;
}

/** Tuning of the resolver; the defaults keep one query under about three seconds. */
export interface DnsResolverOptions {
  /** Time c-ares waits for one answer before retrying, in milliseconds. */
  timeoutMs?: number;
  /** How many times each server is tried. */
  tries?: number;
}

// c-ares codes that mean the name or the record type does not exist: an answer, not a failure.
const EMPTY_ANSWER = new Set(['ENOTFOUND', 'ENODATA']);

/** One configured server: a host (name or IP) and an optional port. */
interface ServerSpec {
  host: string;
  port: number | undefined;
}

/** Reads `host`, `host:port`, `ipv4:port`, `ipv6`, `[ipv6]` or `[ipv6]:port`. */
function parseServer(text: string): ServerSpec {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed !== null)
    return { host: bracketed[1] ?? '', port: bracketed[2] === undefined ? undefined : Number(bracketed[2]) };
  if (isIP(text) === 6) return { host: text, port: undefined };
  const withPort = /^([^:]+):(\d+)$/.exec(text);
  if (withPort !== null) return { host: withPort[1] ?? '', port: Number(withPort[2]) };
  return { host: text, port: undefined };
}

/** Formats a server as c-ares' setServers wants it (`ip`, `ip:port`, `[ipv6]:port`). */
function formatServer(ip: string, port: number | undefined): string {
  if (port === undefined) return ip;
  return isIP(ip) === 6 ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** Resolves host names of the server list through the system, once, and validates ports. */
async function toServerAddresses(servers: string[]): Promise<string[]> {
  return Promise.all(
    servers.map(async (text) => {
      const { host, port } = parseServer(text.trim());
      if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) {
        throw new Error(`dns: invalid port in resolver ${JSON.stringify(text)}`);
      }
      if (isIP(host) !== 0) return formatServer(host, port);
      try {
        const { address } = await dns.lookup(host);
        return formatServer(address, port);
      } catch (err) {
        throw new Error(`dns: cannot resolve the resolver host ${JSON.stringify(host)}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }),
  );
}

/** The c-ares code of an error, when it has one. */
function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A resolver over the given servers (`host[:port]`, IPv6 as `[addr]:port`), or the system's
 * when the list is empty. Host names in the list are resolved once, on first use.
 */
export function createDnsResolver(servers: string[], options: DnsResolverOptions = {}): DnsResolver {
  const timeout = options.timeoutMs ?? 1500;
  const tries = options.tries ?? 2;
  let serverAddresses: Promise<string[]> | undefined;
  const configuredServers = (): Promise<string[]> => {
    // Forget a failed lookup so a resolver host that was briefly unresolvable is retried.
    serverAddresses ??= toServerAddresses(servers).catch((err: unknown) => {
      serverAddresses = undefined;
      throw err;
    });
    return serverAddresses;
  };

  /**
   * Runs one query on a fresh c-ares channel: `cancel()` ends every query of a channel, so a
   * shared channel would let one caller's abort fail another caller's lookup.
   */
  async function query<T>(
    kind: string,
    name: string,
    signal: AbortSignal,
    run: (r: dns.Resolver) => Promise<T>,
  ): Promise<T | undefined> {
    if (signal.aborted) throw new Error(`dns: ${kind} lookup of ${name} aborted`, { cause: signal.reason });
    const list = servers.length > 0 ? await configuredServers() : [];
    const resolver = new dns.Resolver({ timeout, tries });
    if (list.length > 0) resolver.setServers(list);
    const onAbort = (): void => resolver.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await run(resolver);
    } catch (err) {
      const code = codeOf(err);
      if (code !== undefined && EMPTY_ANSWER.has(code)) return undefined;
      if (signal.aborted || code === 'ECANCELLED')
        throw new Error(`dns: ${kind} lookup of ${name} aborted`, { cause: err });
      const why =
        code === 'ETIMEOUT'
          ? 'timed out'
          : code === 'ECONNREFUSED'
            ? 'server refused the query'
            : code === 'ESERVFAIL'
              ? 'server failure'
              : (code ?? (err as Error).message);
      throw new Error(`dns: ${kind} lookup of ${name} failed: ${why}`, { cause: err });
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    async resolveTxt(name, signal) {
      const records = await query('TXT', name, signal, (r) => r.resolveTxt(name));
      return (records ?? []).map((chunks) => chunks.join(''));
    },

    async resolveAddresses(name, signal) {
      // Both families in parallel; one family failing is tolerated when the other answers,
      // because some authoritative servers still answer AAAA queries with SERVFAIL.
      const [v4, v6] = await Promise.allSettled([
        query('A', name, signal, (r) => r.resolve4(name)),
        query('AAAA', name, signal, (r) => r.resolve6(name)),
      ]);
      const found = [v4, v6].flatMap((result) => (result.status === 'fulfilled' ? (result.value ?? []) : []));
      const failure = [v4, v6].find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failure !== undefined && (found.length === 0 || signal.aborted)) throw failure.reason;
      return found;
    },
  };
}
