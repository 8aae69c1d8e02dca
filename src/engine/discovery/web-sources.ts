import { isIP } from 'node:net';
import tls from 'node:tls';
import type { DnsResolver } from '../dns/resolver.ts';
import {
  createGuardedHttpClient,
  HttpRequestError,
  type GuardedHttpClient,
  type HttpExchange,
} from '../http-scan/check-kit/guarded-http-client.ts';
import { extractPageLinks } from '../http-scan/check-kit/html-links.ts';
import { RequestBudget } from '../http-scan/check-kit/request-budget.ts';
import { scannerUserAgent } from '../http-scan/check-kit/scan-session.ts';
import { refuseLookup, type EgressGuard } from '../net/egress-guard.ts';
import type { DiscoveryLimits, DiscoveryPorts } from './discovery.types.ts';

/** Response headers whose values name other hosts. */
const NAMING_HEADERS = new Set([
  'location',
  'content-security-policy',
  'content-security-policy-report-only',
  'link',
  'access-control-allow-origin',
  'refresh',
]);

/** What reading one host gave: texts to scan for names, and failures worth a warning. */
export interface HostTexts {
  texts: string[];
  /** Certificate names (SANs and subject CN), as written in the certificate. */
  certificateNames: string[];
  requests: number;
}

/** Options of a web reader: the run's guard, budgets, headers and signal. */
export interface WebReaderOptions {
  guard: EgressGuard;
  /** Answers from the run's own lookups first, so the guard never resolves a name twice. */
  resolver: DnsResolver;
  ports: DiscoveryPorts;
  limits: DiscoveryLimits;
  requestsPerSecond: number;
  customHeaders: Array<{ name: string; value: string }>;
  signal: AbortSignal;
}

/** The DNS names of a certificate's subjectAltName (`DNS:a, DNS:b, IP Address:…`) and its subject CN. */
export function certificateHostNames(subjectAltName: string | undefined, subject: string | undefined): string[] {
  const names: string[] = [];
  for (const entry of (subjectAltName ?? '').split(/,\s*(?=[A-Za-z ]+:)/)) {
    if (!entry.startsWith('DNS:')) continue;
    let value = entry.slice(4);
    // Node quotes a SAN holding special characters as a JSON string.
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        continue;
      }
    }
    names.push(value);
  }
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(subject ?? '')?.[1];
  if (cn !== undefined) names.push(cn);
  return names;
}

/**
 * Reads hosts over HTTPS and HTTP for the names they mention: the certificate presented on the
 * HTTPS port, the page at `/` on both ports (body and naming headers), and a few scripts under
 * the root that the page loads. Every connection goes through the egress guard; each origin gets
 * its own budget of `requestsPerSecond` (0 = unlimited) and requests in flight.
 */
export class WebReader {
  private readonly client: GuardedHttpClient;
  private readonly budgets = new Map<string, RequestBudget>();
  private readonly headers: Array<{ name: string; value: string }>;
  requests = 0;

  constructor(private readonly options: WebReaderOptions) {
    this.client = createGuardedHttpClient({
      guard: options.guard,
      resolver: options.resolver,
      requestTimeoutMs: options.limits.httpTimeoutMs,
      bodyLimit: options.limits.pageBodyLimit,
      signal: options.signal,
    });
    this.headers = [{ name: 'user-agent', value: scannerUserAgent }, ...options.customHeaders];
  }

  /** The URL of a host's page on one scheme, on the configured port. */
  urlOf(host: string, scheme: 'https' | 'http', path = '/'): URL {
    const port = scheme === 'https' ? this.options.ports.https : this.options.ports.http;
    const isDefault = port === (scheme === 'https' ? 443 : 80);
    const bare = isIP(host) === 6 ? `[${host}]` : host;
    return new URL(`${scheme}://${bare}${isDefault ? '' : `:${port}`}${path}`);
  }

