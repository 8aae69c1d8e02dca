/** Lays rows out in columns under their headers, two spaces apart, for a terminal (no trailing spaces). */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** A time for people: ISO 8601 UTC to the second (`2025-01-31 12:00:05Z`); `ifNone` when there is none. */
export function formatTime(time: Date | null, ifNone: string): string {
  return time === null ? ifNone : `${time.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}
