import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { EmailMessage } from '../../src/core/webhooks/webhook-format.types.ts';
import { createDnsResolver, type DnsResolver } from '../../src/engine/dns/resolver.ts';
import { createSmtpSender, type SmtpSenderOptions } from '../../src/engine/mail/smtp-sender.ts';
import { SmtpSendError } from '../../src/engine/mail/smtp-errors.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { opensslCertificate } from '../support/http-server.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';

/**
 * The e-mail channel (engine/mail) against a real SMTP server on loopback: delivery with and
 * without a login, STARTTLS with a certificate checked against the server's name, refusals
 * and failures as errors a person can act on (never carrying the password), and the egress
 * guard in front of every connection.
 */

const PASSWORD = 's3cret-p@ss';
const localGuard = new EgressGuard(['127.0.0.0/8']);
const never = (): AbortSignal => new AbortController().signal;

let dns: TestDnsServer;
let resolver: DnsResolver;
let certificate: { key: string; cert: string };
const receivers: SmtpReceiver[] = [];
const rawServers: net.Server[] = [];
const silentSockets: net.Socket[] = [];

const message: EmailMessage = {
  to: ['soc@example.com'],
  subject: '[perimeter] New high vulnerability: SQL injection on shop.example.com',
  text: 'New high vulnerability: SQL injection on shop.example.com\n\nSeverity: high',
  html: '<!DOCTYPE html><html><body><h1>New high vulnerability</h1></body></html>',
};

function sender(url: string, overrides: Partial<SmtpSenderOptions> = {}) {
  return createSmtpSender({
    url,
    from: 'Perimeter <perimeter@example.com>',
    requireTls: false,
    timeoutMs: 2000,
    guard: localGuard,
    resolver,
    ...overrides,
  });
}

async function receiver(options: Parameters<typeof startSmtpReceiver>[0] = {}): Promise<SmtpReceiver> {
  const started = await startSmtpReceiver(options);
  receivers.push(started);
  return started;
}

/** A TCP server on loopback that accepts and never says a word (a server that hangs). */
async function silentServer(): Promise<number> {
  const server = net.createServer((socket) => {
    silentSockets.push(socket);
    socket.on('error', () => undefined);
  });
  rawServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function sendError(promise: Promise<unknown>): Promise<SmtpSendError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof SmtpSendError, `an SmtpSendError, got ${String(err)}`);
    assert.doesNotMatch(err.message, /s3cret|p%40ss/, 'the error never carries the password');
    return err;
  }
  assert.fail('the send should have failed');
}

before(async () => {
  dns = new TestDnsServer();
  await dns.start();
  resolver = createDnsResolver([dns.address], { timeoutMs: 1000, tries: 2 });
  dns.set('mail.test', { a: ['127.0.0.1'] });
  certificate = opensslCertificate('/CN=mail.test', ['subjectAltName=DNS:mail.test']);
});

