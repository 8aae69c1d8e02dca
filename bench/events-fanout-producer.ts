import pino from 'pino';
import { defaultConfig } from '../src/config/config.ts';
import { eventCatalogue } from '../src/core/events/event-catalogue.ts';
import type { NewEvent } from '../src/core/events/event.types.ts';
import { severities, type Severity } from '../src/core/vulnerabilities/vulnerability.types.ts';
import { openCoreRuntime } from '../src/runtime.ts';

/**
 * Child process of the events-fanout benchmark: the producer. It opens the server's store through
 * a second connection of its own (another process, as a scan worker of a scaled deployment would)
 * and appends `rate` events a minute to the team's log for `seconds`, evenly paced (event i is
 * due at start + i × 60,000 / rate ms), one append (one transaction) per event, cycling through
 * the catalogue's kinds and examples. Each event's data carries `bench: { seq, at_ms }`: its
 * number and the wall-clock time of the append, which the receivers read to count deliveries
 * and measure the lag. Prints `producer ready` once the store is open and waits for a line on
 * stdin to start; prints one `PRODUCER_JSON {…}` line when done.
 * Usage: events-fanout-producer.ts <dataDir> <teamId> <eventsPerMinute> <seconds>
 * (PERIMETER_SECRET_KEY in the environment: the store's server key).
 */
const [dataDir, teamText, rateText, secondsText] = process.argv.slice(2);
if (dataDir === undefined || teamText === undefined || rateText === undefined || secondsText === undefined) {
  console.error('usage: events-fanout-producer.ts <dataDir> <teamId> <eventsPerMinute> <seconds>');
  process.exit(2);
}
const teamId = Number(teamText);
const perMinute = Number(rateText);
const seconds = Number(secondsText);
const total = Math.round((perMinute * seconds) / 60);
const intervalMs = 60_000 / perMinute;

// Every kind a change of the team's world writes (webhook.test is never logged).
const templates = eventCatalogue.filter((doc) => doc.kind !== 'webhook.test');

/** The i-th event: the catalogue's i-th example (round robin), numbered and stamped. */
function eventAt(seq: number, atMs: number): NewEvent {
  const doc = templates[seq % templates.length]!;
  const severity = doc.example['severity'];
  return {
    teamId,
    kind: doc.kind,
    occurredAt: new Date(atMs),
    severity: severities.includes(severity as Severity) ? (severity as Severity) : null,
    data: { ...doc.example, bench: { seq, at_ms: atMs } },
  };
}

const runtime = await openCoreRuntime(
  { ...defaultConfig, dataDir, secretKey: process.env['PERIMETER_SECRET_KEY'], storeReaders: 0, logLevel: 'warn' },
  { log: pino({ level: 'warn' }) },
);
console.log('producer ready');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));

const appendMs: number[] = [];
let maxBehindMs = 0;
const startedAt = Date.now();
let firstAtMs = 0;
let lastAtMs = 0;
for (let seq = 0; seq < total; seq += 1) {
  const dueAt = startedAt + seq * intervalMs;
  const wait = dueAt - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const atMs = Date.now();
  maxBehindMs = Math.max(maxBehindMs, atMs - dueAt);
  const before = performance.now();
  await runtime.store.events.append([eventAt(seq, atMs)]);
  appendMs.push(performance.now() - before);
  if (seq === 0) firstAtMs = atMs;
  lastAtMs = atMs;
}
const doneAtMs = Date.now();
await runtime.close();

appendMs.sort((a, b) => a - b);
const at = (p: number) => appendMs[Math.min(appendMs.length - 1, Math.ceil(p * appendMs.length) - 1)] ?? 0;
console.log(
  `PRODUCER_JSON ${JSON.stringify({
    appended: total,
    firstAtMs,
    lastAtMs,
    doneAtMs,
    seconds: (doneAtMs - startedAt) / 1000,
    eventsPerMinute: total > 1 ? (total - 1) / ((lastAtMs - firstAtMs) / 60_000) : total,
    maxBehindMs,
    appendMs: { p50: at(0.5), p99: at(0.99), max: appendMs.at(-1) ?? 0 },
  })}`,
);
