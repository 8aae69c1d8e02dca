import { serve, type TargetServer } from '../target-site.ts';
import { applicationModule } from './application.ts';
import { authenticationModule } from './authentication.ts';
import { domModule } from './dom.ts';
import { evaluationModule } from './evaluation.ts';
import { deserializationModule } from './deserialization.ts';
import { configurationModule, fixtureSecurityHeaders } from './configuration.ts';
import { exposureModule } from './exposure.ts';
import { formsModule } from './forms.ts';
import { injectionModule } from './injection.ts';
import { injectionContextsModule } from './injection-contexts.ts';
import { injectionAdvancedModule } from './injection-advanced.ts';
import type { SiteModule, SiteResponse, Spot } from './types.ts';

/**
 * The deliberately vulnerable fixture site of the application scanner (issue "The application
 * scanner"): every route module adds spots, their safe twins and links from the home page. The
 * manifest (every module's spots) says what a scanner must find and where; the safe twin serves
 * the same paths fixed, and a scanner that reports anything there has a false positive.
 */
export const siteModules: SiteModule[] = [
  injectionModule,
  injectionContextsModule,
  injectionAdvancedModule,
  exposureModule,
  configurationModule,
  authenticationModule,
  domModule,
  applicationModule,
  formsModule,
  evaluationModule,
  deserializationModule,
];

/**
 * Every spot of every module: what is where. Spots that need a browser (`needs: 'javascript'`)
 * only with `javascript: true`: a scan without render_javascript cannot find them.
 */
export function manifest(options: { javascript?: boolean } = {}): Spot[] {
  return siteModules.flatMap((m) => m.spots).filter((s) => s.needs === undefined || options.javascript === true);
}

/** A running pair: the vulnerable site and its safe twin, with the same paths. */
export interface VulnerableSites {
  vulnerable: TargetServer;
  safe: TargetServer;
  manifest: Spot[];
  stop(): Promise<void>;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function homePage(): string {
  const links = siteModules.flatMap((m) =>
    m.links.map((href) => `<li><a href="${escapeHtml(href)}">${escapeHtml(href)}</a></li>`),
  );
  return `<!doctype html><html><head><title>Fixture shop</title></head><body><h1>Fixture shop</h1><ul>${links.join('')}</ul></body></html>`;
}

const BODY_LIMIT = 1024 * 1024;

function serveTwin(scheme: 'http' | 'https', isSafe: boolean): Promise<TargetServer> {
  return serve(scheme, (req, res, url) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
    });
    req.on('end', () => {
      const request = {
        req,
        url,
        method: req.method ?? 'GET',
        body: Buffer.concat(chunks).toString('utf8'),
        isSafe,
        scheme,
      };
      let answer: SiteResponse | undefined;
      try {
        answer =
          url.pathname === '/'
            ? { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: homePage() }
            : siteModules.map((m) => m.handle(request)).find((a) => a !== undefined);
      } catch (err) {
        answer = { status: 500, headers: { 'content-type': 'text/plain' }, body: `fixture error: ${String(err)}` };
      }
      const response = answer ?? {
        status: 404,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: '<!doctype html><title>Not found</title><p>Not found</p>',
      };
      if (response.raw !== undefined) {
        // Past Node's response writer on purpose; a failed answer (a fetch gone wrong) drops the connection.
        Promise.resolve(response.raw).then(
          (bytes) => void req.socket.end(bytes),
          () => void req.socket.destroy(),
        );
        return;
      }
      const send = (): void => {
        if (res.destroyed) return;
        try {
          res
            .writeHead(response.status, {
              'content-type': 'text/html; charset=utf-8',
              ...fixtureSecurityHeaders(request),
              ...response.headers,
            })
            .end(req.method === 'HEAD' ? undefined : (response.body ?? ''));
        } catch (err) {
          // A header value Node refuses (a scanner's CR LF in a redirect target): answer as a
          // framework would, never take the whole fixture down.
          if (!res.headersSent)
            res.writeHead(500, { 'content-type': 'text/plain' }).end(`fixture error: ${String(err)}`);
        }
      };
      if (response.delayMs !== undefined && response.delayMs > 0) setTimeout(send, response.delayMs).unref();
      else send();
    });
  });
}

/** Starts the vulnerable site and its safe twin on 127.0.0.1 (free ports). */
export async function startVulnerableSites(options: { isHttps?: boolean } = {}): Promise<VulnerableSites> {
  const scheme = options.isHttps === true ? 'https' : 'http';
  const vulnerable = await serveTwin(scheme, false);
  const safe = await serveTwin(scheme, true);
  return {
    vulnerable,
    safe,
    manifest: manifest(),
    stop: async () => {
      await Promise.all([vulnerable.stop(), safe.stop()]);
    },
  };
}