after(async () => {
  for (const r of receivers) await r.stop();
  for (const socket of silentSockets) socket.destroy();
  for (const s of rawServers) {
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  await dns.stop();
});

describe('SMTP sender', () => {
  it('delivers to a server without a login: subject, both bodies, envelope', async () => {
    const smtp = await receiver();
    const reply = await sender(`smtp://mail.test:${smtp.port}`).send(message, never());
    assert.match(reply, /^250 /);
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail?.from, 'perimeter@example.com');
    assert.deepEqual(mail?.to, ['soc@example.com']);
    assert.equal(mail?.user, undefined);
    assert.equal(mail?.secure, false);
    assert.equal(mail?.parsed.subject, message.subject);
    assert.equal(mail?.parsed.text?.trim(), message.text);
    assert.equal(mail?.parsed.html, message.html);
    assert.equal(mail?.parsed.from?.text, '"Perimeter" <perimeter@example.com>');
    assert.equal(mail?.parsed.headers.get('auto-submitted'), 'auto-generated');
  });

  it('logs in with the credentials of the URL (URL-encoded password)', async () => {
    const smtp = await receiver({ auth: { user: 'mailer', pass: PASSWORD } });
    await sender(`smtp://mailer:${encodeURIComponent(PASSWORD)}@mail.test:${smtp.port}`).send(message, never());
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail?.user, 'mailer');
  });

  it('refuses wrong credentials with a clear error that does not carry the password', async () => {
    const smtp = await receiver({ auth: { user: 'mailer', pass: 'other' } });
    const err = await sendError(
      sender(`smtp://mailer:${encodeURIComponent(PASSWORD)}@mail.test:${smtp.port}`).send(message, never()),
    );
    assert.equal(err.failure, 'credentials');
    assert.match(err.message, /^SMTP server mail\.test:\d+ refused the credentials of user mailer: 535 /);
    assert.equal(smtp.messages.length, 0);
  });

  it('upgrades with STARTTLS when offered, checking the certificate against the name', async () => {
    const smtp = await receiver({ tls: certificate, auth: { user: 'mailer', pass: PASSWORD } });
    const url = `smtp://mailer:${encodeURIComponent(PASSWORD)}@mail.test:${smtp.port}`;
    await sender(url, { ca: certificate.cert, requireTls: true }).send(message, never());
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail?.secure, true);
    assert.equal(mail?.user, 'mailer');
    // Without the certificate trusted, TLS fails (and nothing is sent in the clear instead).
    const err = await sendError(sender(url).send(message, never()));
    assert.equal(err.failure, 'tls');
    assert.match(err.message, /^could not secure the connection to the SMTP server mail\.test:\d+ \(TLS\): /);
    assert.equal(smtp.messages.length, 1);
  });

  it('speaks TLS from the first byte with smtps://', async () => {
    const smtp = await receiver({ tls: certificate, implicitTls: true });
    await sender(`smtps://mail.test:${smtp.port}`, { ca: certificate.cert }).send(message, never());
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail?.secure, true);
  });

  it('with requireTls, refuses a server that does not offer STARTTLS', async () => {
    const smtp = await receiver();
    const err = await sendError(sender(`smtp://mail.test:${smtp.port}`, { requireTls: true }).send(message, never()));
    assert.equal(err.failure, 'tls');
    assert.equal(smtp.messages.length, 0);
  });

  it('says which recipient the server refused', async () => {
    const smtp = await receiver({ refuse: (address) => address === 'nobody@example.com' });
    const err = await sendError(
      sender(`smtp://mail.test:${smtp.port}`).send({ ...message, to: ['nobody@example.com'] }, never()),
    );
    assert.equal(err.failure, 'recipient');
    assert.equal(err.permanent, true);
    assert.match(err.message, /^SMTP server mail\.test:\d+ refused the recipient nobody@example\.com: 550 /);
    // One refused among accepted ones: the others get it, the reply names the refused one.
    const reply = await sender(`smtp://mail.test:${smtp.port}`).send(
      { ...message, to: ['soc@example.com', 'nobody@example.com'] },
      never(),
    );
    assert.match(reply, /^250 .*\(refused: nobody@example\.com\)$/);
    const [mail] = await smtp.waitFor(1);
    assert.deepEqual(mail?.to, ['soc@example.com']);
  });

  it('reports an unreachable server clearly', async () => {
    const port = await closedPort();
    const err = await sendError(sender(`smtp://${'127.0.0.1'}:${port}`).send(message, never()));
    assert.equal(err.failure, 'unreachable');
    assert.match(err.message, new RegExp(`^could not reach the SMTP server 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
  });

  it('gives up on a server that never greets within the time-out', async () => {
    const port = await silentServer();
    const started = Date.now();
    const err = await sendError(sender(`smtp://mail.test:${port}`, { timeoutMs: 400 }).send(message, never()));
    const elapsed = Date.now() - started;
    assert.equal(err.failure, 'unreachable');
    assert.match(err.message, /^could not reach the SMTP server mail\.test:\d+: no answer within 400 ms/);
    assert.ok(elapsed >= 350 && elapsed < 3000, `${elapsed} ms`);
  });

  it('stops when the caller aborts', async () => {
    const port = await silentServer();
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 150);
    const err = await sendError(
      sender(`smtp://mail.test:${port}`, { timeoutMs: 10_000 }).send(message, controller.signal),
    );
    assert.equal(err.failure, 'cancelled');
    assert.ok(Date.now() - started < 2000);
  });

  it('refuses an address the egress guard denies without connecting', async () => {
    const smtp = await receiver();
    const strict = new EgressGuard([]);
    for (const host of ['mail.test', '127.0.0.1']) {
      const err = await sendError(sender(`smtp://${host}:${smtp.port}`, { guard: strict }).send(message, never()));
      assert.equal(err.failure, 'denied');
      assert.match(err.message, /refused by the egress guard \(127\.0\.0\.1 is in loopback range 127\.0\.0\.0\/8\)/);
    }
    assert.equal(smtp.connections, 0);
  });

  it('refuses an invalid URL at creation without repeating it', () => {
    assert.throws(
      () => sender(`http://user:${PASSWORD}@mail.test`),
      (err: Error) => /smtp:\/\/ or smtps:\/\//.test(err.message) && !err.message.includes(PASSWORD),
    );
  });
});
