import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * Child processes of a test file (servers, workers, tools) are killed on every path out of it:
 * when the file's tests end (`exit`, which `--test-force-exit` reaches too), when the test runner
 * stops the file at its time limit (SIGTERM) or on ^C (SIGINT), and when a start-up wait gives
 * up. A child left running would keep its ports, and its pipes could keep the runner waiting.
 */
const running = new Set<ChildProcess>();

function killAllNow(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  running.clear();
}

let isInstalled = false;
function installHandlers(): void {
  if (isInstalled) return;
  isInstalled = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      killAllNow();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
    });
  }
}

/** `spawn`, with the child killed whenever this process ends (see above). */
export function spawnOwned(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  installHandlers();
  const child = spawn(command, args, options);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Kills a child at once (SIGKILL) unless it already ended, and waits until it has. */
export async function killNow(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Sends `signal` and waits for the exit code; a child still running after `graceMs` is killed
 * (SIGKILL), so a shutdown that hangs fails its test instead of holding the suite open.
 */
export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 15_000,
): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
