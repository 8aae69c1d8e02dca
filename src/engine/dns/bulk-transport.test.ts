import assert from 'node:assert/strict';
import type dgram from 'node:dgram';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { BatchUdpChannel, isAnswerTo, RandomIds, UdpChannel, type WireQuery } from './bulk-transport.ts';
import { RR_TYPE } from './rr-types.ts';
import type { UdpBatchBinding, UdpBatchHandle } from './udp-batch.ts';
import { queryNameWire, QueryTemplate, readHeader } from './wire.ts';

const template = new QueryTemplate({ isRecursionDesired: false, ednsUdpSize: 1232 });

function query(name: string, type: number): WireQuery {
  return { id: 0, nameWire: queryNameWire(name), type };
}

/** The response a server sends to a query message: the same header and question, QR set, no records. */
function responseTo(message: Buffer, edit: (response: Buffer) => void = () => undefined): Buffer {
  const questionEnd = message.length - 11;
  const response = Buffer.from(message.subarray(0, questionEnd));
  response[2] = 0x84;
  response.writeUInt16BE(0, 10);
  edit(response);
  return response;
}

/** A connected socket stand-in: records what is sent, says whether a send waits in its queue. */
class FakeSocket extends EventEmitter {
  readonly sent: Buffer[] = [];
  readonly copies: string[] = [];
  queued = 0;

  connect(_port: number, _address: string, done: () => void): void {
    done();
  }

  send(message: Buffer): void {
    this.sent.push(message);
    this.copies.push(message.toString('hex'));
  }

  getSendQueueCount(): number {
    return this.queued;
  }

  close(): void {}
}

async function channel(
  onAnswer: (q: WireQuery, message: Buffer) => void = () => undefined,
): Promise<{ udp: UdpChannel<WireQuery>; socket: FakeSocket }> {
  const socket = new FakeSocket();
  const udp = new UdpChannel<WireQuery>('127.0.0.1', 53, new RandomIds(), template, onAnswer);
  await udp.open(socket as unknown as dgram.Socket);
  return { udp, socket };
}

describe('bulk transport: answers', () => {
  it('takes a response with the same id, name bytes, type and class as an answer', () => {
    const q = query('www.example.test', RR_TYPE.A);
    const message = template.encode(0x1234, q.nameWire, q.type);
    assert.equal(isAnswerTo(responseTo(message), q), true);
  });

  it('refuses a message that is not a response, asks another name, type or class, or is cut short', () => {
    const q = query('www.example.test', RR_TYPE.A);
    const message = template.encode(0x1234, q.nameWire, q.type);
    const at = 12 + q.nameWire.length;
    assert.equal(
      isAnswerTo(
        responseTo(message, (r) => (r[2] = 0x04)),
        q,
      ),
      false,
      'QR bit clear',
    );
    assert.equal(
      isAnswerTo(
        responseTo(message, (r) => (r[13] = 0x57)),
        q,
      ),
      false,
      'W instead of w: byte for byte',
    );
    assert.equal(
      isAnswerTo(
        responseTo(message, (r) => r.writeUInt16BE(RR_TYPE.AAAA, at)),
        q,
      ),
      false,
      'other type',
    );
    assert.equal(
      isAnswerTo(
        responseTo(message, (r) => r.writeUInt16BE(3, at + 2)),
        q,
      ),
      false,
      'class CH',
    );
    assert.equal(
      isAnswerTo(
        responseTo(message, (r) => r.writeUInt16BE(2, 4)),
        q,
      ),
      false,
      'two questions',
    );
    assert.equal(isAnswerTo(responseTo(message).subarray(0, at + 2), q), false, 'cut inside the question');
  });
});

describe('bulk transport: UDP channel', () => {
  it('sends each query under its own id with its name and type, and matches the answer to it', async () => {
    const answered: Array<[WireQuery, Buffer]> = [];
    const { udp, socket } = await channel((q, message) => answered.push([q, message]));
    const a = query('a.example.test', RR_TYPE.A);
    const b = query('b.example.test', RR_TYPE.AAAA);
    udp.send(a);
    udp.send(b);
    assert.notEqual(a.id, b.id);
    assert.equal(readHeader(Buffer.from(socket.copies[0] as string, 'hex')).id, a.id);
    assert.equal(socket.copies[1], template.encode(b.id, b.nameWire, b.type).toString('hex'));
    // A forged answer (b's id, a's question) is dropped; b stays in flight.
    const forged = responseTo(Buffer.from(socket.copies[0] as string, 'hex'), (r) => r.writeUInt16BE(b.id, 0));
    socket.emit('message', forged);
    assert.equal(answered.length, 0);
    socket.emit('message', responseTo(Buffer.from(socket.copies[1] as string, 'hex')));
    assert.deepEqual(
      answered.map(([q]) => q),
      [b],
    );
    assert.deepEqual([...udp.inFlight()], [a]);
  });

  it('writes the next query of the same length over the last buffer only when the socket sent it at once', async () => {
    const { udp, socket } = await channel();
    udp.send(query('a.example.test', RR_TYPE.A));
    udp.send(query('b.example.test', RR_TYPE.A));
    assert.equal(socket.sent[0], socket.sent[1], 'taken at once: the buffer is reused');
    socket.queued = 1;
    udp.send(query('c.example.test', RR_TYPE.A));
    udp.send(query('d.example.test', RR_TYPE.A));
    assert.notEqual(socket.sent[3], socket.sent[2], 'the queued message keeps its buffer');
    assert.equal((socket.sent[2] as Buffer).toString('hex'), socket.copies[2], 'and its bytes');
  });
});

