import assert from 'node:assert/strict';
import type dgram from 'node:dgram';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { isAnswerTo, RandomIds, UdpChannel, type WireQuery } from './bulk-transport.ts';
import { RR_TYPE } from './rr-types.ts';
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

async function channel(onAnswer: (q: WireQuery, message: Buffer) => void = () => undefined): Promise<{ udp: UdpChannel<WireQuery>; socket: FakeSocket }> {
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
    assert.equal(isAnswerTo(responseTo(message, (r) => (r[2] = 0x04)), q), false, 'QR bit clear');
    assert.equal(isAnswerTo(responseTo(message, (r) => (r[13] = 0x57)), q), false, 'W instead of w: byte for byte');
    assert.equal(isAnswerTo(responseTo(message, (r) => r.writeUInt16BE(RR_TYPE.AAAA, at)), q), false, 'other type');
    assert.equal(isAnswerTo(responseTo(message, (r) => r.writeUInt16BE(3, at + 2)), q), false, 'class CH');
    assert.equal(isAnswerTo(responseTo(message, (r) => r.writeUInt16BE(2, 4)), q), false, 'two questions');
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
    assert.deepEqual(answered.map(([q]) => q), [b]);
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
