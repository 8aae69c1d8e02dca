// Requests no operation can read, answered through the catalogue: a body over the limit of its
// operation (JSON, zone file and zone lookup uploads; announced or chunked) answers 413 with 1052
// and closes cleanly, leaves nothing behind, and a client hanging up mid-upload is logged at info.
// The shared server and assertions are in test/support/protocol-errors-fixture.ts.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { testStore, v2Error, type Harness } from '../support/harness.ts';
import { assertCleanClose, ProtocolFixture } from '../support/protocol-errors-fixture.ts';
import { sendOversizedBody } from '../support/raw-http.ts';

describe(`requests no operation can read answer through the catalogue: bodies over the limit (${testStore})`, () => {
  const fx = new ProtocolFixture();
  let h: Harness;
  let key: string;
  let served: ProtocolFixture['served'];

  before(async () => {
    await fx.open();
    ({ h, key, served } = fx);
  });
  after(() => fx.close());

  describe('a body over the limit: 413 with 1052, then a clean close', () => {
    const head = (path: string, framing: string) =>
      `POST ${path} HTTP/1.1\r\nHost: perimeter.test\r\nX-Service-Key: ${key}\r\nContent-Type: text/plain\r\n${framing}\r\n`;
    const cases = [
      {
        name: 'a JSON operation (1 MB), Content-Length announced',
        path: '/rest/v2/assets/',
        total: 3_000_000,
        isChunked: false,
        limit: undefined,
      },
      {
        name: 'a JSON operation (1 MB), chunked',
        path: '/rest/v2/assets/',
        total: 3_000_000,
        isChunked: true,
        limit: undefined,
      },
      {
        name: 'the zone file upload (5 MB), Content-Length announced',
        path: '/rest/v2/zone/file/?origin=example.test',
        total: 6_000_000,
        isChunked: false,
        limit: 5 * 1024 * 1024,
      },
      {
        name: 'the zone file upload (5 MB), chunked',
        path: '/rest/v2/zone/file/?origin=example.test',
        total: 6_000_000,
        isChunked: true,
        limit: 5 * 1024 * 1024,
      },
      {
        name: 'the zone lookup upload (50 MB), Content-Length announced',
        path: '/rest/v2/zone/lookup/file/',
        total: 53_000_000,
        isChunked: false,
        limit: 50 * 1024 * 1024,
      },
      {
        name: 'the zone lookup upload (50 MB), chunked',
        path: '/rest/v2/zone/lookup/file/',
        total: 53_000_000,
        isChunked: true,
        limit: 50 * 1024 * 1024,
      },
    ];
    for (const c of cases) {
      it(`${c.name}: the client still sending reads the whole answer`, async () => {
        const res = await sendOversizedBody(
          served.port,
          head(c.path, c.isChunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${c.total}\r\n`),
          c.total,
          { isChunked: c.isChunked },
        );
        assert.equal(res.status, 413, res.raw.slice(0, 300));
        const message =
          c.limit === undefined
            ? 'Request body too large for this operation'
            : `Request body too large for this operation (at most ${c.limit} bytes)`;
        assert.deepEqual(JSON.parse(res.body), v2Error(1052, message));
        assertCleanClose(res);
      });
    }

    it('left nothing behind: no lookup job, no zone asset', async () => {
      assert.deepEqual((await h.send('GET', '/rest/v2/assets/', { key })).json(), {});
      const db = h.runtime.database.db;
      assert.deepEqual(await db.selectFrom('zone_lookup_jobs').select('uuid').execute(), []);
      assert.deepEqual(await db.selectFrom('zone_lookup_chunks').select('seq').execute(), []);
    });

    it('logs a client that hangs up in the middle of an upload at info, as a hang-up, not a failure', async () => {
      for (const path of [
        '/rest/v2/zone/file/?origin=example.test',
        '/rest/v2/zone/lookup/file/',
        '/rest/v2/assets/',
      ]) {
        const before = served.lines.length;
        const socket = net.connect(served.port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.write(head(path, 'Content-Length: 1000000\r\n'));
        socket.write(Buffer.from('www.example.test\n'.repeat(5000)));
        await new Promise((resolve) => setTimeout(resolve, 100));
        socket.destroy();
        const deadline = Date.now() + 3000;
        const isLogged = () =>
          served.lines
            .slice(before)
            .some((l) => l.level === 30 && l.msg === 'client closed the connection before the answer');
        while (!isLogged() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        const lines = served.lines.slice(before);
        assert.ok(isLogged(), JSON.stringify(lines));
        assert.deepEqual(
          lines.filter((l) => l.level >= 40),
          [],
          path,
        );
      }
    });

    it('logged no line at warn or error level, and no "aborted" above info', () => {
      const loud = served.lines.filter((l) => l.level >= 40);
      assert.deepEqual(loud, []);
      assert.deepEqual(
        served.lines.filter((l) => l.level > 30 && /abort/i.test(JSON.stringify(l))),
        [],
      );
    });
  });
});
