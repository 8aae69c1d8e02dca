#!/usr/bin/env node
// Entry point of the `perimeter` command: runs the TypeScript sources directly through tsx,
// so `npm start` and `npx perimeter` need no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
await main(process.argv.slice(2));
