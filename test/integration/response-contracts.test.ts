import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ErrorBody } from '../../src/http/v2/schemas.ts';
import { seedJira, seedWalk, sendWalk, walkRequests, type Seed, type WalkRequest } from '../support/api-walk.ts';

type Document = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
};

/** The v3 problem body, as components.schemas.Problem of the v3 document gives it. */
const Problem = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  instance: Type.String(),
});

/**
 * Every answer of the API walk (test/support/api-walk.ts: every operation of both surfaces on a
 * seeded team, so lists, pre-rendered pages included, are not empty) is documented: its status is
 * a response of the operation in the generated OpenAPI document, with that content type, and its
 * body passes the schema the document is generated from (the route's response schema for a
 * success, Error for a v2 error, Problem for a v3 one).
 */
describe('every answer matches its OpenAPI response', () => {
  let seed: Seed;
  const docs: Partial<Record<'v2' | 'v3', Document>> = {};
  before(async () => {
    seed = await seedWalk();
    for (const surface of ['v2', 'v3'] as const)
      docs[surface] = (await seed.h.send('GET', `/rest/${surface}/openapi.json`)).json() as Document;
  });
  after(async () => seed.h.close());

  it('walks both surfaces: success, malformed inputs, missing key and unknown tokens', async () => {
    const problems: string[] = [];
    const seen = new Map<string, Set<string>>();
    const requests = walkRequests(seed);
    for (const r of requests) {
      const res = await sendWalk(seed, r);
      const what = `${r.kind}: ${r.method} ${r.url} → ${res.statusCode}`;
      const op = docs[r.route.surface]!.paths[r.route.path]?.[r.method.toLowerCase()];
      if (op === undefined) {
        problems.push(`${what}: no operation in the ${r.route.surface} document`);
        continue;
      }
      const kinds = seen.get(r.route.operationId) ?? new Set<string>();
      kinds.add(
        res.statusCode < 300
          ? 'success'
          : res.statusCode === 401
            ? 'no-key'
            : res.statusCode === 404
              ? 'not-found'
              : 'error',
      );
      seen.set(r.route.operationId, kinds);
      const documented = op.responses[String(res.statusCode)];
      if (documented === undefined) {
        problems.push(`${what}: status not documented (${Object.keys(op.responses).join(', ')})`);
        continue;
      }
      if (res.body.length === 0) {
        if (documented.content !== undefined)
          problems.push(`${what}: empty body where the document names ${Object.keys(documented.content).join(', ')}`);
        continue;
      }
      const type = String(res.headers['content-type']).split(';')[0]!;
      if (documented.content?.[type] === undefined) {
        problems.push(`${what}: content type ${type} not documented`);
        continue;
      }
      const schema: TSchema = res.statusCode < 300 ? r.route.response : r.route.surface === 'v2' ? ErrorBody : Problem;
      // A success in a documented non-JSON type (an export, a report) is the string its schema names.
      const isJson = type === 'application/json' || type === 'application/problem+json';
      const body = isJson ? (res.json() as unknown) : res.body;
      if (!Value.Check(schema, body)) {
        const first = [...Value.Errors(schema, body)].slice(0, 3).map((e) => `${e.path}: ${e.message}`);
        problems.push(`${what}: body does not match its schema (${first.join('; ')}): ${res.body.slice(0, 300)}`);
      }
    }
    assert.deepEqual(
      problems.slice(0, 20),
      [],
      `${problems.length} answers of ${requests.length} do not match the documents`,
    );
    // Each operation was seen answering: a success (or its documented refusal on the seed), 401 without a key, and an error.
    for (const [operation, kinds] of seen) {
      assert.ok(kinds.has('no-key'), `${operation}: no 401`);
      assert.ok(kinds.size >= 2, `${operation}: only ${[...kinds].join(', ')}`);
    }
    assert.ok(requests.length > 2000, `${requests.length} requests`);
  });

  it('sees every list non-empty on the seed (pre-rendered pages included)', async () => {
    // The walk above deleted the team's one Jira connection and its links.
    await seedJira(seed);
    const lists = walkRequests(seed).filter(
      (r: WalkRequest) =>
        r.kind === 'success' && r.method === 'GET' && /^list/.test(r.route.operationId) && !r.route.path.includes('{'),
    );
    assert.ok(lists.length >= 8, `${lists.length} lists`);
    for (const r of lists) {
      const body = (await sendWalk(seed, r)).json() as unknown;
      const items = Array.isArray(body) ? body : Object.values(body as Record<string, unknown>).find(Array.isArray);
      assert.ok(
        Array.isArray(items) && items.length > 0,
        `${r.route.operationId} lists nothing: ${JSON.stringify(body).slice(0, 200)}`,
      );
    }
  });
});
