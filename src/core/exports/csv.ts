/**
 * CSV as RFC 4180 writes it (comma-separated, CRLF line ends, a field quoted when it holds a
 * comma, a double quote, CR or LF, a quote doubled inside), with a guard against formula
 * injection: a text cell starting with =, +, -, @ (or a tab or CR, which some spreadsheets strip
 * before reading a formula) gets a single quote in front, so a spreadsheet shows it as text and
 * never runs it (OWASP "CSV Injection").
 */

/** Whether a spreadsheet reads the text as a formula: it starts with =, +, -, @, a tab or CR. */
function isFormulaLike(text: string): boolean {
  const c = text.charCodeAt(0);
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13;
}

/** Characters that make a field quoted. */
const needsQuotes = /[",\r\n]/;

/** One cell: null and undefined are empty; numbers and booleans as written; text guarded and quoted. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === '') return text;
  if (isFormulaLike(text)) text = `'${text}`;
  return needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvRow(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : ',') + csvCell(values[i]);
  return `${line}\r\n`;
}
