import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewEvent } from '../../src/core/events/event.types.ts';
import { eventCatalogue } from '../../src/core/events/event-catalogue.ts';
import {
  openV3ListTeam,
  v3ListReader,
  v3ListValidationTests,
  v3ListWalkTest,
  v3Problem,
  type V3ListTeam,
} from '../support/v3-list-contract.ts';

interface WireEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

const path = '/rest/v3/events';
const t = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute));

describe('v3 GET /events', () => {
  let team: V3ListTeam;
  const session = () => team;
  const { page, all } = v3ListReader<WireEvent>(path, session);
  let added = 0;
  const addEvents = async (count: number, kind: NewEvent['kind'] = 'asset.added') => {
    const events: NewEvent[] = [];
    for (let i = 0; i < count; i += 1) {
      added += 1;
      events.push({ teamId: team.teamId, kind, occurredAt: t(added), data: { n: added } });
    }
    await team.h.runtime.store.events.append(events);
  };

  before(async () => {
    team = await openV3ListTeam('acme', ['example.com']);
    // The asset add above wrote its own event when the emitters exist; the log is read whole below either way.
    const catalogueKinds = eventCatalogue.map((d) => d.kind);
    const events: NewEvent[] = catalogueKinds.map((kind, i) => ({
      teamId: team.teamId,
      kind,
      occurredAt: t(100 + i),
      data: { ...eventCatalogue[i]!.example },
    }));
    await team.h.runtime.store.events.append(events);
    await addEvents(20);
  });
  after(() => team.h.close());

  it('lists the log oldest first, in the Standard Webhooks payload shape', async () => {
    const { items } = await all('?limit=9');
    assert.ok(items.length >= 40);
    const ids = new Set(items.map((e) => e.id));
    assert.equal(ids.size, items.length);
    for (const e of items) {
      assert.match(e.id, /^[0-9a-f-]{36}$/);
      assert.match(e.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(typeof e.data, 'object');
    }
    const catalogued = items.filter((e) => e.type !== 'asset.added' || e.data['n'] === undefined);
    const example = catalogued.find((e) => e.type === 'breach.opened');
    assert.deepEqual(example?.data, eventCatalogue.find((d) => d.kind === 'breach.opened')!.example);
  });

  it('keeps the kinds asked for, comma-separated or repeated', async () => {
    const one = await all('?kind=breach.opened,scan.failed');
    assert.deepEqual(one.items.map((e) => e.type).sort(), ['breach.opened', 'scan.failed']);
    const repeated = await all('?kind=breach.opened&kind=scan.failed&limit=1');
    assert.deepEqual(
      repeated.items.map((e) => e.id),
      one.items.map((e) => e.id),
    );
    assert.match(repeated.urls[0]!, /kind=breach.opened%2Cscan.failed/);
  });

  it('bounds the time, exclusive on both sides', async () => {
    const { items } = await all(
      `?occurred_after=${t(1).toISOString()}&occurred_before=${t(5).toISOString()}&kind=asset.added`,
    );
    assert.deepEqual(
      items.map((e) => e.data['n']),
      [2, 3, 4],
    );
  });

  it('answers the empty page shape past the end', async () => {
    // Past every event: the seeded ones and the asset.added the team's real asset add wrote (now).
    const body = await page(`?occurred_after=${new Date(Date.now() + 86_400_000).toISOString()}`);
    assert.deepEqual(body, { items: [], pagination: {} });
  });

  v3ListWalkTest(path, session, (round) => addEvents(round % 3));
  v3ListValidationTests(path, session, [
    [
      'an unknown kind',
      '?kind=scan.exploded',
      4150,
      'kind must be one or more of ' +
        eventCatalogue.map((d) => d.kind).join(', ') +
        ' (comma-separated or repeated), got "scan.exploded"',
    ],
    ['a limit of 0', '?limit=0', 4150, 'limit must be an integer from 1 to 1000'],
    [
      'a garbled cursor',
      '?cursor=abc',
      4150,
      'cursor is malformed: pass the cursor of a `next` URL unchanged, or none for the first page',
    ],
  ]);

  it("shows another team none of these events, and refuses this team's cursor", async () => {
    const { h } = team;
    await h.team('other');
    const key = (await h.key('other', '--v3')).key;
    assert.deepEqual(await page('', key), { items: [], pagination: {} });
    const next = new URL((await page('?limit=1')).pagination.next!);
    const res = await h.send('GET', `${path}${next.search}`, { key });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().type, '/problems/4150');
  });

  it("makes a team's events visible in id order: an append waits for an earlier one's commit", async () => {
    // A reader's cursor (webhooks, Jira) must never pass an id that is not visible yet. Transaction A
    // appends and holds its commit; B appends while A is open. B's event must come after A's and be
    // visible only after A's is.
    const { store } = team.h.runtime;
    const before = await store.events.latestId(team.teamId);
    const order: string[] = [];
    let releaseA!: () => void;
    const aHolds = new Promise<void>((resolve) => (releaseA = resolve));
    let aAppended!: () => void;
    const aIn = new Promise<void>((resolve) => (aAppended = resolve));
    const a = store.transaction(async (tx) => {
      await tx.events.append([{ teamId: team.teamId, kind: 'scan.started', occurredAt: t(5000), data: { tx: 'a' } }]);
      aAppended();
      await aHolds;
      order.push('a commits');
    });
    await aIn;
    const b = store.transaction(async (tx) => {
      await tx.events.append([{ teamId: team.teamId, kind: 'scan.started', occurredAt: t(5001), data: { tx: 'b' } }]);
      order.push('b appended');
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // While A is open, a reader sees neither event.
    assert.equal((await store.events.list(team.teamId, {}, before, 10)).length, 0);
    releaseA();
    await Promise.all([a, b]);
    const seen = await store.events.list(team.teamId, {}, before, 10);
    assert.deepEqual(
      seen.map((e) => e.data['tx']),
      ['a', 'b'],
    );
    if (process.env['PERIMETER_TEST_STORE'] === 'postgres') assert.deepEqual(order, ['a commits', 'b appended']);
  });

  it('answers 401 without a key and for a v2 key', async () => {
    const { h, v2 } = team;
    const none = await h.send('GET', path);
    assert.equal(none.statusCode, 401);
    const res = await h.send('GET', path, { key: v2 });
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), v3Problem(path, 401, 1003, 'API key invalid'));
  });
});
