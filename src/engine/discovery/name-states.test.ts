import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NameStates, Status } from './name-states.ts';

describe('NameStates', () => {
  it('packs status, sources (first one first) and the smallest depth of a name', () => {
    const states = new NameStates();
    assert.equal(states.add('www.example.com', 'page', 2), 'new');
    assert.equal(states.add('www.example.com', 'known', 3), 'grown', 'a new source');
    assert.equal(states.add('www.example.com', 'dns', 1), 'grown', 'a smaller depth and a new source');
    assert.equal(states.add('www.example.com', 'dns', 2), 'same');
    const packed = states.get('www.example.com') as number;
    assert.deepEqual(NameStates.sources(packed), ['page', 'known', 'dns']);
    assert.equal(NameStates.depth(packed), 1);
    assert.equal(NameStates.status(packed), Status.pending);
    assert.equal(NameStates.isFirm(packed), true);
    assert.equal(NameStates.isScraped(packed), true);
    assert.equal(NameStates.isFound(packed), true);
    states.setStatusOf('www.example.com', packed, Status.live);
    assert.equal(states.status('www.example.com'), Status.live);
    assert.deepEqual(
      NameStates.sources(states.get('www.example.com') as number),
      ['page', 'known', 'dns'],
      'the status change keeps the rest',
    );
    assert.equal(NameStates.depth(states.get('www.example.com') as number), 1);
  });

  it('requeues a filtered name only when a firm source names it', () => {
    const states = new NameStates();
    states.add('dev.example.com', 'brute-force', 0);
    assert.equal(NameStates.isFirm(states.get('dev.example.com') as number), false);
    states.setStatus('dev.example.com', Status.filtered);
    assert.equal(states.add('dev.example.com', 'permutation', 0), 'grown');
    assert.equal(states.status('dev.example.com'), Status.filtered);
    assert.equal(states.add('dev.example.com', 'certificate', 1), 'requeued');
    assert.equal(states.status('dev.example.com'), Status.pending);
    assert.deepEqual(NameStates.sources(states.get('dev.example.com') as number), [
      'brute-force',
      'certificate',
      'permutation',
    ]);
  });

  it('lists the given names (known, zone) that ended gone, with their outcome', () => {
    const states = new NameStates();
    for (const [name, source] of [
      ['a.example.com', 'known'],
      ['b.example.com', 'zone'],
      ['c.example.com', 'brute-force'],
      ['d.example.com', 'known'],
    ] as const)
      states.add(name, source, 0);
    states.setStatus('a.example.com', Status.goneNxdomain);
    states.setStatus('b.example.com', Status.goneNodata);
    states.setStatus('c.example.com', Status.goneNxdomain);
    states.setStatus('d.example.com', Status.live);
    assert.deepEqual(
      [...states.goneGiven()],
      [
        ['a.example.com', 'nxdomain'],
        ['b.example.com', 'nodata'],
      ],
    );
    assert.equal(NameStates.isFound(states.get('a.example.com') as number), false);
    assert.equal(states.size, 4);
  });

  it('keeps large depths apart from the other fields', () => {
    const states = new NameStates();
    states.add('deep.example.com', 'dns', 70_000);
    states.setStatus('deep.example.com', Status.unresolved);
    assert.equal(NameStates.depth(states.get('deep.example.com') as number), 0xffff);
    assert.equal(states.status('deep.example.com'), Status.unresolved);
    assert.deepEqual(NameStates.sources(states.get('deep.example.com') as number), ['dns']);
  });
});
