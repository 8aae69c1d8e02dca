import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventRecord } from '../events/event.types.ts';
import { digestCap, digestDue } from './email-digest.ts';

const start = Date.parse('2026-11-29T08:00:00Z');

function events(count: number, firstAt = start, stepMs = 1000): EventRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    publicId: `evt-${i + 1}`,
    teamId: 1,
    kind: 'port.opened' as const,
    occurredAt: new Date(firstAt + i * stepMs),
    assetId: null,
    severity: null,
    data: {},
  }));
}

describe('digestDue', () => {
  it('sends each event alone, the first first, with a period of 0', () => {
    const pending = events(3);
    assert.deepEqual(digestDue(pending, 0, new Date(start)), { send: [pending[0]] });
  });

  it('waits until the oldest pending event is as old as the period', () => {
    const pending = events(3, start + 5000);
    const due = digestDue(pending, 15, new Date(start + 60_000));
    assert.deepEqual(due, { waitUntil: new Date(start + 5000 + 15 * 60_000) });
  });

  it('judges by the oldest event even when the log order differs', () => {
    const pending = events(2);
    const [a, b] = pending;
    assert.ok(a !== undefined && b !== undefined);
    b.occurredAt = new Date(start - 60_000);
    assert.deepEqual(digestDue(pending, 1, new Date(start)), { send: pending });
  });

  it('sends everything pending once the period has passed', () => {
    const pending = events(4);
    assert.deepEqual(digestDue(pending, 15, new Date(start + 15 * 60_000)), { send: pending });
    assert.deepEqual(digestDue(pending, 15, new Date(start + 16 * 60_000)), { send: pending });
  });

  it('caps a digest at 500 events: the rest wait for the next one', () => {
    const pending = events(digestCap + 20, start, 10);
    const due = digestDue(pending, 5, new Date(start + 3_600_000));
    assert.ok('send' in due);
    assert.equal(due.send.length, digestCap);
    assert.equal(due.send[0]?.id, 1);
    assert.equal(due.send.at(-1)?.id, digestCap);
  });

  it('sends nothing when nothing is pending', () => {
    assert.deepEqual(digestDue([], 15, new Date(start)), { send: [] });
    assert.deepEqual(digestDue([], 0, new Date(start)), { send: [] });
  });
});
