/** A value as a cell: strings as they are, lists joined, nothing as empty. */
function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(cell).join(' ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Rows as an aligned text table with a header; the last column is never padded. */
export function table(columns: string[], rows: unknown[][]): string {
  const cells = [columns, ...rows.map((row) => row.map((v) => cell(v).replace(/\s+/g, ' ')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((value, i) => (i === row.length - 1 ? value : value.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a leading =+-@ is neutralised. */
export function csvField(value: unknown): string {
  let text = cell(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV line (CRLF-free: lines end in \n). */
export function csvLine(values: unknown[]): string {
  return `${values.map(csvField).join(',')}\n`;
}

/** Seconds as `1h02m`, `3m05s` or `42s`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
