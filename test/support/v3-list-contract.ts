import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createHarness, type Harness } from './harness.ts';

// What every v3 inventory list (`/rest/v3/ips`, `/ports`, `/technologies`) promises alike:
// the page shape, the problem bodies, the cursor walk, the validation answers and the security
// cases. Each list's test file sets up its own data and calls these inside its describe block.

/** The cursor problem detail: one wording for a garbled, forged or foreign cursor. */
export const malformedCursor =
  'cursor is malformed: pass the cursor of a `next` URL unchanged, or none for the first page';

/** One page of a v3 list as the wire carries it. */
export interface V3ListPage<T> {
  items: T[];
  pagination: { next?: string };
}

/** What the shared tests need of a list file's state; read once its `before` has run. */
export interface V3ListSession {
  h: Harness;
  /** The v3 key of the team whose data the file records. */
  v3: string;
}

/** A harness with one team on a plan with the inventory lists, its keys and its assets. */
export interface V3ListTeam extends V3ListSession {
  /** The team's v2 key (JSON), used to add assets. */
  v2: string;
  teamId: number;
  teamToken: string;
  /** Asset name → its id and its token (the `asset_id` on the wire). */
  assets: Record<string, { id: number; token: string }>;
}

/** The whole RFC 9457 body a v3 list answers for an error: `instance` is the list's path. */
export function v3Problem(path: string, status: number, code: number, detail: string): Record<string, unknown> {
  const titles: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden' };
  return { type: `/problems/${code}`, title: titles[status], status, detail, instance: path };
}

/** Starts a harness with team `team` (v2 and v3 keys) owning the given assets, added through v2. */
export async function openV3ListTeam(team: string, assetNames: readonly string[]): Promise<V3ListTeam> {
  const h = await createHarness();
  const v2 = (await h.team(team)).key;
  const v3 = (await h.key(team, '--v3')).key;
  const row = (await h.runtime.store.teams.findByName(team))!;
  const assets: V3ListTeam['assets'] = {};
  for (const name of assetNames) {
    const res = await h.send('POST', '/rest/v2/assets/', { key: v2, body: { name } });
    assert.equal(res.statusCode, 200, res.body);
    const asset = (await h.runtime.store.assets.findByName(row.id, name))!;
    assets[name] = { id: asset.id, token: asset.token };
  }
  return { h, v2, v3, teamId: row.id, teamToken: row.token, assets };
}

/** Readers of one list: `page` fetches one page (asserting a 200 JSON answer), `all` follows `next` to the end. */
export function v3ListReader<T>(path: string, session: () => V3ListSession) {
  async function page(query: string, key = session().v3): Promise<V3ListPage<T>> {
    const res = await session().h.send('GET', `${path}${query}`, { key });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    return res.json() as V3ListPage<T>;
  }

  /** Every item of a listing, following `next` from the given query; the URLs followed too. */
  async function all(query: string): Promise<{ items: T[]; urls: string[] }> {
    const items: T[] = [];
    const urls: string[] = [];
    let body = await page(query);
    for (;;) {
      items.push(...body.items);
      if (body.pagination.next === undefined) {
        assert.deepEqual(body.pagination, {});
        return { items, urls };
      }
      urls.push(body.pagination.next);
      body = await page(new URL(body.pagination.next).search);
    }
  }

  return { page, all };
}

/**
 * The cursor walk test: between page fetches `addRows(round)` records new rows (landing at the
 * end of the order); the walk must see no item twice, skip no item that existed before, and see
 * a prefix of the final order.
 */
