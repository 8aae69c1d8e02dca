/**
 * The realistic application's emulations of what a vulnerable server would really run: a shell
 * (never a real one), JavaScript's `eval` of an expression (never the real one), PHP's `echo`
 * of a product in an uploaded script, and a small read-only file system for file inclusion.
 * Each answers as the real thing would for the inputs scanners send, and nothing runs.
 */
import { posix } from 'node:path';

/** The answer of the emulated shell: what it printed and how long it slept. */
export interface ShellOutcome {
  output: string;
  sleepSeconds: number;
}

const PASSWD = `root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
bin:x:2:2:bin:/bin:/usr/sbin/nologin
sys:x:3:3:sys:/dev:/usr/sbin/nologin
www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin
mysql:x:101:102:MariaDB Server,,,:/nonexistent:/bin/false
`;

const HOSTS = `127.0.0.1\tlocalhost
::1\tlocalhost ip6-localhost ip6-loopback
172.17.0.2\tdvwa
`;

const ENVIRONMENT = `APACHE_RUN_DIR=/var/run/apache2
APACHE_PID_FILE=/var/run/apache2/apache2.pid
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
APACHE_LOCK_DIR=/var/lock/apache2
LANG=C
APACHE_RUN_USER=www-data
APACHE_RUN_GROUP=www-data
APACHE_LOG_DIR=/var/log/apache2
PWD=/var/www/html/vulnerabilities/exec
`;

/** The emulated server's files, by absolute path (for the file inclusion page and `cat`). */
export const serverFiles: Readonly<Record<string, string>> = Object.freeze({
  '/etc/passwd': PASSWD,
  '/etc/hosts': HOSTS,
  '/etc/hostname': 'dvwa\n',
  '/proc/self/environ': ENVIRONMENT.replace(/\n/g, '\0'),
  '/var/www/html/vulnerabilities/fi/include.php':
    '<p>[*] File inclusion: the page shows the file named by <code>page</code>.</p>',
  '/var/www/html/vulnerabilities/fi/file1.php':
    '<p><b>File 1</b><br>Hello <i>gordonb</i><br>Your IP address is 127.0.0.1</p>',
  '/var/www/html/vulnerabilities/fi/file2.php':
    '<p><b>File 2</b><br>"<i>I needed a password eight characters long so I picked Snow White and the Seven Dwarves.</i>" ~ Nick Helm</p>',
  '/var/www/html/vulnerabilities/fi/file3.php': '<p><b>File 3</b><br>Welcome back <i>gordonb</i></p>',
});

/** Reads a file of the emulated server the way PHP's include does (a NUL ends the path, as in old PHP). */
export function readServerFile(base: string, name: string): string | undefined {
  const cut = name.split('\0')[0]!;
  const absolute = cut.startsWith('/') ? posix.normalize(cut) : posix.resolve(base, cut);
  const windows = cut.replace(/\\/g, '/').toLowerCase();
  if (/(^|\/)windows\/win\.ini$/.test(windows) && /^(c:|(\.\.\/)+)/.test(windows))
    return '; for 16-bit app support\r\n[fonts]\r\n[extensions]\r\n[mci extensions]\r\n[files]\r\n[Mail]\r\nMAPI=1\r\n';
  return serverFiles[absolute];
}

/** Splits a command line on the separators a POSIX shell honours: ; | || && & and newlines. */
function splitCommands(line: string): string[] {
  return line.split(/\|\||&&|[;|&\n]/).map((c) => c.trim());
}

/** `$((…))` with integers and + - * / % only, as the shell computes it. */
function expandArithmetic(text: string): string {
  return text.replace(/\$\(\(([\d\s+\-*/%]+)\)\)/g, (whole, expression: string) => {
    const value = evaluateExpression(expression);
    return typeof value === 'number' && Number.isFinite(value) ? String(Math.trunc(value)) : whole;
  });
}

