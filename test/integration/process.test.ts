import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { killNow, spawnOwned, stopChild } from '../support/child-processes.ts';
import { testStore } from '../support/harness.ts';

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts `perimeter serve` on a free port and waits until it prints where it listens; kills it if it does not. */
async function startServer(
  dataDir: string,
  hostArgs: string[] = ['--host', '127.0.0.1'],
  env: Record<string, string> = {},
): Promise<Started> {
  const child = spawnOwned(process.execPath, ['bin/perimeter.js', 'serve', '--port', '0', ...hostArgs], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PERIMETER_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  let poll: NodeJS.Timeout | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const url = await new Promise<string>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
      poll = setInterval(() => {
        const m = /perimeter listening on (http:\/\/[\d.:]+)/.exec(output);
        if (m) resolve(m[1]!);
      }, 50);
      child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
    });
    return { child, url, output: () => output };
  } catch (err) {
    await killNow(child);
    throw err;
  } finally {
    clearInterval(poll);
    clearTimeout(timer);
  }
}

const stop = (started: Started): Promise<number | null> => stopChild(started.child);

// The process test runs on the embedded store only: it is what `npm start` uses.
describe('perimeter serve (embedded store)', { skip: testStore === 'postgres' ? 'embedded store only' : false }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-process-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  let v2Key = '';

  it('prints demo keys on the first start, serves them, logs JSON with request ids and stops on SIGTERM', async () => {
    const server = await startServer(dataDir);
    const keys = /v2 API key: ([0-9a-f]{32})\n\s+v3 API key: ([0-9a-f]{32})/.exec(server.output());
    assert.ok(keys, server.output());
    v2Key = keys[1]!;
    // The first Admin's one-time link to the console, on the address it listens on.
    const link =
      /set the password of admin@example\.com \(Admin of "demo"\) at\n\s+(http:\/\/127\.0\.0\.1:\d+\/account\/link\/[\w-]{43})\n/.exec(
        server.output(),
      );
    assert.ok(link, server.output());
    const linkPage = await fetch(link[1]!);
    assert.equal(linkPage.status, 200);
    assert.match(await linkPage.text(), /Join your team[\s\S]*admin@example\.com/);
    const added = await fetch(`${server.url}/rest/v2/assets/`, {
      method: 'POST',
      headers: { 'x-service-key': v2Key, 'content-type': 'application/json', 'x-request-id': 'proc-1' },
      body: '{"name":"survivor.example"}',
    });
    assert.equal(added.status, 200);
    assert.equal(added.headers.get('x-request-id'), 'proc-1');
    assert.equal(await stop(server), 0);
    const requestLine = server
      .output()
      .split('\n')
      .find((l) => l.includes('"request_id":"proc-1"'));
    assert.ok(requestLine, 'a JSON log line carries the request id');
    assert.equal(JSON.parse(requestLine).url, '/rest/v2/assets/');
  });

  it('keeps its data across a restart and does not print keys again; listens on loopback unless told otherwise', async () => {
    const server = await startServer(dataDir, []);
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.doesNotMatch(server.output(), /API key:/);
      const res = await fetch(`${server.url}/rest/v2/assets/`, { headers: { 'x-service-key': v2Key } });
      const body = (await res.json()) as { assets: Array<{ name: string }> };
      assert.deepEqual(
        body.assets.map((a) => a.name),
        ['survivor.example'],
      );
    } finally {
      await stop(server);
    }
  });

  it('shuts down cleanly (exit 0) on a SIGTERM that arrives while it is still starting', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'perimeter-early-term-'));
    try {
      const child = spawnOwned(process.execPath, ['bin/perimeter.js', 'serve', '--port', '0', '--host', '127.0.0.1'], {
        env: { ...process.env, DATA_DIR: fresh, DATABASE_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      // The demo keys are printed after the port is bound and before the roles start.
      const seeded = new Promise<void>((resolve) =>
        child.stdout!.on('data', (d: Buffer) => {
          output += d.toString();
          if (output.includes('v3 API key:')) resolve();
        }),
      );
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      await seeded;
      assert.equal(await stopChild(child), 0, output);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('refuses an invalid configuration, naming every problem', async () => {
    const child = spawnOwned(process.execPath, ['bin/perimeter.js', 'serve'], {
      env: { ...process.env, PORT: 'eighty', PERIMETER_EGRESS_ALLOW: 'nope', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 1);
    assert.match(err, /PORT must be an integer, got "eighty"/);
    assert.match(err, /PERIMETER_EGRESS_ALLOW "nope" is not a CIDR range/);
  });
  it('keeps its files to its owner, warns of a PERIMETER_ variable nothing reads and names the egress allow-list', async () => {
    const fresh = join(mkdtempSync(join(tmpdir(), 'perimeter-modes-')), 'data');
    try {
      const server = await startServer(fresh, ['--host', '127.0.0.1'], {
        PERIMETER_EGRES_ALLOW: '127.0.0.0/8',
        PERIMETER_EGRESS_ALLOW: '127.0.0.0/8,::1/128',
      });
      try {
        const mode = (path: string) => (statSync(join(fresh, path)).mode & 0o777).toString(8);
        assert.equal(mode('.'), '700', 'the data directory');
        for (const file of ['server.key', 'perimeter.db', 'perimeter.db-wal', 'perimeter.db-shm'])
          assert.equal(mode(file), '600', file);
        const warning = server
          .output()
          .split('\n')
          .find((l) => l.includes('PERIMETER_EGRES_ALLOW'));
        assert.ok(warning, server.output());
        assert.equal(
          JSON.parse(warning).msg,
          'PERIMETER_EGRES_ALLOW is not a setting of perimeter and is ignored: did you mean PERIMETER_EGRESS_ALLOW?',
        );
        assert.match(
          server.output(),
          /perimeter listening on http:\/\/127\.0\.0\.1:\d+ \(.*egress allowed: 127\.0\.0\.0\/8,::1\/128\)/,
        );
      } finally {
        await stop(server);
      }
      const again = await startServer(fresh);
      try {
        assert.match(again.output(), /egress allowed: none \(every special-purpose range denied\)/);
        assert.doesNotMatch(again.output(), /is not a setting of perimeter/);
      } finally {
        await stop(again);
      }
    } finally {
      rmSync(dirname(fresh), { recursive: true, force: true });
    }
  });
});
