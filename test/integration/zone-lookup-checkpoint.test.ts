import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addAsset } from '../../src/core/assets/asset.service.ts';
import type { Team } from '../../src/core/teams/team.types.ts';
import {
  createLookupJob,
  getLookupJob,
  lookupChunkBytes,
  runLookupJob,
} from '../../src/core/zones/zone-lookup.service.ts';
import type { NameResolver } from '../../src/core/zones/zone-lookup.types.ts';
import type { DnsRecordInput } from '../../src/core/zones/zone.types.ts';
import { createHarness, type Harness } from '../support/harness.ts';

async function* bodyOf(text: string, pieceSize = 7919): AsyncIterable<Buffer> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += pieceSize) yield bytes.subarray(i, i + pieceSize);
}

/** Answers `okN.example.com` with an A record and fails the rest; can abort after some calls. */
function scriptedResolver(
  options: { abortAfterCalls?: number; controller?: AbortController } = {},
): NameResolver & { calls: number; resolved: string[] } {
  const state = {
    calls: 0,
    resolved: [] as string[],
    async resolveNames(names: string[]) {
      state.calls++;
      if (options.abortAfterCalls !== undefined && state.calls > options.abortAfterCalls) options.controller?.abort();
      const out = new Map<string, DnsRecordInput[] | null>();
      for (const name of names) {
        state.resolved.push(name);
        out.set(name, name.startsWith('ok') ? [{ name, ttl: 300, type: 'A', data: '192.0.2.1' }] : null);
      }
      return out;
    },
  };
  return state;
}

describe('zone lookup jobs: counting and checkpoints', () => {
  let h: Harness;
  let team: Team;

  before(async () => {
    h = await createHarness();
    await h.team('lookups');
    team = (await h.runtime.store.teams.findByName('lookups'))!;
    await addAsset(h.runtime.store, team, 'example.com');
  });
  after(async () => h.close());

  it('counts names received, refused, invalid, duplicate, resolved and unresolved', async () => {
    const list = [
      'ok1.example.com',
      'OK1.example.com.',
      'nx.example.com',
      'other.org',
      '192.0.2.7',
      'not a name',
      '',
      '  ',
      'ok2.example.com',
      'ok1.example.com',
    ].join('\n');
    const job = await createLookupJob(h.runtime.store, team, bodyOf(list, 5));
    assert.equal(job.total, 8, 'non-empty lines');
    assert.equal((await getLookupJob(h.runtime.store, team, job.uuid)).status, 'queued');
    const resolver = scriptedResolver();
    const done = await runLookupJob(h.runtime.store, resolver, job.uuid, new AbortController().signal);
    assert.deepEqual(
      { status: done?.status, total: done?.total, succeeded: done?.succeeded, failed: done?.failed },
      { status: 'done', total: 8, succeeded: 2, failed: 6 },
    );
    assert.deepEqual(
      resolver.resolved.sort(),
      ['nx.example.com', 'ok1.example.com', 'ok2.example.com'],
      "only new names under the team's assets are looked up",
    );
    const discovered = (
      await h.runtime.store.zones.listDocuments({
        teamId: team.id,
        afterKey: undefined,
        createdAfter: undefined,
        limit: 100,
      })
    ).map((d) => JSON.parse(d.document) as { name: string; added_by: string[] });
    assert.deepEqual(discovered.find((d) => d.name === 'ok2.example.com')?.added_by, ['zone-lookup']);
    assert.deepEqual(
      discovered.map((d) => d.name).sort(),
      ['ok1.example.com', 'ok2.example.com'],
      "names outside the team's assets (and unresolved ones) are not added",
    );
  });

  it('resumes from its checkpoint after an interruption and counts every name exactly once', async () => {
    const names: string[] = [];
    for (let i = 0, size = 0; size < lookupChunkBytes * 3.5; i++) {
      names.push(i % 3 === 0 ? `miss${i}.example.com` : `ok${i}.example.com`);
      size += names[names.length - 1]!.length + 1;
    }
    names.push('ok1.example.com'); // a duplicate in the last chunk
    const job = await createLookupJob(h.runtime.store, team, bodyOf(names.join('\n')));
    assert.equal(job.chunks, 4);
    const controller = new AbortController();
    await assert.rejects(
      runLookupJob(h.runtime.store, scriptedResolver({ abortAfterCalls: 2, controller }), job.uuid, controller.signal),
    );
    const partial = await getLookupJob(h.runtime.store, team, job.uuid);
    assert.equal(partial.status, 'running');
    assert.ok(
      partial.succeeded + partial.failed > 0 && partial.succeeded + partial.failed < names.length,
      'progress is visible mid-way',
    );
    const resumed = scriptedResolver();
    const done = await runLookupJob(h.runtime.store, resumed, job.uuid, new AbortController().signal);
    const expectedOk = names.slice(0, -1).filter((n) => n.startsWith('ok')).length;
    assert.equal(done?.status, 'done');
    assert.equal(done?.total, names.length);
    assert.equal(done?.succeeded, expectedOk);
    assert.equal(done?.failed, names.length - expectedOk);
    assert.ok(resumed.calls < 4, 'the resumed run skipped the chunks already done');
    const again = await runLookupJob(h.runtime.store, scriptedResolver(), job.uuid, new AbortController().signal);
    assert.equal(again?.succeeded, expectedOk, 'running a finished job again changes nothing');
  });

  it('answers 6001 for a malformed UUID and 6002 for an unknown, foreign or expired job', async () => {
    await assert.rejects(getLookupJob(h.runtime.store, team, 'nope'), { code: 6001 });
    await assert.rejects(getLookupJob(h.runtime.store, team, '0f8fad5b-d9cb-469f-a165-70867728950e'), { code: 6002 });
    const job = await createLookupJob(h.runtime.store, team, bodyOf('ok9.example.com'));
    await h.team('lookups-other');
    const other = (await h.runtime.store.teams.findByName('lookups-other'))!;
    await assert.rejects(getLookupJob(h.runtime.store, other, job.uuid), { code: 6002 });
    await assert.rejects(getLookupJob(h.runtime.store, team, job.uuid, Date.now() + 10 * 86_400_000 + 1000), {
      code: 6002,
    });
  });
});
