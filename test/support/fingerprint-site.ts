import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenTracked, type TrackedServer } from './http-server.ts';

/** Folder of the corpus: one `<id>.json` (headers, expected technologies) and its `<id>.html` body per page. */
export const fingerprintCorpusDir = fileURLToPath(new URL('../fixtures/fingerprint-corpus/', import.meta.url));

/** A technology a corpus page shows; `version` when the page tells it. */
export interface ExpectedTechnology {
  name: string;
  version?: string;
}

/** One page of the corpus: what a common stack answers at `/`. */
export interface CorpusPage {
  id: string;
  description: string;
  status: number;
  /** Response headers as sent, in order (a name may repeat, as Set-Cookie does). */
  headers: Array<[string, string]>;
  body: string;
  /** Rule-set names; empty for the plain page. */
  expected: ExpectedTechnology[];
}

/** Reads every page of the corpus, sorted by id. */
export function loadFingerprintCorpus(): CorpusPage[] {
  const pages: CorpusPage[] = [];
  for (const file of readdirSync(fingerprintCorpusDir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const raw = JSON.parse(readFileSync(join(fingerprintCorpusDir, file), 'utf8')) as Omit<
      CorpusPage,
      'id' | 'body'
    > & { body: string };
    pages.push({
      id: file.replace(/\.json$/, ''),
      description: raw.description,
      status: raw.status,
      headers: raw.headers,
      body: readFileSync(join(fingerprintCorpusDir, raw.body), 'utf8'),
      expected: raw.expected,
    });
  }
  return pages;
}

/** A request a corpus server received. */
export interface SiteRequest {
  pageId: string;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** performance.now() when it arrived. */
  at: number;
}

/** The corpus served on 127.0.0.1, one server (port) per page. */
export interface FingerprintSite {
  servers: Array<{ page: CorpusPage; port: number; tracked: TrackedServer }>;
  requests: SiteRequest[];
  /** The port of a page by id. */
  portOf(id: string): number;
  stop(): Promise<void>;
}

/** Node's header object for a page: repeated names become lists. */
function headerObject(headers: Array<[string, string]>, length: number): http.OutgoingHttpHeaders {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const previous = out[key];
    out[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  out['content-length'] = String(length);
  return out;
}

/**
 * Serves each page at `/` of its own port (any other path answers 404 with the page's
 * headers, as the stack would), recording every request with its headers.
 */
export async function serveFingerprintCorpus(pages: CorpusPage[] = loadFingerprintCorpus()): Promise<FingerprintSite> {
  const requests: SiteRequest[] = [];
  const servers: FingerprintSite['servers'] = [];
  try {
    for (const page of pages) {
      const body = Buffer.from(page.body, 'utf8');
      const notFound = Buffer.from('<!DOCTYPE html><title>404 Not Found</title><h1>Not Found</h1>\n', 'utf8');
      const server = http.createServer((req, res) => {
        const path = req.url ?? '/';
        requests.push({
          pageId: page.id,
          method: req.method ?? '?',
          path,
          headers: req.headers,
          at: performance.now(),
        });
        if (path === '/' || path.startsWith('/?'))
          res
            .writeHead(page.status, headerObject(page.headers, body.length))
            .end(req.method === 'HEAD' ? undefined : body);
        else
          res
            .writeHead(
              404,
              headerObject(
                page.headers.filter(([name]) => name.toLowerCase() !== 'set-cookie'),
                notFound.length,
              ),
            )
            .end(req.method === 'HEAD' ? undefined : notFound);
      });
      servers.push({ page, port: 0, tracked: await listenTracked(server) });
      servers[servers.length - 1]!.port = servers[servers.length - 1]!.tracked.port;
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.tracked.stop()));
    throw err;
  }
  return {
    servers,
    requests,
    portOf(id) {
      const found = servers.find((s) => s.page.id === id);
      if (found === undefined) throw new Error(`no corpus page ${id}`);
      return found.port;
    },
    stop: async () => {
      await Promise.all(servers.map((s) => s.tracked.stop()));
    },
  };
}
