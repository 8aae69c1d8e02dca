import { csvRow } from './csv.ts';
import type { ExportFormat } from './export-format.ts';

/** One page of an inventory list as its service answers it: the items' wire JSON, comma-joined, and where the next starts. */
export interface InventoryExportPage<P> {
  items: string | Uint8Array;
  next: P | undefined;
}

/** What an inventory export reads and writes. */
export interface InventoryExportRequest<P> {
  /** The list's page after `after` (undefined: the first), of `limit` items. */
  page(after: P | undefined, limit: number): Promise<InventoryExportPage<P>>;
  format: Exclude<ExportFormat, 'sarif'>;
  /** CSV columns: paths into an item (`autonomous_system.name`); an object or array cell is written as JSON. */
  columns: readonly string[];
  batchSize: number;
}

function valueAt(item: Record<string, unknown>, path: string): unknown {
  let value: unknown = item;
  for (const key of path.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[key];
  return value;
}

/**
 * An inventory list (IPs, ports, technologies, breaches) as text chunks, one per page of its
 * own keyset list read at `batchSize` items: the wire items of the v3 list, as NDJSON lines
 * or CSV rows under a header row.
 */
export async function* inventoryExport<P>(request: InventoryExportRequest<P>): AsyncGenerator<string> {
  if (request.format === 'csv') yield csvRow(request.columns);
  let after: P | undefined;
  for (;;) {
    const page = await request.page(after, request.batchSize);
    const text = typeof page.items === 'string' ? page.items : Buffer.from(page.items).toString('utf8');
    if (text !== '') {
      const items = JSON.parse(`[${text}]`) as Array<Record<string, unknown>>;
      let chunk = '';
      for (const item of items) {
        chunk +=
          request.format === 'ndjson'
            ? `${JSON.stringify(item)}\n`
            : csvRow(request.columns.map((c) => valueAt(item, c)));
        // Small pieces: see vulnerability-export.ts.
        if (chunk.length >= 32 * 1024) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk !== '') yield chunk;
    }
    if (page.next === undefined) break;
    after = page.next;
  }
}