export function v3ListWalkTest(
  path: string,
  session: () => V3ListSession,
  addRows: (round: number) => Promise<unknown>,
): void {
  const { page, all } = v3ListReader<{ id: string }>(path, session);
  it('follows next across pages with rows added between fetches: no duplicate, no old row skipped', async () => {
    const old = new Set((await all('?limit=1000')).items.map((i) => i.id));
    const seenIds: string[] = [];
    let body = await page('?limit=7');
    let round = 0;
    for (;;) {
      seenIds.push(...body.items.map((i) => i.id));
      round += 1;
      await addRows(round);
      if (body.pagination.next === undefined) break;
      body = await page(new URL(body.pagination.next).search);
    }
    assert.equal(new Set(seenIds).size, seenIds.length, 'an item came twice');
    for (const id of old) assert.ok(seenIds.includes(id), `old item ${id} was skipped`);
    const final = (await all('?limit=1000')).items.map((i) => i.id);
    // The order is stable: the walk saw the final order's prefix, in the same order.
    assert.deepEqual(seenIds, final.slice(0, seenIds.length));
  });
}

/** One bad query: test name, query string, expected problem code and detail. */
export type V3BadQuery = [name: string, query: string, code: number, detail: string];

/** One test per bad query: a 400 problem+json body naming the parameter, asserted whole. */
export function v3ListValidationTests(path: string, session: () => V3ListSession, bad: readonly V3BadQuery[]): void {
  for (const [name, query, code, detail] of bad) {
    it(`answers a 400 problem naming the parameter: ${name}`, async () => {
      const { h, v3 } = session();
      const res = await h.send('GET', `${path}${query}`, { key: v3 });
      assert.equal(res.statusCode, 400);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual(res.json(), v3Problem(path, 400, code, detail));
    });
  }
}

/** Options of the shared security tests of a list. */
export interface V3ListSecurityOptions {
  /** The team the session's data belongs to: its v2 key must be refused. */
  team: string;
  /** Queries another team must also see empty (filters of this list); `''` is always tried. */
  emptyQueries?: readonly string[];
  /** Whether to test the 405 to another method (default true). */
  otherMethod?: boolean;
}

/**
 * The security cases of a list: no key and a v2 key (401), a plan without the inventory lists
 * (403), another team's view and its use of this team's cursor, another method (405). The
 * session's team must have at least two items listed; the tests create teams `small` and `other`.
 */
export function v3ListSecurityTests(path: string, session: () => V3ListSession, options: V3ListSecurityOptions): void {
  const { page } = v3ListReader<unknown>(path, session);
  const isProblem = (res: { headers: Record<string, unknown> }) =>
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);

  it('answers 401 without a key, and for a v2 key', async () => {
    const { h } = session();
    const none = await h.send('GET', path);
    assert.equal(none.statusCode, 401);
    isProblem(none);
    assert.deepEqual(none.json(), v3Problem(path, 401, 1001, 'API key missing: send it as the Authorization header'));
    const v2 = (await h.key(options.team)).key;
    const res = await h.send('GET', path, { key: v2 });
    assert.equal(res.statusCode, 401);
    isProblem(res);
    assert.deepEqual(res.json(), v3Problem(path, 401, 1003, 'API key invalid'));
  });

  it('answers 403 to a plan without the inventory endpoints', async () => {
    const { h } = session();
    await h.team('small', { plan: 'starter' });
    const key = (await h.key('small', '--v3')).key;
    const res = await h.send('GET', path, { key });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().type, '/problems/1009');
  });

  it("shows another team nothing, and refuses the first team's cursor", async () => {
    const { h } = session();
    await h.team('other');
    const key = (await h.key('other', '--v3')).key;
    for (const query of ['', ...(options.emptyQueries ?? [])]) {
      assert.deepEqual(await page(query, key), { items: [], pagination: {} }, `another team's list${query}`);
    }
    const next = new URL((await page('?limit=1')).pagination.next!);
    const res = await h.send('GET', `${path}${next.search}`, { key });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), v3Problem(path, 400, 4150, malformedCursor));
  });

  if (options.otherMethod !== false) {
    it('answers 405 to another method on the path', async () => {
      const { h, v3 } = session();
      const res = await h.send('POST', path, { key: v3 });
      assert.equal(res.statusCode, 405);
      isProblem(res);
    });
  }
}
