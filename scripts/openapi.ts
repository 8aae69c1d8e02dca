// Writes the generated OpenAPI documents to openapi/ (`write`) or fails when the committed
// files differ from what the route definitions generate (`check`, run in CI).
import { readFileSync, writeFileSync } from 'node:fs';
import { buildOpenApi } from '../src/http/openapi.ts';
import { packageVersion } from '../src/http/ops.routes.ts';
import { allRoutes } from '../src/http/routes.ts';

const mode = process.argv[2];
let drift = false;
for (const surface of ['v2', 'v3'] as const) {
  const path = `openapi/${surface}.json`;
  const generated = `${JSON.stringify(buildOpenApi(surface, allRoutes(), packageVersion), null, 2)}\n`;
  if (mode === 'write') {
    writeFileSync(path, generated);
    console.log(`wrote ${path}`);
    continue;
  }
  let committed = '';
  try {
    committed = readFileSync(path, 'utf8');
  } catch {
    committed = '';
  }
  if (committed !== generated) {
    console.error(`${path} is out of date: run npm run openapi and commit the result`);
    drift = true;
  } else console.log(`${path} is up to date`);
}
if (drift) process.exit(1);
