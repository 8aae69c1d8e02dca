import pino from 'pino';
import { defaultConfig } from '../../src/config/config.ts';
import { createApiKey } from '../../src/core/teams/api-key.service.ts';
import { createTeam } from '../../src/core/teams/team.service.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';

/** A store opened for seeding, with one team and its v2 key. */
export interface SeededTeam {
  runtime: Runtime;
  teamId: number;
  /** v2 key in clear, for X-Service-Key. */
  v2Key: string;
}

/**
 * Opens (and migrates) the embedded store in dataDir through the real runtime and creates an
 * enterprise team with an unsigned v2 key through the core services, as `serve` seeds the demo
 * team. Bulk rows are then written through `runtime.database.db`; the caller closes the runtime.
 */
export async function seedTeam(dataDir: string, teamName = 'bench', databaseUrl?: string): Promise<SeededTeam> {
  const runtime = await openRuntime(
    { ...defaultConfig, dataDir, databaseUrl, logLevel: 'warn' },
    { log: pino({ level: 'warn' }) },
  );
  try {
    const team = await createTeam(runtime.store, teamName, 'enterprise');
    const { key } = await createApiKey(runtime.store, runtime.box, {
      teamName,
      kind: 'v2',
      signing: false,
      permissions: [],
    });
    return { runtime, teamId: team.id, v2Key: key };
  } catch (err) {
    await runtime.close();
    throw err;
  }
}

/**
 * Calls `write` with consecutive batches of `batchSize` rows, `batchesPerTransaction` batches in
 * one transaction each, so a large seed neither holds one giant transaction nor commits per row.
 */
export async function insertInBatches<Row>(
  runtime: Runtime,
  options: { count: number; batchSize: number; batchesPerTransaction: number },
  makeRow: (index: number) => Row,
  write: (db: Runtime['database']['db'], rows: Row[]) => Promise<unknown>,
): Promise<void> {
  const perTransaction = options.batchSize * options.batchesPerTransaction;
  for (let start = 0; start < options.count; start += perTransaction) {
    await runtime.database.db.transaction().execute(async (trx) => {
      const end = Math.min(start + perTransaction, options.count);
      for (let from = start; from < end; from += options.batchSize) {
        const rows: Row[] = [];
        for (let i = from; i < Math.min(from + options.batchSize, end); i++) rows.push(makeRow(i));
        await write(trx, rows);
      }
    });
  }
}
