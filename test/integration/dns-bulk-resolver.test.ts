import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createBulkResolver,
  type BulkResolver,
  type BulkResolverOptions,
  type LookupResult,
} from '../../src/engine/dns/bulk-resolver.ts';
import type { ZoneRecord } from '../../src/engine/dns/zone-record.ts';
import { startBind, type BindServer } from '../support/bind-server.ts';
import { TestDnsServer } from '../support/dns-server.ts';

/**
 * The bulk resolver against BIND 9 on 127.0.0.1 (answers, NXDOMAIN, truncation) and against the
 * scripted test server (silence, SERVFAIL, forced truncation, concurrency, rate, IDN, abort),
 * each on the native batch sockets and on Node's dgram sockets.
 */

const BIG_TXT = Array.from({ length: 8 }, (_, i) => `"${String(i).repeat(200)}"`).join(' ');
const ZONE = `$TTL 300
@      SOA  ns1 hostmaster ( 2024010101 3600 600 86400 60 )
       NS   ns1
ns1    A    127.0.0.1
www    A    192.0.2.10
       AAAA 2001:db8::10
alias  CNAME www
txt    TXT  "v=spf1 -all" "second string"
big    TXT  ${BIG_TXT}
only-txt TXT "no address here"
${Array.from({ length: 3000 }, (_, i) => `h${i} A 10.1.${i >> 8}.${i & 255}`).join('\n')}
`;

let bind: BindServer;
let stub: TestDnsServer;

const sorted = (records: ZoneRecord[]): string[] =>
  records.map((r) => `${r.name} ${r.ttl} ${r.class} ${r.type} ${r.data}`).sort();

before(async () => {
  bind = await startBind([{ name: 'engine.test', text: ZONE }]);
  stub = new TestDnsServer();
  await stub.start();
  stub.set('ok.test', { a: ['192.0.2.1'] });
  stub.set('silent.test', { isSilent: true });
  stub.set('broken.test', { isFailing: true });
  stub.set('big.test', { txt: Array.from({ length: 4 }, (_, i) => String(i).repeat(200)) });
  stub.set('xn--mnchen-3ya.test', { a: ['192.0.2.99'] });
});

after(async () => {
  await Promise.all([bind?.stop(), stub?.stop()]);
});