/** Runs one emulated command (no separators left), returning what it prints. */
function runCommand(command: string, outcome: ShellOutcome, depth: number): string {
  // Command substitution first, innermost by the regular expressions' non-greedy match.
  const expanded = expandArithmetic(command);
  const substituted =
    depth > 3
      ? expanded
      : expanded
          .replace(/\$\(([^()]*)\)/g, (_w, inner: string) => runLine(inner, outcome, depth + 1).trim())
          .replace(/`([^`]*)`/g, (_w, inner: string) => runLine(inner, outcome, depth + 1).trim());
  const words = substituted
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  const [name = '', ...args] = words;
  const program = posix.basename(name);
  switch (program) {
    case '':
      return '';
    case 'ping': {
      const host = args.filter((a) => !a.startsWith('-') && !/^\d+$/.test(a)).pop() ?? args[args.length - 1] ?? '';
      if (!/^[\w.-]+$/.test(host)) return 'ping: usage error: Destination address required\n';
      if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(host) && host !== 'localhost')
        return `ping: ${host}: Temporary failure in name resolution\n`;
      return `PING ${host} (${host}) 56(84) bytes of data.\n64 bytes from ${host}: icmp_seq=1 ttl=64 time=0.041 ms\n64 bytes from ${host}: icmp_seq=2 ttl=64 time=0.052 ms\n64 bytes from ${host}: icmp_seq=3 ttl=64 time=0.049 ms\n64 bytes from ${host}: icmp_seq=4 ttl=64 time=0.047 ms\n\n--- ${host} ping statistics ---\n4 packets transmitted, 4 received, 0% packet loss, time 3061ms\n`;
    }
    case 'sleep': {
      const seconds = Number(args[0]);
      if (Number.isFinite(seconds) && seconds > 0) outcome.sleepSeconds += Math.min(seconds, 30);
      return '';
    }
    case 'id':
      return 'uid=33(www-data) gid=33(www-data) groups=33(www-data)\n';
    case 'whoami':
      return 'www-data\n';
    case 'uname':
      return args.includes('-a') ? 'Linux dvwa 6.1.0-13-amd64 #1 SMP Debian 6.1.55-1 x86_64 GNU/Linux\n' : 'Linux\n';
    case 'hostname':
      return 'dvwa\n';
    case 'pwd':
      return '/var/www/html/vulnerabilities/exec\n';
    case 'env':
    case 'set':
    case 'printenv':
      return ENVIRONMENT;
    case 'echo':
      return `${args.join(' ').replace(/^(['"])(.*)\1$/, '$2')}\n`;
    case 'cat':
      return args
        .map(
          (a) =>
            serverFiles[posix.resolve('/var/www/html/vulnerabilities/exec', a)] ??
            `cat: ${a}: No such file or directory\n`,
        )
        .join('');
    case 'ls':
      return 'help\nindex.php\nsource\n';
    default:
      return `sh: 1: ${program}: not found\n`;
  }
}

function runLine(line: string, outcome: ShellOutcome, depth: number): string {
  return splitCommands(line)
    .map((command) => runCommand(command, outcome, depth))
    .join('');
}

/** Runs `line` as /bin/sh -c would, emulated: nothing real is executed, `sleep` only adds to the delay. */
export function emulateShell(line: string): ShellOutcome {
  const outcome: ShellOutcome = { output: '', sleepSeconds: 0 };
  outcome.output = runLine(line, outcome, 0);
  return outcome;
}

type Value = number | string;

/** A tiny recursive-descent evaluator of JavaScript expressions: numbers, strings, + - * / %, parentheses. */
class ExpressionParser {
  private at = 0;
  constructor(private readonly text: string) {}

  parse(): Value {
    const value = this.additive();
    this.skipSpace();
    if (this.at < this.text.length) throw this.unexpected();
    return value;
  }

  private skipSpace(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }

  private unexpected(): Error {
    const rest = this.text.slice(this.at);
    const identifier = /^[A-Za-z_$][\w$]*/.exec(rest);
    if (identifier !== null) return new Error(`ReferenceError: ${identifier[0]} is not defined`);
    return new Error(
      rest === '' ? 'SyntaxError: Unexpected end of input' : `SyntaxError: Unexpected token '${rest[0]}'`,
    );
  }

  private additive(): Value {
    let left = this.multiplicative();
    for (;;) {
      this.skipSpace();
      const op = this.text[this.at];
      if (op !== '+' && op !== '-') return left;
      this.at++;
      const right = this.multiplicative();
      if (op === '+') left = typeof left === 'string' || typeof right === 'string' ? `${left}${right}` : left + right;
      else left = Number(left) - Number(right);
    }
  }

  private multiplicative(): Value {
    let left = this.unary();
    for (;;) {
      this.skipSpace();
      const op = this.text[this.at];
      if (op !== '*' && op !== '/' && op !== '%') return left;
      this.at++;
      const right = Number(this.unary());
      const l = Number(left);
      left = op === '*' ? l * right : op === '/' ? l / right : l % right;
    }
  }

  private unary(): Value {
    this.skipSpace();
    if (this.text[this.at] === '-') {
      this.at++;
      return -Number(this.unary());
    }
    if (this.text[this.at] === '+') {
      this.at++;
      return Number(this.unary());
    }
    return this.primary();
  }

  private primary(): Value {
    this.skipSpace();
    const rest = this.text.slice(this.at);
    const number = /^\d+(\.\d+)?/.exec(rest);
    if (number !== null) {
      this.at += number[0].length;
      return Number(number[0]);
    }
    const string = /^'([^'\\]*)'|^"([^"\\]*)"/.exec(rest);
    if (string !== null) {
      this.at += string[0].length;
      return string[1] ?? string[2] ?? '';
    }
    if (rest.startsWith('(')) {
      this.at++;
      const value = this.additive();
      this.skipSpace();
      if (this.text[this.at] !== ')') throw this.unexpected();
      this.at++;
      return value;
    }
    throw this.unexpected();
  }
}

/** Evaluates an expression as JavaScript's eval would for this subset; an Error (as Node names it) otherwise. */
export function evaluateExpression(text: string): Value | Error {
  try {
    return new ExpressionParser(text).parse();
  } catch (err) {
    return err as Error;
  }
}

/** PHP's output of an uploaded script, emulated: text outside `<?php … ?>` as is, `echo A*B;` computed, other code prints nothing. */
export function emulatePhp(source: string): string {
  return source.replace(/<\?php([\s\S]*?)(\?>|$)/g, (_whole, code: string) => {
    const echo = /^\s*echo\s+(\d+)\s*\*\s*(\d+)\s*;?\s*$/.exec(code);
    return echo === null ? '' : String(BigInt(echo[1]!) * BigInt(echo[2]!));
  });
}
