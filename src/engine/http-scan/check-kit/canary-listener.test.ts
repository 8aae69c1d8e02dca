import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { describe, it } from 'node:test';
import { parseCanaryListen } from '../../../config/canary.ts';
import { canaryAnswer, CanaryListener, isLoopbackHost } from './canary-listener.ts';

/** A GET of `url` with a User-Agent; resolves with the status and body. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { 'user-agent': 'unit-test/1' } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

const isRefused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

const portOf = (url: string): number => Number(new URL(url).port);
const never = new AbortController().signal;

describe('canary listener', () => {
  it('parses host:port, [v6]:port and off, and refuses the rest', () => {
    assert.deepEqual(parseCanaryListen('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
    assert.deepEqual(parseCanaryListen('0.0.0.0:8099'), { host: '0.0.0.0', port: 8099 });
    assert.deepEqual(parseCanaryListen('[::1]:9000'), { host: '::1', port: 9000 });
    assert.deepEqual(parseCanaryListen('scanner.internal:80'), { host: 'scanner.internal', port: 80 });
    assert.equal(parseCanaryListen('OFF'), undefined);
    for (const bad of ['127.0.0.1', ':80', '127.0.0.1:70000', 'http://x:1', '::1:80'])
      assert.throws(() => parseCanaryListen(bad), /host:port|between/, bad);
  });

  it('tells loopback hosts apart', () => {
    for (const host of ['127.0.0.1', '127.9.9.9', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost', 'a.localhost'])
      assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['10.0.0.1', '0.0.0.0', 'scanner.example', '2001:db8::1'])
      assert.equal(isLoopbackHost(host), false, host);
  });

  it('records a hit of a probe with method, source and User-Agent, and answers its own text', async () => {
    const listener = new CanaryListener({ listen: { host: '127.0.0.1', port: 0 }, url: undefined });
    const canary = await listener.open();
    try {
      const probe = canary.newProbe();
      assert.match(probe.token, /^prmtr[0-9a-f]{24}$/);
      assert.equal(probe.url, `${canary.baseUrl}/${probe.token}`);
      assert.equal(probe.hit(), undefined);
      const answer = await get(`${probe.url}?x=1`);
      assert.deepEqual(answer, { status: 200, body: `${canaryAnswer(probe.token)}\n` });
      const hit = probe.hit();
      assert.equal(hit?.method, 'GET');
      assert.equal(hit?.path, `/${probe.token}?x=1`);
      assert.equal(hit?.userAgent, 'unit-test/1');
      assert.match(hit?.source ?? '', /^127\.0\.0\.1:\d+$/);
      // An unknown token, or none, is not recorded.
      assert.equal((await get(`${canary.baseUrl}/prmtr${'0'.repeat(24)}`)).status, 404);
      assert.equal((await get(`${canary.baseUrl}/`)).status, 404);
    } finally {
      await canary.close();
    }
  });

  it('waits for a late hit, and gives up after the time given', async () => {
    const listener = new CanaryListener({ listen: { host: '127.0.0.1', port: 0 }, url: undefined });
    const canary = await listener.open();
    try {
      const late = canary.newProbe();
      setTimeout(() => void get(late.url), 50);
      assert.equal((await late.waitForHit(5000, never))?.token, late.token);
      const silent = canary.newProbe();
      const started = performance.now();
      assert.equal(await silent.waitForHit(100, never), undefined);
      assert.ok(performance.now() - started >= 95);
      const aborted = new AbortController();
      setTimeout(() => aborted.abort(), 20);
      assert.equal(await silent.waitForHit(5000, aborted.signal), undefined);
    } finally {
      await canary.close();
    }
  });

  it('is shared by the scans holding it open and closes with the last one', async () => {
    const listener = new CanaryListener({ listen: { host: '127.0.0.1', port: 0 }, url: undefined });
    const first = await listener.open();
    const second = await listener.open();
    assert.equal(first.baseUrl, second.baseUrl);
    const probe = first.newProbe();
    await first.close();
    await first.close(); // twice is harmless
    assert.equal(listener.isListening, true);
    // The first scan's tokens are forgotten with it.
    assert.equal((await get(probe.url)).status, 404);
    await second.close();
    assert.equal(listener.isListening, false);
    assert.equal(await isRefused(portOf(second.baseUrl)), true);
    // It opens again for a later scan.
    const third = await listener.open();
    assert.equal(listener.isListening, true);
    await third.close();
  });

  it('hands out the configured URL, and refuses to open when disabled or the port is taken', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      await assert.rejects(
        new CanaryListener({ listen: { host: '127.0.0.1', port }, url: undefined }).open(),
        /EADDRINUSE/,
      );
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
    const configured = new CanaryListener({
      listen: { host: '127.0.0.1', port },
      url: 'https://canary.example.net:8443/hooks',
    });
    const canary = await configured.open();
    assert.equal(canary.baseUrl, 'https://canary.example.net:8443/hooks');
    assert.match(canary.newProbe().url, /^https:\/\/canary\.example\.net:8443\/hooks\/prmtr[0-9a-f]{24}$/);
    await canary.close();
    await assert.rejects(new CanaryListener({ listen: undefined, url: undefined }).open(), /disabled/);
  });

  it('reaches only loopback targets while it listens on loopback', () => {
    const local = new CanaryListener({ listen: { host: '127.0.0.1', port: 0 }, url: undefined });
    assert.equal(local.canReach(['127.0.0.1']), true);
    assert.equal(local.canReach(['203.0.113.7']), false);
    assert.equal(local.canReach(['127.0.0.1', '10.0.0.2']), false);
    const published = new CanaryListener({
      listen: { host: '0.0.0.0', port: 8099 },
      url: 'http://scanner.example.net:8099',
    });
    assert.equal(published.canReach(['203.0.113.7']), true);
  });
});
