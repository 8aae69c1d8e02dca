import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

/** True while the process runs (a zombie, dead and not yet reaped by init, counts as ended). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** True once the process has ended, waiting up to 2 s for a kill just sent to take effect. */
async function hasEnded(pid: number): Promise<boolean> {
  for (let i = 0; i < 40 && isRunning(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !isRunning(pid);
}

/** Runs `scripts/run-tests.js` on one file; gives up (and fails) after a minute. */
function runSuite(file: string, ...args: string[]): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  // NODE_TEST_CONTEXT tells node a run is nested in a test file (it then runs nothing): this one is not.
  const { NODE_TEST_CONTEXT: _nested, ...env } = process.env;
  const child = spawn(process.execPath, ['scripts/run-tests.js', ...args, file], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, output, ms: Date.now() - started });
    }),
  );
}

/** The runner of `npm test` on test files that misbehave: none of them can keep the suite open. */
describe('the test runner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-runner-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A test file that starts a long-lived child (its pid written to pidFile) and then `body`. */
  const fixture = (name: string, body: string) => {
    const file = join(dir, name);
    const pidFile = join(dir, `${name}.pid`);
    writeFileSync(
      file,
      `import { it } from 'node:test';\nimport { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\n` +
        `it('${name}', async () => {\n  const child = spawn('sleep', ['300'], { stdio: 'ignore' });\n  writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));\n  ${body}\n});\n`,
    );
    return { file, pid: () => Number(readFileSync(pidFile, 'utf8')) };
  };

  it('fails a file that outlives its time limit, stops it, and kills what it started', async () => {
    const hang = fixture('hangs.test.ts', 'await new Promise(() => setInterval(() => undefined, 1000));');
    const res = await runSuite(hang.file, '--file-timeout=3000');
    assert.notEqual(res.code, 0, res.output);
    assert.match(res.output, /timed out after 3000ms/);
    assert.ok(res.ms < 30_000, `the run ended after ${res.ms} ms`);
    assert.ok(await hasEnded(hang.pid()), 'the child the file started was killed');
  });

  it('fails a file whose tests passed but whose leaked timer keeps it open, and kills the child it left', async () => {
    const leak = fixture('leaks.test.ts', 'setInterval(() => undefined, 1000);');
    const res = await runSuite(leak.file, '--file-timeout=3000');
    assert.notEqual(res.code, 0, res.output);
    assert.match(res.output, /timed out after 3000ms/);
    assert.ok(res.ms < 30_000, `the run ended after ${res.ms} ms`);
    assert.ok(await hasEnded(leak.pid()), 'the child the file left was killed');
  });

  it('passes a file whose tests passed and that ends', async () => {
    const clean = join(dir, 'clean.test.ts');
    writeFileSync(
      clean,
      "import { it } from 'node:test';\nit('adds', () => { if (1 + 1 !== 2) throw new Error('no'); });\n",
    );
    const res = await runSuite(clean);
    assert.equal(res.code, 0, res.output);
    assert.match(res.output, /ℹ pass 1\n/);
  });

  it('refuses a time limit that is not a number of milliseconds', async () => {
    const res = await runSuite(join(dir, 'none.test.ts'), '--file-timeout=soon');
    assert.equal(res.code, 2);
    assert.match(res.output, /--file-timeout takes a number of milliseconds/);
  });
});
