/** The formats an export is written in. */
export const exportFormats = ['csv', 'ndjson', 'sarif'] as const;
export type ExportFormat = (typeof exportFormats)[number];

/** The media type of each format. */
export const exportMediaTypes: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  sarif: 'application/sarif+json; charset=utf-8',
};

/** The file name extension of each format. */
const extensions: Record<ExportFormat, string> = { csv: 'csv', ndjson: 'ndjson', sarif: 'sarif' };

/**
 * The format an Accept header asks for, among `allowed`: the first media range naming one
 * (text/csv, application/x-ndjson or application/sarif+json, parameters ignored, q=0 skipped);
 * undefined when it names none of them (any other range, * / *, or no header).
 */
export function formatFromAccept(
  accept: string | undefined,
  allowed: readonly ExportFormat[],
): ExportFormat | undefined {
  if (accept === undefined) return undefined;
  const ranked = accept
    .split(',')
    .map((part, index) => {
      const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      return { type, q: q === undefined ? 1 : Number(q.slice(2)), index };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { type } of ranked) {
    const format = (Object.keys(exportMediaTypes) as ExportFormat[]).find(
      (f) => exportMediaTypes[f].split(';')[0] === type,
    );
    if (format !== undefined && allowed.includes(format)) return format;
  }
  return undefined;
}

/** `Content-Disposition` of an export: an attachment named after what it holds and when (UTC). */
export function exportDisposition(what: string, format: ExportFormat, at: Date): string {
  const stamp = at.toISOString().slice(0, 19).replaceAll(':', '').replace('T', '-');
  return `attachment; filename="perimeter-${what}-${stamp}.${extensions[format]}"`;
}
