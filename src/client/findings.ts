import { createWriteStream, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { expectPositionals, oneOf, parseArgs, type ParsedArgs } from './args.ts';
import { apiOf, note, print, type Io } from './context.ts';
import { UsageError } from './errors.ts';
import { help } from './help.ts';
import type { Query } from './http.ts';
import { csvLine, table } from './output.ts';

/** A vulnerability as the v2 list answers it (the fields the client shows). */
export interface Finding {
  uuid: string;
  title: string;
  host: string;
  severity: string;
  status: string;
  scan_source: string;
  scan_profile_token: string;
  asset?: { name: string; token: string };
  created_at: string;
  updated_at: string;
  cwe?: number;
}

interface FindingPage {
  vulnerabilities?: Finding[];
  total_vulnerabilities?: number;
  has_more?: boolean;
  next_marker?: string;
}

/** The filters of findings list and export, as option name → query parameter of the v2 list. */
const filters = {
  severity: 'severity',
  status: 'status',
  host: 'host',
  asset: 'asset_token',
  profile: 'scan_profile_token',
  title: 'title',
  source: 'scan_source',
} as const;

export const filterOptions = { repeatable: Object.keys(filters), values: ['since'] };

/** The query of the filters given. */
export function filterQuery(args: ParsedArgs): Query {
  const query: Query = {};
  for (const [option, parameter] of Object.entries(filters)) {
    const values = args.lists[option];
    if (values !== undefined && values.length > 0) query[parameter] = values;
  }
  if (args.values['since'] !== undefined) query['created_after'] = args.values['since'];
  return query;
}

/** `perimeter findings list|export`. */
export async function findings(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'list') return list(rest, io);
  if (sub === 'export') return exportFindings(rest, io);
  throw new UsageError(
    `${sub === undefined ? 'missing subcommand' : `unknown subcommand: findings ${sub}`}\n${help.findings}`,
  );
}

const csvColumns = [
  'uuid',
  'severity',
  'status',
  'title',
  'host',
  'asset',
  'scan_source',
  'scan_profile_token',
  'cwe',
  'created_at',
  'updated_at',
] as const;

function csvRow(f: Finding): unknown[] {
  return csvColumns.map((c) => (c === 'asset' ? f.asset?.name : f[c]));
}

const severityRank: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, information: 4 };

async function list(argv: string[], io: Io): Promise<number> {
  const usage = help['findings list'];
  const args = parseArgs(argv, { ...filterOptions, values: [...filterOptions.values, 'format', 'limit'] }, usage);
  expectPositionals(args, [], usage);
  const format = oneOf(args.values['format'] ?? 'table', ['table', 'json', 'csv'] as const, '--format', usage);
  const limitText = args.values['limit'];
  const limit = limitText === undefined ? Infinity : Number(limitText);
  if (!Number.isInteger(limit) && limit !== Infinity) throw new UsageError(`--limit takes a whole number\n${usage}`);
  if (limit < 1) throw new UsageError(`--limit takes a number above 0\n${usage}`);
  const api = apiOf(args, io);
  const query = filterQuery(args);
  const tableRows: Finding[] = [];
  let count = 0;
  let marker: string | undefined;
  if (format === 'json') io.stdout.write('[');
  if (format === 'csv') io.stdout.write(csvLine([...csvColumns]));
  // Pages are written as they come (json and csv): any number of findings in flat memory.
  for (;;) {
    const pageSize = Math.min(100, limit - count);
    const page = await api.v2<FindingPage>('GET', '/vulnerabilities/', { query: { ...query, marker, pageSize } });
    for (const f of (page.vulnerabilities ?? []).slice(0, limit - count)) {
      if (format === 'json') io.stdout.write(`${count === 0 ? '\n' : ',\n'}${JSON.stringify(f)}`);
      else if (format === 'csv') io.stdout.write(csvLine(csvRow(f)));
      else tableRows.push(f);
      count++;
    }
    if (count >= limit || page.has_more !== true || page.next_marker === undefined) break;
    marker = page.next_marker;
  }
  if (format === 'json') io.stdout.write(count === 0 ? ']\n' : '\n]\n');
  if (format === 'table') {
    tableRows.sort((a, b) => (severityRank[a.severity] ?? 9) - (severityRank[b.severity] ?? 9));
    print(
      io,
      count === 0
        ? 'no findings'
        : table(
            ['severity', 'status', 'host', 'title', 'uuid', 'last seen'],
            tableRows.map((f) => [f.severity, f.status, f.host, f.title, f.uuid, f.updated_at]),
          ),
    );
  }
  return 0;
}

async function exportFindings(argv: string[], io: Io): Promise<number> {
  const usage = help['findings export'];
  const args = parseArgs(
    argv,
    { ...filterOptions, values: [...filterOptions.values, 'format', 'output'], short: { o: 'output' } },
    usage,
  );
  expectPositionals(args, [], usage);
  if (args.values['format'] === undefined) throw new UsageError(`missing --format\n${usage}`);
  const format = oneOf(args.values['format'], ['csv', 'ndjson', 'sarif'] as const, '--format', usage);
  const api = apiOf(args, io);
  const chunks = api.stream('/exports/vulnerabilities', { ...filterQuery(args), format });
  const output = args.values['output'];
  if (output === undefined || output === '-') {
    await pipeline(Readable.from(chunks), io.stdout, { end: false });
    return 0;
  }
  let bytes = 0;
  const counted = Readable.from(chunks).on('data', (chunk: Uint8Array) => (bytes += chunk.length));
  try {
    await pipeline(counted, createWriteStream(output));
  } catch (err) {
    rmSync(output, { force: true });
    throw err;
  }
  note(io, `wrote ${bytes} bytes of ${format} to ${output}`);
  return 0;
}
