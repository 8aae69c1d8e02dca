import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanaryHit, CanaryProbe } from '../check-kit/canary-listener.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { canaryAnswerEvidence, describeHit, LateProbes, probeHighlight } from './out-of-band.ts';

const hitOf = (token: string, at = new Date()): CanaryHit => ({
  token,
  method: 'GET',
  path: `/${token}`,
  source: '127.0.0.1:5000',
  userAgent: 'curl/8',
  at,
});

/** A probe whose hit comes `afterMs` after it is made (never when undefined). */
function fakeProbe(token: string, afterMs: number | undefined): CanaryProbe {
  const made = Date.now();
  const hit = (): CanaryHit | undefined =>
    afterMs !== undefined && Date.now() - made >= afterMs ? hitOf(token) : undefined;
  return {
    token,
    url: `http://127.0.0.1:1/${token}`,
    hit,
    waitForHit: async (ms, signal) => {
      const until = Date.now() + ms;
      while (hit() === undefined && Date.now() < until && !signal.aborted)
        await new Promise((resolve) => setTimeout(resolve, 5));
      return hit();
    },
  };
}

const exchange = (url: string, body: string, requestBody?: string): HttpExchange => ({
  request: {
    method: 'POST',
    url: new URL(url),
    headers: [],
    ...(requestBody === undefined ? {} : { body: requestBody }),
  },
  status: 200,
  headers: [],
  body,
  isTruncated: false,
});

describe('out-of-band proofs', () => {
  it('reports the hits that come within the grace period, once, and waits one period in all', async () => {
    const late = new LateProbes();
    const reported: string[] = [];
    // The grace period runs from each probe's answer (its add): the clock starts before them.
    const started = performance.now();
    late.add(fakeProbe('soon', 30), async (hit) => void reported.push(hit.token));
    late.add(fakeProbe('never', undefined), async (hit) => void reported.push(hit.token));
    late.add(fakeProbe('too-late', 5000), async (hit) => void reported.push(hit.token));
    await late.settle(new AbortController().signal, 200);
    const elapsed = performance.now() - started;
    assert.deepEqual(reported, ['soon']);
    assert.ok(elapsed >= 150 && elapsed < 1000, `${elapsed} ms`);
    await late.settle(new AbortController().signal, 200);
    assert.deepEqual(reported, ['soon'], 'settled probes are forgotten');
  });

  it('stops waiting on an abort', async () => {
    const late = new LateProbes();
    late.add(fakeProbe('never', undefined), async () => assert.fail('no hit'));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    await late.settle(controller.signal, 5000);
    assert.ok(performance.now() - started < 1000);
  });

  it("describes a hit and points at the token in the request and the canary's answer in the body", () => {
    const sentAt = Date.now();
    assert.equal(
      describeHit(hitOf('prmtrab', new Date(sentAt + 12)), sentAt),
      'the scanner\'s canary received GET /prmtrab from 127.0.0.1:5000 (User-Agent: "curl/8") 12 ms after the request was sent',
    );
    const probe = fakeProbe('prmtr0123', undefined);
    const url = 'http://site/x?u=http%3A%2F%2F127.0.0.1%3A1%2Fprmtr0123';
    assert.deepEqual(probeHighlight(exchange(url, ''), probe), [
      { field: 'request.url', value: 'prmtr0123', offset: url.length - 9, length: 9 },
    ]);
    const body = 'cb=http%3A%2F%2F127.0.0.1%3A1%2Fprmtr0123&event=x';
    assert.deepEqual(probeHighlight(exchange('http://site/x', '', body), probe), [
      { field: 'request.body', value: 'prmtr0123', offset: body.indexOf('prmtr'), length: 9 },
    ]);
    assert.deepEqual(probeHighlight(exchange('http://site/x', ''), probe), []);
    assert.deepEqual(
      canaryAnswerEvidence(exchange('http://site/x', '<pre>perimeter canary prmtr0123\n</pre>'), probe),
      { value: 'perimeter canary prmtr0123', offset: 5 },
    );
    assert.equal(canaryAnswerEvidence(exchange('http://site/x', 'fetched 10 bytes'), probe), undefined);
  });
});
