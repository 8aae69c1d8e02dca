import type { ServiceGuess } from '../../core/surface/exposure-engines.ts';

/**
 * Reading what a service sent: the greeting it offers unasked (ssh, ftp, smtp, pop3, imap, the
 * MySQL handshake, vnc, telnet …) or its answer to one of our probes (HTTP, redis PING,
 * PostgreSQL SSLRequest). Pure functions over bytes, so each rule is tested alone.
 */

const BANNER_LIMIT = 200;

/** The bytes as printable text: `\r`, `\n`, `\t` escaped, other non-printable bytes as `\xNN`; at most 200 characters. */
export function printableBanner(data: Buffer): string {
  let out = '';
  for (let i = 0; i < data.length && out.length < BANNER_LIMIT; i += 1) {
    const byte = data[i] as number;
    if (byte >= 0x20 && byte <= 0x7e) out += String.fromCharCode(byte);
    else if (byte === 0x0d) out += '\\r';
    else if (byte === 0x0a) out += '\\n';
    else if (byte === 0x09) out += '\\t';
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out.slice(0, BANNER_LIMIT);
}

/** A product and version written `Name/1.2.3`, `Name_1.2`, `Name 1.2.3` or `Name-1.2`. */
const PRODUCT_VERSION = /([A-Za-z][A-Za-z0-9+.-]*?)[/_ -]v?(\d+(?:\.\d+)+[A-Za-z0-9.+~-]*)/;

function productOf(text: string, pattern: RegExp = PRODUCT_VERSION): Pick<ServiceGuess, 'product' | 'version'> {
  const match = pattern.exec(text);
  if (match === null) return {};
  return { product: match[1], version: match[2] };
}

type Guess = Pick<ServiceGuess, 'name' | 'product' | 'version'>;

/** Known products named in greetings without a version (`ESMTP Postfix`). */
const KNOWN_PRODUCTS = [
  'Postfix',
  'Exim',
  'Sendmail',
  'Dovecot',
  'Courier',
  'Cyrus',
  'vsFTPd',
  'ProFTPD',
  'Pure-FTPd',
  'FileZilla',
  'Microsoft',
  'OpenSMTPD',
  'Exchange',
];

function productNamed(text: string): Pick<ServiceGuess, 'product' | 'version'> {
  const versioned = productOf(text);
  if (
    versioned.product !== undefined &&
    KNOWN_PRODUCTS.some((p) => p.toLowerCase() === versioned.product?.toLowerCase())
  )
    return versioned;
  const named = KNOWN_PRODUCTS.find((p) => new RegExp(`\\b${p.replace(/[.+-]/g, '\\$&')}\\b`, 'i').test(text));
  if (named === undefined) return versioned;
  const after = new RegExp(`\\b${named.replace(/[.+-]/g, '\\$&')}[ /_-]v?(\\d+(?:\\.\\d+)+[A-Za-z0-9.+~-]*)`, 'i').exec(
    text,
  );
  return after === null ? { product: named } : { product: named, version: after[1] };
}

/** The MySQL / MariaDB initial handshake: a packet (3-byte length, sequence 0), protocol 10, a NUL-ended server version. */
function mysqlGreeting(data: Buffer): Guess | undefined {
  if (data.length < 6 || data[3] !== 0 || data[4] !== 0x0a) return undefined;
  const length = data.readUIntLE(0, 3);
  const end = data.indexOf(0, 5);
  if (length < 10 || end < 6) return undefined;
  const version = data.subarray(5, end).toString('latin1');
  if (!/^\d+\.\d+/.test(version)) return undefined;
  const isMaria = /mariadb/i.test(version);
  return {
    name: 'mysql',
    product: isMaria ? 'MariaDB' : 'MySQL',
    version: isMaria ? version.replace(/^5\.5\.5-/, '').split('-')[0] : version.split('-')[0],
  };
}

const FTP_PORTS = new Set([21, 990, 2121]);

/** What a greeting (bytes the service sent before we said anything) shows; undefined when it is not one we know. */
export function classifyGreeting(data: Buffer, port: number): Guess | undefined {
  const mysql = mysqlGreeting(data);
  if (mysql !== undefined) return mysql;
  const text = data.toString('latin1');
  if (text.startsWith('SSH-')) {
    // SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.1
    const software = /^SSH-[\d.]+-(\S+)/.exec(text)?.[1] ?? '';
    const parts = /^([A-Za-z][A-Za-z0-9.+-]*?)[_-](\d[\w.+-]*)$/.exec(software);
    return parts === null
      ? { name: 'ssh', ...(software !== '' ? { product: software } : {}) }
      : { name: 'ssh', product: parts[1], version: parts[2] };
  }
  if (/^220[ -]/.test(text)) {
    // `220` opens both FTP and SMTP: the words of the greeting decide, then the port.
    const withoutSmtp = text.replace(/E?SMTP/gi, '');
    const name = /FTP/i.test(withoutSmtp)
      ? 'ftp'
      : /E?SMTP|Postfix|Exim|Sendmail|\bmail\b/i.test(text)
        ? 'smtp'
        : FTP_PORTS.has(port)
          ? 'ftp'
          : 'smtp';
    return { name, ...productNamed(text) };
  }
  if (text.startsWith('+OK')) return { name: 'pop3', ...productNamed(text) };
  if (/^\* (OK|PREAUTH)/.test(text)) return { name: 'imap', ...productNamed(text) };
  if (/^RFB \d{3}\.\d{3}/.test(text)) return { name: 'vnc', version: text.slice(4, 11) };
  if (text.startsWith('@RSYNCD:')) return { name: 'rsync', version: /^@RSYNCD: ([\d.]+)/.exec(text)?.[1] };
  if (data[0] === 0xff && data.length >= 2 && data[1] !== undefined && data[1] >= 0xfb && data[1] <= 0xfe)
    return { name: 'telnet' };
  if (/^-(ERR|NOAUTH|DENIED)\b/.test(text) || text.startsWith('+PONG')) return { name: 'redis' };
  if (text.startsWith('HTTP/')) return classifyHttp(data);
  if (text.startsWith('AMQP')) return { name: 'amqp' };
  return undefined;
}

/** A status line and headers: `http` with the Server header's product and version. */
export function classifyHttp(data: Buffer): Guess | undefined {
  const text = data.toString('latin1');
  if (!/^HTTP\/\d(\.\d)? \d{3}/.test(text)) return undefined;
  const server = /\r?\nServer:[ \t]*([^\r\n]*)/i.exec(text)?.[1]?.trim();
  if (server === undefined || server === '') return { name: 'http' };
  const versioned = productOf(server);
  return versioned.product !== undefined && server.startsWith(versioned.product)
    ? { name: 'http', ...versioned }
    : { name: 'http', product: server.split(/[ /]/)[0] };
}

/** The answer to a redis PING (`+PONG`, or an error when a password is needed). */
export function classifyRedisReply(data: Buffer): Guess | undefined {
  const text = data.toString('latin1');
  return text.startsWith('+PONG') || /^-(NOAUTH|ERR|DENIED|WRONGPASS)\b/.test(text) ? { name: 'redis' } : undefined;
}

/** The answer to a PostgreSQL SSLRequest: a single `S` (TLS offered) or `N` (not offered). */
export function classifyPostgresReply(data: Buffer): Guess | undefined {
  return data.length === 1 && (data[0] === 0x53 || data[0] === 0x4e) ? { name: 'postgresql' } : undefined;
}
