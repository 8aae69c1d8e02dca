#!/usr/bin/env node
// Builds the client command line (src/client/cli.ts) into one plain JavaScript file,
// dist/client/cli.js, which bin/perimeter.js loads without tsx: `perimeter login|assets|scan|
// findings|import` start in well under 300 ms. Uses esbuild's JS API; npm runs it after `npm install` and `npm ci` (postinstall).
// `node scripts/build-client.js` builds; `--if-stale` builds only when a source is newer than the output.
import { build } from 'esbuild';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'src/client/cli.ts');
const outfile = join(root, 'dist/client/cli.js');

/** True when the output is missing or older than a source of src/client. */
function isStale() {
  let built;
  try {
    built = statSync(outfile).mtimeMs;
  } catch {
    return true;
  }
  const dir = join(root, 'src/client');
  return readdirSync(dir).some((name) => statSync(join(dir, name)).mtimeMs > built);
}

/** Builds dist/client/cli.js (ESM, Node 20, no dependencies outside Node). */
export async function buildClient() {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: '// Built by scripts/build-client.js from src/client/*.ts: do not edit.' },
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);
  await buildClient();
  console.log(`built ${outfile}`);
}
