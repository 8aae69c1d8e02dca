import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { defaultConfig } from '../src/config/config.ts';
import { addAsset } from '../src/core/assets/asset.service.ts';
import { createTeam } from '../src/core/teams/team.service.ts';
import { indexRecords } from '../src/core/zones/zone-index.service.ts';
import type { DnsRecordInput } from '../src/core/zones/zone.types.ts';
import type { ZoneRecord } from '../src/engine/dns/zone-record.ts';
import { openRuntime } from '../src/runtime.ts';
import type { RecordIndexer } from './dns-support.ts';

/**
 * The store's indexer for the DNS benchmarks: a fresh embedded store with one team owning the
 * zone's apex, and every batch handed to the core's indexRecords inside one transaction, as a
 * zone-file upload or a transfer does. Opening the store happens here, before timing starts.
 */
export async function createIndexer(origin: string): Promise<RecordIndexer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-bench-index-'));
  const runtime = await openRuntime({ ...defaultConfig, dataDir, logLevel: 'warn' }, { log: pino({ level: 'warn' }) });
  const team = await createTeam(runtime.store, 'bench', 'enterprise');
  const { asset } = await addAsset(runtime.store, team, origin.replace(/\.$/, ''));
  await runtime.store.assets.recordCheck(asset.id, 'verified', new Date());

  // A hand-off between add() and the transaction's record stream: one batch at a time.
  const pending: Array<ZoneRecord[] | null> = [];
  let wake: (() => void) | undefined;
  let taken: (() => void) | undefined;
  async function* stream(): AsyncIterable<DnsRecordInput[]> {
    for (;;) {
      while (pending.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const batch = pending.shift()!;
      taken?.();
      if (batch === null) return;
      yield batch;
    }
  }
  const indexing = runtime.store.transaction((tx) => indexRecords(tx, team, stream(), 'zone-file'));
  let indexed = 0;
  let records = 0;
  const push = async (item: ZoneRecord[] | null) => {
    const handedOver = new Promise<void>((resolve) => (taken = resolve));
    pending.push(item);
    wake?.();
    await Promise.race([handedOver, indexing.then(() => undefined)]);
  };
  return {
    async add(batch) {
      records += batch.length;
      await push(batch);
    },
    async finish() {
      await push(null);
      indexed = await indexing;
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    summary: () =>
      `into the embedded store (SQLite): ${records.toLocaleString('en')} records, ${indexed.toLocaleString('en')} names indexed as subdomains with their records`,
  };
}
