import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The console's own CSS and JavaScript (src/http/console/static), read and compressed once at start.
 * Each is served under a name that carries its content hash, cached for a year: a new release
 * changes the name. Nothing is loaded from another host.
 */
interface StaticFile {
  type: string;
  body: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  /** The URL path, with the content hash. */
  path: string;
}

const sources = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'overview.js': 'text/javascript; charset=utf-8',
  'uplot.iife.js': 'text/javascript; charset=utf-8',
  'uplot.css': 'text/css; charset=utf-8',
  'zones.js': 'text/javascript; charset=utf-8',
  'scans.js': 'text/javascript; charset=utf-8',
} as const;

/** A file name of src/http/console/static that pages link to. */
export type StaticName = keyof typeof sources;

/**
 * Files served from an installed package instead of src/http/console/static: third-party code
 * the console ships as published (docs/console.md names each and its licence).
 */
const packaged: Partial<Record<StaticName, string>> = {
  'uplot.iife.js': 'uplot/dist/uPlot.iife.min.js',
  'uplot.css': 'uplot/dist/uPlot.min.css',
};
const resolvePackaged = createRequire(import.meta.url).resolve;

function load(): Map<StaticName, StaticFile> {
  const files = new Map<StaticName, StaticFile>();
  for (const [name, type] of Object.entries(sources) as Array<[StaticName, string]>) {
    const from = packaged[name];
    const body = readFileSync(
      from === undefined ? new URL(`./static/${name}`, import.meta.url) : resolvePackaged(from),
    );
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const dot = name.lastIndexOf('.');
    const [base, ext] = [name.slice(0, dot), name.slice(dot + 1)];
    files.set(name, {
      type,
      body,
      gzip: gzipSync(body, { level: 9 }),
      brotli: brotliCompressSync(body),
      path: `/console/static/${base}.${hash}.${ext}`,
    });
  }
  return files;
}

const files = load();
const byPath = new Map([...files.values()].map((f) => [f.path, f]));

/** The URL of a static file (its hashed name). */
export function staticUrl(name: StaticName): string {
  return files.get(name)!.path;
}

/** The compressed size of every static file together (brotli), for the page weight budget. */
export function staticWeight(): { raw: number; brotli: number; gzip: number } {
  let raw = 0;
  let brotli = 0;
  let gzip = 0;
  for (const f of files.values()) {
    raw += f.body.length;
    brotli += f.brotli.length;
    gzip += f.gzip.length;
  }
  return { raw, brotli, gzip };
}

/** Answers a static file by its hashed path (brotli or gzip when the client takes it); false when none. */
export function sendStatic(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const file = byPath.get(request.url.split('?')[0]!);
  if (file === undefined) return undefined;
  const accepts = String(request.headers['accept-encoding'] ?? '');
  reply
    .header('content-type', file.type)
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'accept-encoding');
  if (/\bbr\b/.test(accepts)) return reply.header('content-encoding', 'br').send(file.brotli);
  if (/\bgzip\b/.test(accepts)) return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.body);
}
