#!/usr/bin/env node
// Entry point of the `perimeter` command.
// - Client commands (login, logout, assets, scan, findings, import; --version and --help at the
//   top level) run the compiled client, dist/client/cli.js (plain JavaScript, built by
//   scripts/build-client.js): no tsx, so they start in well under 300 ms. Without a build, they
//   fall back to the TypeScript sources through tsx (slower, same behaviour).
// - Server commands (serve, migrate, admin) run the TypeScript sources directly through tsx, so
//   `npm start` and `npx perimeter serve` need no build step.
import { existsSync } from 'node:fs';

const argv = process.argv.slice(2);
const clientWords = [
  'login',
  'logout',
  'assets',
  'scan',
  'findings',
  'import',
  '--version',
  '-V',
  'version',
  '--help',
  '-h',
  'help',
];

if (argv.length > 0 && clientWords.includes(argv[0])) {
  const built = new URL('../dist/client/cli.js', import.meta.url);
  if (existsSync(built)) {
    const { main } = await import(built.href);
    await main(argv);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    const { main } = await import('../src/client/cli.ts');
    await main(argv);
  }
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/main.ts');
  await main(argv);
}
