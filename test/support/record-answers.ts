import { writeFileSync } from 'node:fs';
import { seedWalk, sendWalk, walkRequests } from './api-walk.ts';

/**
 * Records the answers of the API walk (status, content-type, body) on a fresh harness, with
 * tokens, times and markers normalised, as one JSON file: run before and after a change and
 * compare the two files. Usage: node --import tsx test/support/record-answers.ts OUT.json
 */
const out = process.argv[2] ?? 'answers.json';
const seed = await seedWalk();
const names = new Map(Object.entries(seed.tokens).map(([name, token]) => [token, `<${name}>`]));
names.set(seed.teamToken, '<team>');
const seen = new Map<string, string>();
const ordinal = (kind: string) => (value: string) => {
  const known = names.get(value) ?? names.get(value.toLowerCase());
  if (known !== undefined) return known;
  if (!seen.has(value)) seen.set(value, `<${kind}${seen.size}>`);
  return seen.get(value)!;
};
const normalise = (text: string) =>
  text
    .replace(/("(?:next_marker|current_marker|marker)":")[^"]*"/g, '$1<marker>"')
    .replace(/cursor=[^&"\s]+/g, 'cursor=<cursor>')
    .replace(/\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g, ordinal('uuid'))
    .replace(/\b[0-9a-fA-F]{32}\b/g, ordinal('token'))
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g, '<time>')
    .replace(/request id [\w-]+/g, 'request id <id>')
    .replace(/key [0-9a-f]{6}…/g, 'key <hint>…');
const records = [];
for (const r of walkRequests(seed)) {
  const res = await sendWalk(seed, r);
  records.push({
    request: `${r.kind} ${r.method} ${normalise(r.url)}${r.body === undefined ? '' : ` ${normalise(typeof r.body === 'string' ? r.body : JSON.stringify(r.body))}`}`,
    status: res.statusCode,
    type: res.headers['content-type'] ?? null,
    body: normalise(res.body),
  });
}
await seed.h.close();
writeFileSync(out, `${JSON.stringify(records, null, 1)}\n`);
console.log(`${records.length} answers recorded in ${out}`);
