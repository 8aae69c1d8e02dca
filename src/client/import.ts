import { readFile } from 'node:fs/promises';
import { expectPositionals, oneOf, parseArgs } from './args.ts';
import { apiOf, note, print, type Io } from './context.ts';
import { ExitError, UsageError, exitCodes } from './errors.ts';
import { help } from './help.ts';

interface ImportJob {
  id: string;
  format: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  progress: number;
  counts?: Record<string, number>;
  error: { message: string; line: number | null } | null;
}

/** `perimeter import nuclei|zap|sarif|nmap FILE [--wait]`. */
export async function importFile(argv: string[], io: Io): Promise<number> {
  const usage = help.import;
  const args = parseArgs(argv, { switches: ['wait'], values: ['interval'] }, usage);
  const [formatWord, file] = expectPositionals(args, ['FORMAT (nuclei, zap, sarif or nmap)', 'FILE'], usage);
  const format = oneOf(formatWord!, ['nuclei', 'zap', 'sarif', 'nmap'] as const, 'the format', usage);
  const intervalMs = Math.round(Number(args.values['interval'] ?? 1) * 1000);
  if (!(intervalMs > 0)) throw new UsageError(`--interval takes a number of seconds\n${usage}`);
  let body: Buffer;
  try {
    body = await readFile(file!);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const api = apiOf(args, io);
  let job = await api.v3<ImportJob>('POST', '/imports', { query: { format }, body });
  if (!args.switches.has('wait')) {
    print(io, `import ${job.id} ${job.status} (perimeter import --wait follows it; GET /rest/v3/imports/${job.id})`);
    return 0;
  }
  let last = '';
  while (job.status === 'queued' || job.status === 'running') {
    const line = `${job.status} ${job.progress}%`;
    if (line !== last) note(io, line);
    last = line;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    job = await api.v3<ImportJob>('GET', `/imports/${encodeURIComponent(job.id)}`);
  }
  if (job.status === 'failed') {
    const where = job.error?.line === null || job.error?.line === undefined ? '' : ` (line ${job.error.line})`;
    throw new ExitError(
      `import ${job.id} failed: ${job.error?.message ?? 'no reason given'}${where}`,
      exitCodes.incomplete,
    );
  }
  const counts = Object.entries(job.counts ?? {})
    .map(([name, value]) => `${name.replace(/_/g, ' ')} ${value}`)
    .join(', ');
  print(io, `import ${job.id} done: ${counts}`);
  return 0;
}
