#!/usr/bin/env node
// Runs the test suite with node's test runner: unit tests beside the code (src/**/*.test.ts)
// and integration tests (test/**/*.test.ts). `--unit` runs only the unit tests; other words
// keep the files whose path contains one of them, and a path to a file runs that file.
// PERIMETER_TEST_STORE=postgres runs the integration suite on PostgreSQL instead of SQLite.
//
// The suite cannot hang: each file runs under a time limit (`--file-timeout=MS`, default
// 3 minutes; node's runner fails the file and stops it, so a file kept open by a leaked handle
// fails instead of holding the run), and everything the run started (servers, workers, tools a
// test forgot) is killed when it ends: the runner runs in a process group of its own, killed
// whole at the end, on every path. (`--test-force-exit` would end such a file quietly, but on
// Node 22 it also cut off the reports of files that had passed: their tests went uncounted.)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const onlyUnit = args.includes('--unit');
const timeoutArg = args.find((a) => a.startsWith('--file-timeout='));
const fileTimeoutMs = timeoutArg === undefined ? 3 * 60_000 : Number(timeoutArg.slice('--file-timeout='.length));
if (!Number.isInteger(fileTimeoutMs) || fileTimeoutMs <= 0) {
  console.error(`run-tests: --file-timeout takes a number of milliseconds, got ${timeoutArg}`);
  process.exit(2);
}
const words = args.filter((a) => !a.startsWith('--'));
const paths = words.filter((w) => w.endsWith('.ts') && existsSync(w) && statSync(w).isFile());
const filters = words.filter((w) => !paths.includes(w));
let files = [];
if (paths.length === 0 || filters.length > 0) {
  files = findTests('src');
  if (!onlyUnit) files.push(...findTests('test'));
  if (filters.length > 0) files = files.filter((f) => filters.some((p) => f.includes(p)));
}
files = [...new Set([...files, ...paths])].sort();
// Three files at a time on two cores: most files spend much of their time waiting (on sockets,
// child processes, scans paced in requests per second), so a third keeps the cores busy.
const nodeArgs = [
  '--import',
  'tsx',
  '--test',
  '--test-concurrency=3',
  '--test-reporter=spec',
  `--test-timeout=${fileTimeoutMs}`,
  ...files,
];
// On PostgreSQL each test file works in schemas named after this run; they are dropped here,
// once every file has finished (a file dropping its schema while another file's migrator
// reads the catalogue made that one fail).
const onPostgres = process.env.PERIMETER_TEST_STORE === 'postgres';
const run = randomBytes(4).toString('hex');
// A server or worker a test starts without naming a DNS resolver asks a closed port on loopback
// (refused at once), never the system's resolver: tests talk to this machine alone.
const env = {
  PERIMETER_DNS_RESOLVERS: '127.0.0.1:9',
  ...process.env,
  NODE_ENV: 'test',
  ...(onPostgres ? { PERIMETER_TEST_RUN: run } : {}),
};
const child = spawn(process.execPath, nodeArgs, { stdio: 'inherit', detached: true, env });

/** Kills the run's process group: the runner, its files and whatever they started. */
function killGroup(signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: nothing of the run is left.
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killGroup(signal);
    setTimeout(() => killGroup('SIGKILL'), 5000).unref();
  });
}
process.on('exit', () => killGroup('SIGKILL'));
const status = await new Promise((resolve) =>
  child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128))),
);
killGroup('SIGKILL');
if (onPostgres) await dropRunSchemas(run);
process.exit(status);

async function dropRunSchemas(tag) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: process.env.PERIMETER_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  });
  await client.connect();
  try {
    const { rows } = await client.query('select nspname from pg_namespace where nspname ~ $1', [`^[a-z]+_${tag}_`]);
    for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`);
  } finally {
    await client.end();
  }
}
