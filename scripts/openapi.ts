// Writes the generated documents (openapi/v2.json, openapi/v3.json, docs/events.md) (`write`) or fails when the committed
// files differ from what the route definitions generate (`check`, run in CI).
import { readFileSync, writeFileSync } from 'node:fs';
import { catalogueMarkdown } from '../src/core/events/catalogue-markdown.ts';
import { buildOpenApi } from '../src/http/openapi.ts';
import { packageVersion } from '../src/http/ops.routes.ts';
import { allRoutes } from '../src/http/routes.ts';

const mode = process.argv[2];
let drift = false;
const documents: Array<[path: string, generate: () => string]> = [
  ...(['v2', 'v3'] as const).map((surface): [string, () => string] => [
    `openapi/${surface}.json`,
    () => `${JSON.stringify(buildOpenApi(surface, allRoutes(), packageVersion), null, 2)}\n`,
  ]),
  ['docs/events.md', catalogueMarkdown],
];
for (const [path, generate] of documents) {
  const generated = generate();
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