/** The native module's stand-in: records each send call's datagrams, takes at most `room` per call, hands batches in. */
class FakeBatchBinding {
  readonly calls: string[][] = [];
  room = Infinity;
  private deliver: ((count: number) => void) | undefined;
  private inbox: Buffer = Buffer.alloc(0);
  private slotSize = 0;
  private lengths: Int32Array = new Int32Array(0);

  open(): UdpBatchHandle {
    return {} as UdpBatchHandle;
  }

  connect(): void {}

  send(_handle: UdpBatchHandle, buffer: Buffer, ends: Uint32Array, count: number): number {
    const taken = Math.min(count, this.room);
    const datagrams: string[] = [];
    for (let i = 0, start = 0; i < taken; start = ends[i] as number, i += 1)
      datagrams.push(buffer.toString('hex', start, ends[i]));
    this.calls.push(datagrams);
    return taken;
  }

  receive(
    _handle: UdpBatchHandle,
    buffer: Buffer,
    slotSize: number,
    lengths: Int32Array,
    onBatch: (count: number) => void,
  ): void {
    this.inbox = buffer;
    this.slotSize = slotSize;
    this.lengths = lengths;
    this.deliver = onBatch;
  }

  /** Delivers datagrams as one batch (undefined: one that did not fit its slot). */
  answer(messages: Array<Buffer | undefined>): void {
    messages.forEach((message, i) => {
      this.lengths[i] = message === undefined ? -1 : message.copy(this.inbox, i * this.slotSize);
    });
    this.deliver?.(messages.length);
  }

  close(): void {}
}

describe('bulk transport: batch UDP channel', () => {
  async function batchChannel(
    onAnswer: (q: WireQuery, message: Buffer) => void = () => undefined,
  ): Promise<{ udp: BatchUdpChannel<WireQuery>; binding: FakeBatchBinding }> {
    const binding = new FakeBatchBinding();
    const udp = new BatchUdpChannel<WireQuery>(
      binding as unknown as UdpBatchBinding,
      '127.0.0.1',
      53,
      new RandomIds(),
      template,
      1232,
      onAnswer,
    );
    await udp.open();
    return { udp, binding };
  }

  it('holds queries until flush and sends them in one call, each its own message', async () => {
    const { udp, binding } = await batchChannel();
    const queries = ['a.example.test', 'bb.example.test', 'c.example.test'].map((name) => query(name, RR_TYPE.A));
    for (const q of queries) udp.send(q);
    assert.equal(binding.calls.length, 0);
    udp.flush();
    udp.flush();
    assert.deepEqual(binding.calls, [queries.map((q) => template.encode(q.id, q.nameWire, q.type).toString('hex'))]);
  });

  it('sends a full batch at once, and keeps what the kernel did not take for the next flush, in order', async () => {
    const { udp, binding } = await batchChannel();
    const queries = Array.from({ length: 70 }, (_, i) => query(`h${i}.example.test`, RR_TYPE.A));
    binding.room = 50;
    for (const q of queries) udp.send(q);
    // The 65th query found the batch full: 64 went to the kernel, which took 50.
    assert.deepEqual(
      binding.calls.map((c) => c.length),
      [50],
    );
    binding.room = Infinity;
    udp.flush();
    const sent = binding.calls.flat();
    assert.deepEqual(
      sent,
      queries.map((q) => template.encode(q.id, q.nameWire, q.type).toString('hex')),
    );
  });

  it('matches each answer of a batch to its query, dropping forged, cut and short datagrams', async () => {
    const answered: Array<[WireQuery, string]> = [];
    const { udp, binding } = await batchChannel((q, message) => answered.push([q, message.toString('hex')]));
    const a = query('a.example.test', RR_TYPE.A);
    const b = query('b.example.test', RR_TYPE.AAAA);
    udp.send(a);
    udp.send(b);
    udp.flush();
    const [aSent, bSent] = (binding.calls[0] as string[]).map((hex) => Buffer.from(hex, 'hex')) as [Buffer, Buffer];
    const forged = responseTo(aSent, (r) => r.writeUInt16BE(b.id, 0));
    binding.answer([forged, undefined, Buffer.alloc(5), responseTo(bSent)]);
    assert.deepEqual(answered, [[b, responseTo(bSent).toString('hex')]]);
    binding.answer([responseTo(aSent)]);
    assert.deepEqual(
      answered.map(([q]) => q),
      [b, a],
    );
    assert.deepEqual([...udp.inFlight()], []);
  });
});
