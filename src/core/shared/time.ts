import { appError } from '../errors/app-error.ts';

const isoUtc = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;
const isoOffset = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([+-])(\d{2}):?(\d{2})$/;
const unix = /^-?\d{1,12}(\.\d+)?$/;

/**
 * Parses a time parameter in one of the three forms the spec accepts: YYYY-MM-DDTHH:mm:ssZ,
 * YYYY-MM-DDTHH:mm:ss±hhmm (a `+` decoded from the query string as a space is taken back), or
 * Unix seconds. Anything else is error 1085 naming the parameter.
 */
export function parseTimeParameter(name: string, raw: string): Date {
  const text = raw.trim().replace(/^(\S+T\d{2}:\d{2}:\d{2}(?:\.\d+)?) (\d{2}:?\d{2})$/, '$1+$2');
  let ms: number | undefined;
  if (unix.test(text)) ms = Math.round(Number(text) * 1000);
  else {
    const m = isoUtc.exec(text) ?? isoOffset.exec(text);
    if (m !== null && isValidCalendar(m)) {
      const zone = m[8] === undefined ? 'Z' : `${m[8]}${m[9]}:${m[10]}`;
      const normalized = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ?? ''}${zone}`;
      ms = Date.parse(normalized);
    }
  }
  if (ms === undefined || !Number.isFinite(ms)) {
    throw appError(
      1085,
      `${name} must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "${raw}"`,
      [name],
    );
  }
  return new Date(ms);
}

function isValidCalendar(m: RegExpExecArray): boolean {
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d >= 1 && d <= days;
}

const wireTimes = new Map<number, string>();

/**
 * Formats a time as ISO 8601 UTC without fractional seconds (YYYY-MM-DDTHH:mm:ssZ). Formatting
 * is memoised per second: list pages format hundreds of times, most of them repeated.
 */
export function toWireTime(time: Date | number): string {
  const second = Math.floor((typeof time === 'number' ? time : time.getTime()) / 1000);
  let text = wireTimes.get(second);
  if (text === undefined) {
    text = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
    if (wireTimes.size >= 100_000) wireTimes.clear();
    wireTimes.set(second, text);
  }
  return text;
}
