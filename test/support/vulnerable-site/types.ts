import type http from 'node:http';

/** The class of a vulnerable spot, as the benchmark tables group them. */
export type SpotClass = 'injection' | 'exposure' | 'configuration' | 'authentication' | 'application';

/**
 * One deliberately vulnerable spot of the fixture site, and what a scanner must report for it:
 * the check's id and the finding's location path (origin left out: `/search?q=`, `/.env`,
 * `/` for an origin-wide finding). The safe twin serves the same path fixed.
 */
export interface Spot {
  /** Stable id of the spot in the manifest (`xss-html-body`, `env-file`, …). */
  id: string;
  class: SpotClass;
  /** The check that must find it (its stable id). */
  checkId: string;
  /** The location path of the expected finding (after the origin). */
  location: string;
  /** What is vulnerable there, for people reading the manifest. */
  description: string;
  /** Only on a site served with this scheme (HSTS and mixed content need HTTPS, a login over HTTP needs HTTP); absent: both. */
  scheme?: 'http' | 'https';
  /** Only a scan that runs the pages' scripts (render_javascript) finds it; manifest() leaves it out unless asked. */
  needs?: 'javascript';
}

/** A spot maker for one class, so that a module's manifest reads one line per spot. */
export function spotsOf(
  spotClass: SpotClass,
): (id: string, checkId: string, location: string, description: string, scheme?: 'http' | 'https') => Spot {
  return (id, checkId, location, description, scheme) => ({
    id,
    class: spotClass,
    checkId,
    location,
    description,
    ...(scheme === undefined ? {} : { scheme }),
  });
}

/** A request as a route module sees it: the URL, the method and the body read in full. */
export interface SiteRequest {
  req: http.IncomingMessage;
  url: URL;
  method: string;
  body: string;
  /** True on the safe twin: every route answers fixed. */
  isSafe: boolean;
  /** `http` or `https`: some spots (HSTS, mixed content) depend on it. */
  scheme: 'http' | 'https';
}

/** A response a route module gives. */
export interface SiteResponse {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: string;
  /** Answer only after this many milliseconds (time-based checks). */
  delayMs?: number;
  /**
   * The whole HTTP response as bytes, written on the connection as they are and the connection
   * closed (the fields above are then ignored): header lines Node's writer refuses (CR LF in a
   * value), or an answer the route has to wait for (a fetch it makes first).
   */
  raw?: Buffer | Promise<Buffer>;
}

/**
 * One group of spots: their manifest entries, the paths the home page links to (how a crawler
 * finds them), and the handler of their paths (undefined: not one of this module's paths).
 */
export interface SiteModule {
  name: string;
  spots: Spot[];
  links: string[];
  handle(request: SiteRequest): SiteResponse | undefined;
}
