#!/usr/bin/env node
// Builds native/udp-batch (the bulk DNS resolver's batch-UDP sockets) with node-gyp; npm runs
// this after `npm install` and `npm ci`. The module is optional: when it cannot be built (no
// C compiler, not Linux), the resolver uses Node's dgram sockets and this says why.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'native', 'udp-batch');
if (process.platform !== 'linux') {
  console.log(
    `native/udp-batch: skipped on ${process.platform} (sendmmsg/recvmmsg are Linux's); DNS uses Node's dgram sockets`,
  );
  process.exit(0);
}

/** node-gyp: the one npm runs lifecycle scripts with, else npm's own copy, else one on the PATH. */
function nodeGyp() {
  const fromNpm = process.env.npm_config_node_gyp;
  if (fromNpm && existsSync(fromNpm)) return [process.execPath, fromNpm];
  try {
    const npmDir = dirname(
      createRequire(import.meta.url).resolve('npm/package.json', {
        paths: [join(dirname(process.execPath), '..', 'lib', 'node_modules')],
      }),
    );
    const bundled = join(npmDir, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    if (existsSync(bundled)) return [process.execPath, bundled];
  } catch {
    // no npm beside this node
  }
  return ['node-gyp'];
}

const [command, ...prefix] = nodeGyp();
const result = spawnSync(command, [...prefix, 'rebuild'], {
  cwd: dir,
  stdio: ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8',
});
if (result.status === 0) {
  console.log('native/udp-batch: built (batch UDP sockets for the bulk DNS resolver)');
} else {
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
    .split('\n')
    .filter((line) => !line.startsWith('gyp info'))
    .slice(-15)
    .join('\n');
  console.warn(
    `native/udp-batch: not built (${result.error?.message ?? `node-gyp exited with ${result.status}`}); DNS uses Node's dgram sockets.\n${output}`,
  );
}
