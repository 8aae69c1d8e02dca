import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { rawCount, seed, shapeProblems, useFuzzApp, type FuzzRequest } from '../support/fuzz-app.ts';
import { testStore } from '../support/harness.ts';
import { parseResponse } from '../support/raw-http.ts';

// Fuzzing the HTTP server below the router: PERIMETER_FUZZ_REQUESTS / 10 seeded requests mangled
// byte by byte, sent on loopback sockets. Each must be answered with a catalogue body, or left
// unanswered only while incomplete. The app and the shape check are in test/support/fuzz-app.ts;
// the fuzzing of the routes' fields is in fuzz-routes.test.ts.

describe(`fuzzing every route (${testStore}, seed ${seed})`, () => {
  const fx = useFuzzApp();
  const { keys, real, rng } = fx;

  it(
    `answers ${rawCount} requests mangled byte by byte on loopback sockets with a catalogue body`,
    { timeout: 60_000 },
    async () => {
      const failures: string[] = [];
      const templates = [
        () =>
          `GET /rest/v2/assets/${rng.pick(real['asset']!)}/subdomains/?pageSize=5 HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys.v2}\r\nConnection: close\r\n\r\n`,
        () =>
          `POST /rest/v2/groups/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys.v2}\r\nContent-Type: application/json\r\nContent-Length: 16\r\nConnection: close\r\n\r\n{"name":"fuzz"}\n`,
        () =>
          `POST /rest/v2/zone/lookup/file/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys.v2}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n11\r\nwww.example.test\n\r\n0\r\n\r\n`,
        () => `GET /rest/v3/ips?limit=5 HTTP/1.1\r\nHost: x\r\nAuthorization: ${keys.v3}\r\nConnection: close\r\n\r\n`,
        () =>
          `DELETE /rest/v2/groups/${rng.hex(32)}/ HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${keys.v2}\r\nConnection: close\r\n\r\n`,
      ];
      const oddBytes = [0x00, 0x01, 0x0a, 0x0d, 0x20, 0x25, 0x7f, 0x80, 0xff, 0x3a, 0x2f];
      for (let i = 0; i < rawCount; i += 1) {
        const bytes = Buffer.from(rng.pick(templates)(), 'latin1');
        let mangled: Buffer = bytes;
        for (let n = rng.int(1, 3); n > 0; n -= 1) {
          const at = rng.int(0, mangled.length - 1);
          const roll = rng.next();
          if (roll < 0.5) mangled[at] = rng.chance(0.6) ? rng.pick(oddBytes) : rng.int(0, 255);
          else if (roll < 0.75)
            mangled = Buffer.concat([mangled.subarray(0, at), Buffer.from([rng.pick(oddBytes)]), mangled.subarray(at)]);
          else mangled = Buffer.concat([mangled.subarray(0, at), mangled.subarray(at + 1)]);
        }
        const outcome = await exchangeOnce(fx.port, mangled);
        const text = mangled.toString('latin1');
        // Node skips empty lines before the request line, and so does the answer's surface.
        const path = /^(?:\r?\n)*\S+ (\/\S*)/.exec(text)?.[1] ?? '';
        if (outcome.response === undefined) {
          // Only a request still incomplete when the client closed may go unanswered.
          if (outcome.errorCode !== undefined)
            failures.push(`#${i} ${outcome.errorCode} without an answer: ${JSON.stringify(text.slice(0, 200))}`);
          continue;
        }
        const request: FuzzRequest = {
          method: text.split(' ')[0] ?? '',
          url: path.startsWith('/rest/v3') ? path : `/rest/v2${path}`,
          headers: {},
          payload: undefined,
          isFaulty: false,
        };
        const { status, headers, body } = outcome.response;
        const isHeadComplete = text.includes('\r\n\r\n') || text.includes('\n\n');
        const isOutsideApi = isHeadComplete && !/^\/rest(\/|$)/.test(path.split('?')[0] ?? '');
        const problems = shapeProblems(
          request,
          status,
          headers['content-type'] ?? '',
          body,
          !isHeadComplete,
          isOutsideApi,
        );
        if (problems.length > 0)
          failures.push(
            `#${i} ${problems.join('; ')}\n  ${JSON.stringify(text.slice(0, 300))}\n  → ${status} ${body.slice(0, 200)}`,
          );
      }
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} bad answers (seed ${seed})`);
    },
  );
});

/**
 * Sends the bytes, half-closes, and reads the first response (or none). A reset is reported:
 * the server answers and closes cleanly, or keeps waiting for the rest of an incomplete request.
 */
function exchangeOnce(
  port: number,
  bytes: Buffer,
): Promise<{ response: ReturnType<typeof parseResponse>; errorCode: string | undefined }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    let errorCode: string | undefined;
    const done = () => resolve({ response: parseResponse(raw), errorCode });
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.on('data', (d) => {
      raw += d.toString('latin1');
      if (parseResponse(raw) !== undefined) socket.destroy();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (errorCode ??= err.code));
    socket.on('close', () => {
      clearTimeout(timer);
      done();
    });
    socket.end(bytes);
  });
}
