import { isIP } from 'node:net';

const labelPattern = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)$/;

/** A zone name: `.` for the root, else labels of letters, digits, `-` and `_`, with or without the final dot. */
export function parseZoneName(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim().toLowerCase();
  if (text === '.' || text === '') return text === '.' ? '.' : undefined;
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length > 253 || isIP(name) !== 0) return undefined;
  return name.split('.').every((l) => labelPattern.test(l)) ? name : undefined;
}