  /** GETs one URL within its origin's budget; an HttpRequestError when no response came. */
  async get(url: URL): Promise<HttpExchange | HttpRequestError> {
    const release = await this.budgetOf(url.origin).acquire(this.options.signal);
    try {
      this.requests += 1;
      return await this.client.send({ method: 'GET', url, headers: this.headers }, this.options.signal);
    } catch (err) {
      if (err instanceof HttpRequestError) {
        if (err.kind === 'aborted') this.options.signal.throwIfAborted();
        return err;
      }
      throw err;
    } finally {
      release();
    }
  }

  /** Everything one host says about names: certificate, both pages, their scripts under the root. */
  async readHost(host: string, addresses: string[], isUnderRoot: (name: string) => boolean): Promise<HostTexts> {
    const before = this.requests;
    const texts: string[] = [];
    const certificateNames = await this.certificateOf(host, addresses);
    for (const scheme of ['https', 'http'] as const) {
      const page = await this.get(this.urlOf(host, scheme));
      if (page instanceof HttpRequestError) continue;
      texts.push(...this.namingTexts(page));
      const scripts = this.scriptUrls(page, isUnderRoot);
      for (const script of scripts) {
        const answer = await this.get(script);
        if (!(answer instanceof HttpRequestError) && answer.status < 400) texts.push(answer.body);
      }
    }
    return { texts, certificateNames, requests: this.requests - before };
  }

  /** The certificate a host presents on the HTTPS port (SNI = the name), or [] when none came. */
  async certificateOf(host: string, addresses: string[]): Promise<string[]> {
    const address = addresses[0];
    if (address === undefined) return [];
    const release = await this.budgetOf(this.urlOf(host, 'https').origin).acquire(this.options.signal);
    this.requests += 1;
    try {
      return await new Promise<string[]>((resolve) => {
        const socket = tls.connect({
          host: address,
          port: this.options.ports.https,
          servername: isIP(host) === 0 ? host : undefined,
          rejectUnauthorized: false,
          lookup: refuseLookup,
        });
        const done = (names: string[]): void => {
          clearTimeout(timer);
          this.options.signal.removeEventListener('abort', onAbort);
          socket.destroy();
          resolve(names);
        };
        const onAbort = (): void => done([]);
        this.options.signal.addEventListener('abort', onAbort, { once: true });
        const timer = setTimeout(() => done([]), this.options.limits.httpTimeoutMs);
        socket.once('secureConnect', () => {
          const certificate = socket.getPeerX509Certificate();
          done(certificateHostNames(certificate?.subjectAltName, certificate?.subject));
        });
        socket.once('error', () => done([]));
      });
    } finally {
      release();
      this.options.signal.throwIfAborted();
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private budgetOf(origin: string): RequestBudget {
    let budget = this.budgets.get(origin);
    if (budget === undefined) {
      budget = new RequestBudget(this.options.requestsPerSecond, this.options.limits.perOriginInFlight);
      this.budgets.set(origin, budget);
    }
    return budget;
  }

  /** The body and the headers that name hosts. */
  private namingTexts(page: HttpExchange): string[] {
    const texts = [page.body];
    for (const header of page.headers) if (NAMING_HEADERS.has(header.name.toLowerCase())) texts.push(header.value);
    return texts;
  }

  /** Script URLs of an HTML page on hosts under the root, at most `scriptsPerPage`. */
  private scriptUrls(page: HttpExchange, isUnderRoot: (name: string) => boolean): URL[] {
    const type = page.headers.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? '';
    if (!/html/i.test(type) || this.options.limits.scriptsPerPage === 0) return [];
    const urls: URL[] = [];
    for (const link of extractPageLinks(page.body).links) {
      let url: URL;
      try {
        url = new URL(link, page.request.url);
      } catch {
        continue;
      }
      if (
        (url.protocol !== 'http:' && url.protocol !== 'https:') ||
        !/\.m?js$/i.test(url.pathname) ||
        !isUnderRoot(url.hostname.toLowerCase())
      )
        continue;
      url.hash = '';
      if (urls.some((u) => u.href === url.href)) continue;
      urls.push(url);
      if (urls.length >= this.options.limits.scriptsPerPage) break;
    }
    return urls;
  }
}
