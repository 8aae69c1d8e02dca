#!/usr/bin/env node
// Runs the test suite with node's test runner: unit tests beside the code (src/**/*.test.ts)
// and integration tests (test/**/*.test.ts). `--unit` runs only the unit tests.
// PERIMETER_TEST_STORE=postgres runs the integration suite on PostgreSQL instead of SQLite.
import { spawnSync } from 'node:child_process';
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
const result = spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
process.exit(result.status ?? 1);