for (const udpSockets of ['batch', 'dgram'] as const) {
  const create = (options: BulkResolverOptions): BulkResolver => createBulkResolver({ ...options, udpSockets });

  describe(`bulk resolver against BIND (${udpSockets} sockets)`, () => {
    const resolver = () => create({ servers: [bind.address], timeoutMs: 1000, retries: 1, isRecursionDesired: false });

    it('answers A and AAAA, TXT, CNAME chains, no data and NXDOMAIN', async () => {
      const r = resolver();
      try {
        const www = await r.lookup('WWW.engine.test');
        assert.equal(www.outcome, 'answer');
        assert.deepEqual(sorted(www.records), [
          'www.engine.test 300 IN A 192.0.2.10',
          'www.engine.test 300 IN AAAA 2001:db8::10',
        ]);
        const txt = await r.lookup('txt.engine.test.', ['TXT']);
        assert.deepEqual(
          txt.records.map((x) => x.data),
          ['"v=spf1 -all" "second string"'],
        );
        const alias = await r.lookup('alias.engine.test', ['A']);
        assert.deepEqual(sorted(alias.records), [
          'alias.engine.test 300 IN CNAME www.engine.test.',
          'www.engine.test 300 IN A 192.0.2.10',
        ]);
        assert.deepEqual(await r.lookup('only-txt.engine.test'), {
          name: 'only-txt.engine.test',
          outcome: 'nodata',
          records: [],
          failures: [],
        });
        assert.deepEqual(await r.lookup('missing.engine.test'), {
          name: 'missing.engine.test',
          outcome: 'nxdomain',
          records: [],
          failures: [],
        });
      } finally {
        r.close();
      }
    });

    it(
      'sends what a waiting source submitted: a source whose next name depends on the answers does not stall',
      { timeout: 10_000 },
      async () => {
        const r = resolver();
        try {
          const answered = new Set<string>();
          let release: (() => void) | undefined;
          // Two names, then a wait for both answers (far fewer than a window: nothing else pumps).
          async function* names(): AsyncGenerator<string> {
            yield 'www.engine.test';
            yield 'h1.engine.test';
            await new Promise<void>((resolve) => {
              release = resolve;
              if (answered.size === 2) resolve();
            });
            yield 'h2.engine.test';
          }
          const stats = await r.resolveAll(
            names(),
            (result) => {
              answered.add(result.name);
              if (answered.size === 2) release?.();
            },
            { types: ['A'], signal: AbortSignal.timeout(5000) },
          );
          assert.equal(stats.names, 3);
          assert.deepEqual([...answered].sort(), ['h1.engine.test', 'h2.engine.test', 'www.engine.test']);
        } finally {
          r.close();
        }
      },
    );

    it('falls back to TCP when BIND truncates a large answer over UDP', async () => {
      const r = create({ servers: [bind.address], timeoutMs: 1000, ednsUdpSize: 0, isRecursionDesired: false });
      try {
        const results: LookupResult[] = [];
        const stats = await r.resolveAll(['big.engine.test'], (result) => void results.push(result), {
          types: ['TXT'],
        });
        assert.equal(results[0]?.outcome, 'answer');
        assert.equal(results[0]?.records[0]?.data, BIG_TXT);
        assert.equal(stats.tcpFallbacks, 1);
      } finally {
        r.close();
      }
    });

    it('resolves a stream of thousands of names, with invalid ones reported and not sent', async () => {
      const r = create({ servers: [bind.address], concurrency: 64, timeoutMs: 1000, isRecursionDesired: false });
      async function* names(): AsyncGenerator<string> {
        for (let i = 0; i < 3000; i += 1) yield `h${i}.engine.test`;
        yield 'nope.engine.test';
        yield 'bad..name';
        yield '';
      }
      try {
        const seen = new Map<string, LookupResult>();
        const stats = await r.resolveAll(names(), async (result) => void seen.set(result.name, result), {
          types: ['A'],
        });
        assert.equal(stats.names, 3003);
        assert.equal(seen.size, 3003);
        assert.deepEqual(stats.outcomes, {
          answer: 3000,
          nodata: 0,
          nxdomain: 1,
          servfail: 0,
          refused: 0,
          timeout: 0,
          error: 0,
          invalid: 2,
        });
        assert.equal(seen.get('h2999.engine.test')?.records[0]?.data, '10.1.11.183');
        assert.equal(seen.get('bad..name')?.failures[0]?.detail, 'empty label in name "bad..name."');
      } finally {
        r.close();
      }
    });

    it('reads a plain iterable only as fast as the callbacks settle', async () => {
      const r = create({ servers: [bind.address], concurrency: 16, timeoutMs: 1000, isRecursionDesired: false });
      let pulled = 0;
      function* names(): Generator<string> {
        for (let i = 0; i < 1000; i += 1) {
          pulled += 1;
          yield `h${i}.engine.test`;
        }
      }
      const held: Array<() => void> = [];
      let isHolding = true;
      try {
        const run = r.resolveAll(
          names(),
          () => (isHolding ? new Promise<void>((resolve) => held.push(resolve)) : undefined),
          { types: ['A'] },
        );
        while (held.length < 16) await sleep(5);
        await sleep(50);
        // 16 callbacks unsettled stop the intake: at most a window in flight and one queued besides them.
        assert.ok(pulled <= 48, `${pulled} names read while 16 callbacks were unsettled`);
        isHolding = false;
        for (const resume of held.splice(0)) resume();
        const stats = await run;
        assert.equal(stats.outcomes.answer, 1000);
      } finally {
        r.close();
      }
    });
  });

  describe(`bulk resolver against the test server (${udpSockets} sockets)`, () => {
    it('retries a silent server and reports a timeout', async () => {
      const r = create({ servers: [stub.address], timeoutMs: 100, retries: 2 });
      try {
        stub.queries.length = 0;
        const results: LookupResult[] = [];
        const stats = await r.resolveAll(['silent.test'], (result) => void results.push(result), { types: ['A'] });
        assert.equal(results[0]?.outcome, 'timeout');
        assert.match(results[0]?.failures[0]?.detail ?? '', /no answer from 127\.0\.0\.1:\d+ within 100 ms/);
        assert.deepEqual([stats.queries, stats.retries, stats.timeouts], [3, 2, 3]);
        assert.deepEqual(stub.queries, ['A silent.test udp', 'A silent.test udp', 'A silent.test udp']);
      } finally {
        r.close();
      }
    });

    it('reports SERVFAIL, and moves to another server when there is one', async () => {
      const single = create({ servers: [stub.address], timeoutMs: 500 });
      const pair = create({ servers: [stub.address, bind.address], timeoutMs: 500, isRecursionDesired: false });
      try {
        const failed = await single.lookup('broken.test', ['A']);
        assert.equal(failed.outcome, 'servfail');
        assert.match(failed.failures[0]?.detail ?? '', /answered SERVFAIL/);
        // BIND does not serve broken.test: once the stub fails, BIND answers REFUSED; both are tried.
        const both = await pair.lookup('broken.test', ['A']);
        assert.ok(['servfail', 'refused'].includes(both.outcome), both.outcome);
      } finally {
        single.close();
        pair.close();
      }
    });

    it('falls back to TCP on a truncated answer, then answers from it', async () => {
      const r = create({ servers: [stub.address], timeoutMs: 500, ednsUdpSize: 0 });
      try {
        stub.queries.length = 0;
        const result = await r.lookup('big.test', ['TXT']);
        assert.equal(result.outcome, 'answer');
        assert.equal(result.records.length, 4);
        assert.deepEqual(stub.queries, ['TXT big.test udp', 'TXT big.test tcp']);
      } finally {
        r.close();
      }
    });

    it('keeps at most `concurrency` queries in flight', async () => {
      const r = create({ servers: [stub.address], concurrency: 5, timeoutMs: 300, retries: 0 });
      try {
        stub.queries.length = 0;
        const run = r.resolveAll(
          Array.from({ length: 20 }, () => 'silent.test'),
          () => undefined,
          { types: ['A'] },
        );
        await new Promise((resolve) => setTimeout(resolve, 150));
        assert.equal(stub.queries.length, 5);
        const stats = await run;
        assert.equal(stats.outcomes.timeout, 20);
      } finally {
        r.close();
      }
    });

    it('holds the query rate', async () => {
      const r = create({ servers: [stub.address], ratePerSecond: 200 });
      try {
        const stats = await r.resolveAll(
          Array.from({ length: 100 }, () => 'ok.test'),
          () => undefined,
          { types: ['A'] },
        );
        assert.equal(stats.outcomes.answer, 100);
        // 100 queries at 200/s with a 10-query burst: at least (100 - 10) / 200 s.
        assert.ok(stats.durationMs >= 440, `took ${stats.durationMs} ms`);
      } finally {
        r.close();
      }
    });

    it('sends internationalised names in punycode', async () => {
      const r = create({ servers: [stub.address] });
      try {
        const result = await r.lookup('München.test', ['A']);
        assert.deepEqual(
          result.records.map((x) => `${x.name} ${x.data}`),
          ['xn--mnchen-3ya.test 192.0.2.99'],
        );
      } finally {
        r.close();
      }
    });

    it('stops a run when aborted', async () => {
      const r = create({ servers: [stub.address], concurrency: 2, timeoutMs: 2000 });
      try {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 50);
        await assert.rejects(
          r.resolveAll(
            Array.from({ length: 50 }, () => 'silent.test'),
            () => undefined,
            { signal: controller.signal },
          ),
          { name: 'AbortError' },
        );
      } finally {
        r.close();
      }
    });
  });
}
