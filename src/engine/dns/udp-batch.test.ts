import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { udpBatch, type UdpBatchBinding } from './udp-batch.ts';

/**
 * The native batch-UDP module against a dgram peer on 127.0.0.1. `npm install` builds it on
 * Linux; a checkout where it did not build fails here with the reason (the resolver would fall
 * back to dgram sockets silently, which is not what these tests are for).
 */

const SLOT = 512;

describe('udp-batch native module', () => {
  let binding: UdpBatchBinding;
  let peer: dgram.Socket;
  let port = 0;
  const received: Buffer[] = [];

  before(async () => {
    const loaded = udpBatch();
    assert.ok(
      loaded.binding !== undefined,
      `the native module is not in use: ${loaded.reason} (run npm install, or npm run postinstall, with a C compiler)`,
    );
    binding = loaded.binding;
    peer = dgram.createSocket('udp4');
    peer.on('message', (message, rinfo) => {
      received.push(message);
      // Echo with a prefix; "big" asks for a datagram larger than the client's slot.
      const reply =
        message.toString() === 'big' ? Buffer.alloc(SLOT + 100, 0x61) : Buffer.concat([Buffer.from('re:'), message]);
      peer.send(reply, rinfo.port, rinfo.address);
    });
    peer.bind(0, '127.0.0.1');
    await once(peer, 'listening');
    port = peer.address().port;
  });

  after(() => peer?.close());

  /** A connected handle whose batches are collected as [length or -1, text] pairs. */
  function client(slots = 4): {
    handle: ReturnType<UdpBatchBinding['open']>;
    batches: Array<Array<[number, string]>>;
    next(): Promise<void>;
  } {
    const handle = binding.open(4, 1 << 20);
    binding.connect(handle, '127.0.0.1', port);
    const inbox = Buffer.alloc(slots * SLOT);
    const lengths = new Int32Array(slots);
    const batches: Array<Array<[number, string]>> = [];
    let wake: (() => void) | undefined;
    binding.receive(handle, inbox, SLOT, lengths, (count) => {
      const batch: Array<[number, string]> = [];
      for (let i = 0; i < count; i += 1) {
        const length = lengths[i] as number;
        batch.push([length, length < 0 ? '' : inbox.toString('latin1', i * SLOT, i * SLOT + length)]);
      }
      batches.push(batch);
      wake?.();
    });
    return { handle, batches, next: () => new Promise<void>((resolve) => (wake = resolve)) };
  }

  const answers = (batches: Array<Array<[number, string]>>): string[] =>
    batches.flat().map(([length, text]) => (length < 0 ? `cut` : text));

  it('sends datagrams laid end to end in one call, each as its own datagram', async () => {
    const c = client();
    try {
      received.length = 0;
      const out = Buffer.from('onetwothree');
      assert.equal(binding.send(c.handle, out, new Uint32Array([3, 6, 11]), 3), 3);
      while (answers(c.batches).length < 3) await c.next();
      assert.deepEqual(
        received.map((m) => m.toString()),
        ['one', 'two', 'three'],
      );
      assert.deepEqual(answers(c.batches).sort(), ['re:one', 're:three', 're:two']);
    } finally {
      binding.close(c.handle);
    }
  });

  it('reads more datagrams than slots in several batches, and marks one larger than its slot', async () => {
    const c = client(2);
    try {
      const names = ['a', 'b', 'c', 'd', 'e'];
      const out = Buffer.from(`${names.join('')}big`);
      const ends = new Uint32Array([1, 2, 3, 4, 5, 8]);
      assert.equal(binding.send(c.handle, out, ends, 6), 6);
      while (answers(c.batches).length < 6) await c.next();
      assert.ok(
        c.batches.every((batch) => batch.length <= 2),
        'no batch is larger than the slots',
      );
      assert.deepEqual(answers(c.batches).sort(), ['cut', 're:a', 're:b', 're:c', 're:d', 're:e']);
    } finally {
      binding.close(c.handle);
    }
  });

  it('refuses a batch that lies outside its buffer, a name for an address, and use after close', () => {
    const handle = binding.open(4, 0);
    assert.throws(() => binding.connect(handle, 'localhost', port), /not a numeric IPv4 or IPv6 address/);
    binding.connect(handle, '127.0.0.1', port);
    assert.throws(() => binding.send(handle, Buffer.from('ab'), new Uint32Array([1, 5]), 2), /outside the buffer/);
    assert.throws(() => binding.send(handle, Buffer.from('ab'), new Uint32Array([1]), 2), /bad batch/);
    binding.close(handle);
    binding.close(handle);
    assert.throws(() => binding.send(handle, Buffer.from('ab'), new Uint32Array([1]), 1), /closed/);
  });

  it('talks IPv6 to ::1', async (t) => {
    const six = dgram.createSocket('udp6');
    try {
      six.bind(0, '::1');
      await once(six, 'listening');
    } catch {
      t.skip('no IPv6 loopback on this machine');
      six.close();
      return;
    }
    const got = once(six, 'message');
    const handle = binding.open(6, 0);
    try {
      binding.connect(handle, '::1', six.address().port);
      assert.equal(binding.send(handle, Buffer.from('six'), new Uint32Array([3]), 1), 1);
      const [message] = (await got) as [Buffer];
      assert.equal(message.toString(), 'six');
    } finally {
      binding.close(handle);
      six.close();
    }
  });
});
