import { expectPositionals, oneOf, parseArgs } from './args.ts';
import { apiOf, print, type Io } from './context.ts';
import { UsageError } from './errors.ts';
import { help } from './help.ts';
import type { Api } from './http.ts';
import { csvLine, table } from './output.ts';

interface Asset {
  token: string;
  name: string;
  status?: string;
  monitored?: boolean;
  added_by?: string[];
  created?: string;
}

interface AssetPage {
  assets?: Asset[];
  has_more?: boolean;
  next_marker?: string;
}

/** Every root asset of the team, page after page. */
export async function allAssets(api: Api): Promise<Asset[]> {
  const out: Asset[] = [];
  let marker: string | undefined;
  for (;;) {
    const page = await api.v2<AssetPage>('GET', '/assets/', { query: { marker, pageSize: 100 } });
    out.push(...(page.assets ?? []));
    if (page.has_more !== true || page.next_marker === undefined) return out;
    marker = page.next_marker;
  }
}

/** `perimeter assets list|add|rm`. */
export async function assets(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'list':
      return list(rest, io);
    case 'add':
      return add(rest, io);
    case 'rm':
    case 'remove':
    case 'delete':
      return remove(rest, io);
    case undefined:
      throw new UsageError(`missing subcommand\n${help.assets}`);
    default:
      throw new UsageError(`unknown subcommand: assets ${sub}\n${help.assets}`);
  }
}

async function list(argv: string[], io: Io): Promise<number> {
  const usage = help['assets list'];
  const args = parseArgs(argv, { values: ['format'] }, usage);
  expectPositionals(args, [], usage);
  const format = oneOf(args.values['format'] ?? 'table', ['table', 'json', 'csv'] as const, '--format', usage);
  const items = await allAssets(apiOf(args, io));
  const columns = ['token', 'name', 'status', 'monitored', 'created'] as const;
  const rows = items.map((a) => columns.map((c) => a[c]));
  if (format === 'json') print(io, JSON.stringify(items, null, 2));
  else if (format === 'csv') io.stdout.write([[...columns], ...rows].map((row) => csvLine(row)).join(''));
  else print(io, items.length === 0 ? 'no assets' : table([...columns], rows));
  return 0;
}

async function add(argv: string[], io: Io): Promise<number> {
  const usage = help['assets add'];
  const args = parseArgs(argv, {}, usage);
  const [name] = expectPositionals(args, ['NAME'], usage);
  const asset = await apiOf(args, io).v2<Asset & { code?: number; message?: string }>('POST', '/assets/', {
    body: { name },
  });
  if (asset.token === undefined) print(io, asset.message ?? `accepted ${name}`);
  else print(io, `added ${asset.name} (token ${asset.token}, ${asset.status ?? 'unverified'})`);
  return 0;
}

async function remove(argv: string[], io: Io): Promise<number> {
  const usage = help['assets rm'];
  const args = parseArgs(argv, {}, usage);
  const [which] = expectPositionals(args, ['NAME-or-token'], usage);
  const api = apiOf(args, io);
  const items = await allAssets(api);
  const asset =
    items.find((a) => a.token === which) ?? items.find((a) => a.name.toLowerCase() === which!.toLowerCase());
  const token = asset?.token ?? which!;
  await api.v2('DELETE', `/assets/${encodeURIComponent(token)}/`);
  print(io, `removed ${asset?.name ?? token}`);
  return 0;
}
