import { transferZoneBatches } from '../src/engine/dns/axfr.ts';
import { EgressGuard } from '../src/engine/net/egress-guard.ts';
import { drainBatches, loadIndexer } from './dns-support.ts';

/**
 * Child process of the dns-axfr benchmark: transfers a zone `runs` times in a fresh process
 * (with `index`, each batch goes through the indexing callback), so no other benchmark's heap
 * weighs on it. Prints one JSON line. Usage: dns-axfr-child.ts <port> <zone> <plain|index> <runs>
 */
const [portText, zone, mode, runsText] = process.argv.slice(2);
if (portText === undefined || zone === undefined || (mode !== 'plain' && mode !== 'index')) {
  console.error('usage: dns-axfr-child.ts <port> <zone> <plain|index> <runs>');
  process.exit(2);
}
const resolver = { resolveTxt: async () => [], resolveAddresses: async () => [] };
const guard = new EgressGuard(['127.0.0.0/8']);
const runs: number[] = [];
let records = 0;
let summary = '';
for (let run = 0; run < Number(runsText ?? 1); run += 1) {
  // The indexer's setup (opening a fresh store) is not indexing: it happens before the clock starts.
  const indexer = mode === 'index' ? await loadIndexer(zone) : undefined;
  const startedAt = performance.now();
  ({ records, summary } = await drainBatches(
    transferZoneBatches({ server: { host: '127.0.0.1', port: Number(portText) }, zone, guard, resolver }),
    indexer,
  ));
  runs.push(performance.now() - startedAt);
}
console.log(JSON.stringify({ records, runs, peakRssMb: process.resourceUsage().maxRSS / 1024, summary }));
