import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';

/** The real lookup tools the lookup benchmark runs next to ours. */

/** Names of a list file, one per line, streamed in large chunks (no readline: it costs more than the lookups). */
export async function* readNames(path: string): AsyncGenerator<string> {
  let carry = '';
  for await (const chunk of createReadStream(path, { encoding: 'latin1', highWaterMark: 1 << 16 })) {
    const text = carry + (chunk as string);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      if (end > start) yield text.slice(start, end);
      start = end + 1;
    }
    carry = text.slice(start);
  }
  if (carry.length > 0) yield carry;
}

/** One dnsperf run: queries per second as it reports them. */
export interface DnsperfResult {
  args: string;
  queriesPerSecond: number;
  completed: number;
  sent: number;
}

/** Writes dnsperf's input: every name asked for A and for AAAA, as our job and adnshost ask. */
export function writeDnsperfInput(namesPath: string, outPath: string): number {
  const names = readFileSync(namesPath, 'latin1')
    .split('\n')
    .filter((name) => name !== '');
  writeFileSync(outPath, names.map((name) => `${name} A\n${name} AAAA\n`).join(''));
  return names.length * 2;
}

/** Runs dnsperf once over the input (one pass); returns what it measured. */
export function runDnsperf(dnsperf: string, input: string, port: number, extra: string[]): DnsperfResult {
  const args = ['-s', '127.0.0.1', '-p', String(port), '-d', input, '-n', '1', '-t', '2', ...extra];
  const result = spawnSync(dnsperf, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (result.status !== 0) throw new Error(`dnsperf failed:\n${result.stderr}${result.stdout}`);
  const number = (label: string) => Number(new RegExp(`${label}:\\s+([\\d.]+)`).exec(result.stdout)?.[1] ?? NaN);
  return {
    args: extra.join(' '),
    queriesPerSecond: number('Queries per second'),
    completed: number('Queries completed'),
    sent: number('Queries sent'),
  };
}

/** One adnshost run over a list: names per second and how the lookups ended. */
export interface AdnshostResult {
  chunk: number;
  parallel: number;
  ms: number;
  namesPerSecond: number;
  statuses: Record<string, number>;
}

/** The kernel's default socket buffer sizes (what a program gets without asking), in bytes. */
const socketDefaults = ['/proc/sys/net/core/rmem_default', '/proc/sys/net/core/wmem_default'];

/**
 * Runs `work` with the kernel's default socket buffers set to `bytes` (needs root; answers
 * false and leaves them when they cannot be set), restoring them afterwards. adns has no
 * setting of its own: this gives it the receive buffer the bulk resolver asks for.
 */
export async function withDefaultSocketBuffers<T>(bytes: number, work: (isSet: boolean) => Promise<T>): Promise<T> {
  let saved: string[] | undefined;
  try {
    saved = socketDefaults.map((path) => readFileSync(path, 'utf8').trim());
    for (const path of socketDefaults) writeFileSync(path, String(bytes));
  } catch {
    saved = undefined;
  }
  try {
    return await work(saved !== undefined);
  } finally {
    if (saved !== undefined) socketDefaults.forEach((path, i) => writeFileSync(path, saved![i]!));
  }
}

/**
 * One long-lived adnshost reading the names from its standard input (`-a -f`, asynchronous
 * pipe mode; its default query type `a` asks A and AAAA), fed so that at most `window` names
 * are outstanding, the bound the bulk resolver keeps (adns itself sends whatever it reads, and
 * a whole list at once overflows any socket buffer). Timed from its start to the last answer.
 * adns cannot use another port than 53, so the server must listen on 127.0.0.1:53.
 */
export async function runAdnshostStream(
  adnshost: string,
  namesPath: string,
  window: number,
  timeoutMs: number,
): Promise<AdnshostResult & { window: number; isComplete: boolean }> {
  const names = readFileSync(namesPath, 'latin1')
    .split('\n')
    .filter((name) => name !== '');
  const statuses: Record<string, number> = {};
  const startedAt = performance.now();
  const child = spawn(adnshost, ['--config', 'nameserver 127.0.0.1', '-a', '-f'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let sent = 0;
  let answered = 0;
  const feed = () => {
    const until = Math.min(names.length, answered + window);
    if (until > sent) {
      child.stdin.write(`${names.slice(sent, until).join('\n')}\n`);
      sent = until;
    }
    if (sent === names.length && answered === names.length) child.stdin.end();
  };
  let carry = '';
  child.stdout.setEncoding('latin1');
  child.stdout.on('data', (data: string) => {
    const lines = (carry + data).split('\n');
    carry = lines.pop() ?? '';
    for (const line of lines) {
      // Answer headers in --fmt-asynch: `<id> <nrrs> <status> <code> <status-abbrev> <owner> …`
      const match = /^\d+ \d+ (\S+) /.exec(line);
      if (match === null) continue;
      statuses[match[1] as string] = (statuses[match[1] as string] ?? 0) + 1;
      answered++;
    }
    feed();
  });
  child.stdin.on('error', () => undefined);
  let isComplete = true;
  const timer = setTimeout(() => {
    isComplete = false;
    child.kill('SIGKILL');
  }, timeoutMs);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  feed();
  await exited;
  clearTimeout(timer);
  const ms = performance.now() - startedAt;
  return { chunk: 0, parallel: 1, window, ms, namesPerSecond: (answered / ms) * 1000, statuses, isComplete };
}
