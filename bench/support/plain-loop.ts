import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import type { Scope } from './scope.ts';

/** One pass of the plain loop over a list of URLs. */
export interface LoopRun {
  durationMs: number;
  requests: number;
  bytes: number;
  requestsPerSecond: number;
}

/**
 * GET every URL once, `concurrency` in flight over one keep-alive undici agent, each body read
 * fully: the floor of "Node fetching these pages" for a crawler with that concurrency.
 */
export async function plainLoop(urls: string[], concurrency: number, headers: Record<string, string>): Promise<LoopRun> {
  const agent = new Agent({ keepAliveTimeout: 2000 });
  let next = 0;
  let bytes = 0;
  const startedAt = performance.now();
  const worker = async (): Promise<void> => {
    while (next < urls.length) {
      const url = urls[next++]!;
      const response = await request(url, { dispatcher: agent, method: 'GET', headers });
      bytes += (await response.body.arrayBuffer()).byteLength;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
  } finally {
    await agent.close();
  }
  const durationMs = performance.now() - startedAt;
  return { durationMs, requests: urls.length, bytes, requestsPerSecond: urls.length / (durationMs / 1000) };
}

interface ChildInput {
  urls: string[];
  concurrency: number;
  headers: Record<string, string>;
}

/**
 * The same loop in a child process (`node --import tsx` on this file), timed inside the child,
 * so that, like a scan's worker, it runs on its own core apart from the target site.
 */
export async function plainLoopInChild(scope: Scope, dir: string, input: ChildInput): Promise<LoopRun> {
  const inputPath = join(dir, `loop-${process.hrtime.bigint()}.json`);
  writeFileSync(inputPath, JSON.stringify(input));
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), inputPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  scope.defer(`stop plain loop child (pid ${child.pid})`, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) throw new Error(`the plain loop child exited with ${code}: ${stderr.trim()}`);
  return JSON.parse(stdout.trim().split('\n').pop()!) as LoopRun;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ChildInput;
  // One unmeasured pass over a few URLs loads undici and warms the JIT, as a scan's worker is warm.
  await plainLoop(input.urls.slice(0, 20), input.concurrency, input.headers);
  console.log(JSON.stringify(await plainLoop(input.urls, input.concurrency, input.headers)));
}
