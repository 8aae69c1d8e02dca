import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { finding, scan, scanTarget } from '../support/findings.ts';
import { mainSlotsLent, takeRelease } from '../../src/shared/page-render.mjs';
import { createHarness, testStore, type Harness } from '../support/harness.ts';

/**
 * Pages sent from lent memory (page-render.mjs leases: the reader threads' slots on either store,
 * or the main thread's for pages rendered there, in a transaction), over real connections: with the
 * page cache off every list page is written from a slot, which goes back only once the response
 * is written or its connection is gone. Many distinct pages of two teams at once must each arrive whole and only
 * with their own team's rows, and no slot may stay lent afterwards.
 */
describe('list pages from lent memory, over real connections', () => {
  let h: Harness;
  let base: string;
  const keys: Record<string, string> = {};

  before(async () => {
    h = await createHarness({ pageCacheMb: 0 });
    for (const team of ['alpha', 'beta']) {
      keys[team] = (await h.team(team)).key;
      const target = await scanTarget(h, team, `${team}.example`);
      const findings = Array.from({ length: 40 }, (_, i) =>
        finding(`${team}-${i}`, { host: `${team}.example`, title: `${team} finding ${i} ${'é'.repeat(i * 50)}` }),
      );
      await scan(h, target, findings, { at: new Date(Date.UTC(2026, 9, 1)) });
    }
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => h.close());

  const lent = () => (h.runtime.database.pageSlotsLent?.() ?? 0) + mainSlotsLent();

  async function settled(): Promise<number> {
    for (let i = 0; i < 100 && lent() > 0; i++) await sleep(10);
    return lent();
  }

  it('answers 300 concurrent distinct pages of two teams whole and each with its own rows only, and gives every slot back', async () => {
    const requests = Array.from({ length: 300 }, (_, i) => {
      const team = i % 2 === 0 ? 'alpha' : 'beta';
      const pageSize = 1 + (i % 40);
      return { team, pageSize };
    });
    const answers = await Promise.all(
      requests.map(async ({ team, pageSize }) => {
        const res = await fetch(`${base}/rest/v2/vulnerabilities/?pageSize=${pageSize}`, {
          headers: { 'x-service-key': keys[team]! },
        });
        return { team, pageSize, status: res.status, body: await res.text() };
      }),
    );
    for (const { team, pageSize, status, body } of answers) {
      assert.equal(status, 200, body);
      const page = JSON.parse(body) as { vulnerabilities: Array<{ title: string }>; total_vulnerabilities: number };
      assert.equal(page.vulnerabilities.length, pageSize);
      assert.equal(page.total_vulnerabilities, 40);
      for (const v of page.vulnerabilities)
        assert.ok(v.title.startsWith(`${team} finding `), `${team} got ${v.title.slice(0, 20)}`);
    }
    assert.equal(await settled(), 0, 'no slot stays lent');
  });

  it('answers many concurrent requests for the same pages (one build, one lent body shared) whole, with clients leaving among them, and gives every slot back', async () => {
    const port = Number(new URL(base).port);
    const leaving = Array.from({ length: 30 }, async (_, i) => {
      const socket = connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `GET /rest/v2/vulnerabilities/?pageSize=${i % 2 === 0 ? 25 : 7} HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys['alpha']}\r\n\r\n`,
      );
      if (i % 3 === 0) socket.destroy();
      else socket.once('data', () => socket.destroy());
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    });
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const team = i % 4 === 0 ? 'beta' : 'alpha';
        const pageSize = i % 2 === 0 ? 25 : 7;
        const res = await fetch(`${base}/rest/v2/vulnerabilities/?pageSize=${pageSize}`, {
          headers: { 'x-service-key': keys[team]! },
        });
        return { team, pageSize, status: res.status, body: await res.text() };
      }),
    );
    await Promise.all(leaving);
    const bodies = new Map<string, string>();
    for (const { team, pageSize, status, body } of answers) {
      assert.equal(status, 200, body);
      const page = JSON.parse(body) as { vulnerabilities: Array<{ title: string }> };
      assert.equal(page.vulnerabilities.length, pageSize);
      for (const v of page.vulnerabilities)
        assert.ok(v.title.startsWith(`${team} finding `), `${team} got ${v.title.slice(0, 20)}`);
      const key = `${team} ${pageSize}`;
      assert.equal(bodies.get(key) ?? body, body, 'every request of one page gets the same bytes');
      bodies.set(key, body);
    }
    assert.equal(await settled(), 0, 'no slot stays lent');
  });

  it('gives the slot back when the client leaves before its page is written', async () => {
    for (let i = 0; i < 20; i++) {
      const socket = connect(Number(new URL(base).port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `GET /rest/v2/vulnerabilities/?pageSize=${10 + i} HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys['alpha']}\r\n\r\n`,
      );
      if (i % 2 === 0) socket.destroy();
      else socket.once('data', () => socket.destroy());
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    }
    assert.equal(await settled(), 0);
    const res = await fetch(`${base}/rest/v2/vulnerabilities/?pageSize=3`, {
      headers: { 'x-service-key': keys['beta']! },
    });
    assert.equal(((await res.json()) as { vulnerabilities: unknown[] }).vulnerabilities.length, 3);
  });

  it('renders pages in reader threads on both stores, into a slot lent until the page is given back', async () => {
    const database = h.runtime.database;
    assert.ok(database.pageSlotsLent !== undefined, `${testStore}: no reader threads`);
    const page = await database.readPage(`select 1 as k, '{"x":1}' as document`, [], {
      keys: 1,
      head: [],
      limit: 10,
      room: 0,
    });
    assert.equal(Buffer.from(page.items as Uint8Array).toString(), '{"x":1}');
    assert.equal(database.pageSlotsLent(), 1, 'the page lies in a reader slot');
    takeRelease(page.items as Uint8Array)!();
    assert.equal(database.pageSlotsLent(), 0);
  });
});
