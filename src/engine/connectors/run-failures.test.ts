import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EgressDeniedError } from '../net/egress-guard.ts';
import { networkCause, networkFailureOf, networkFailureReason, unreachableError } from './run-failures.ts';

/** An error as undici and the SDKs wrap a socket's: `fetch failed` with the real cause below. */
function wrapped(cause: unknown): Error {
  return new TypeError('fetch failed', { cause: new Error('outer', { cause }) });
}

describe('run-failures (one "unreachable" decision for every adapter and the engine)', () => {
  it("finds the egress guard's refusal anywhere in the causes, with the guard's words", () => {
    const denial = new EgressDeniedError('api.example.com', '10.0.0.1', 'address 10.0.0.1 is not allowed');
    const failure = networkFailureOf(wrapped(denial));
    assert.equal(failure?.kind, 'denied');
    assert.equal(failure?.denial, denial);
    assert.match(failure?.reason ?? '', /denied by egress guard/);
    assert.equal(networkCause(wrapped(denial)), 'the egress guard refused the address');
  });

  it('names refused connections and time-outs in plain words with their codes', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    assert.deepEqual(
      { ...networkFailureOf(wrapped(refused)), denial: undefined },
      { kind: 'connection', code: 'ECONNREFUSED', reason: 'connection refused', denial: undefined },
    );
    assert.equal(networkCause(refused), 'no connection (ECONNREFUSED)');
    const connectTimeout = Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    assert.equal(networkFailureOf(wrapped(connectTimeout))?.kind, 'timeout');
    assert.equal(networkFailureOf(new DOMException('The operation timed out', 'TimeoutError'))?.kind, 'timeout');
    assert.equal(networkCause(new DOMException('x', 'TimeoutError')), 'no answer in time');
    assert.equal(
      unreachableError('Example', wrapped(refused)).message,
      'Example could not be reached (connection refused)',
    );
    assert.equal(unreachableError('Example', refused).kind, 'unreachable');
  });

  it('leaves other errors alone (an answer that could not be used is not "unreachable")', () => {
    assert.equal(networkFailureOf(new SyntaxError('Unexpected token < in JSON')), undefined);
    assert.equal(networkFailureOf('a string'), undefined);
    assert.equal(networkCause(new Error('HTTP 500')), undefined);
    assert.equal(networkFailureReason(new Error('socket hang up')), 'socket hang up');
  });
});
