#!/usr/bin/env node
// Runs the test suite with node's test runner: unit tests beside the code (src/**/*.test.ts)
// and integration tests (test/**/*.test.ts). `--unit` runs only the unit tests.
// PERIMETER_TEST_STORE=postgres runs the integration suite on PostgreSQL instead of SQLite.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
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

const onlyUnit = process.argv.includes('--unit');
const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
let files = findTests('src');
if (!onlyUnit) files.push(...findTests('test'));
if (filters.length > 0) files = files.filter((f) => filters.some((p) => f.includes(p)));
files.sort();
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files];
// On PostgreSQL each test file works in schemas named after this run; they are dropped here,
// once every file has finished (a file dropping its schema while another file's migrator
// reads the catalogue made that one fail).
const onPostgres = process.env.PERIMETER_TEST_STORE === 'postgres';
const run = randomBytes(4).toString('hex');
const result = spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test', ...(onPostgres ? { PERIMETER_TEST_RUN: run } : {}) } });
if (onPostgres) await dropRunSchemas(run);
process.exit(result.status ?? 1);

async function dropRunSchemas(tag) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.PERIMETER_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
  await client.connect();
  try {
    const { rows } = await client.query("select nspname from pg_namespace where nspname ~ $1", [`^[a-z]+_${tag}_`]);
    for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`);
  } finally {
    await client.end();
  }
}
