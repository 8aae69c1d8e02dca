import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyGreeting,
  classifyHttp,
  classifyPostgresReply,
  classifyRedisReply,
  printableBanner,
} from './service-classify.ts';

const text = (s: string): Buffer => Buffer.from(s, 'latin1');

/** A MySQL protocol-10 greeting packet carrying `version`. */
function mysqlGreeting(version: string): Buffer {
  const body = Buffer.concat([Buffer.from([0x0a]), text(version), Buffer.from([0]), Buffer.alloc(40, 1)]);
  const header = Buffer.from([body.length & 0xff, (body.length >> 8) & 0xff, 0, 0]);
  return Buffer.concat([header, body]);
}

describe('service greetings', () => {
  it('reads SSH software as product and version', () => {
    assert.deepEqual(classifyGreeting(text('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.1\r\n'), 22), {
      name: 'ssh',
      product: 'OpenSSH',
      version: '8.9p1',
    });
    assert.deepEqual(classifyGreeting(text('SSH-2.0-dropbear_2022.83\r\n'), 2222), {
      name: 'ssh',
      product: 'dropbear',
      version: '2022.83',
    });
  });

  it('tells FTP from SMTP by the words of a 220 greeting, then by the port', () => {
    assert.deepEqual(classifyGreeting(text('220 (vsFTPd 3.0.3)\r\n'), 2121), {
      name: 'ftp',
      product: 'vsFTPd',
      version: '3.0.3',
    });
    assert.deepEqual(classifyGreeting(text('220 mail.example.test ESMTP Postfix (Debian/GNU)\r\n'), 25), {
      name: 'smtp',
      product: 'Postfix',
    });
    assert.deepEqual(classifyGreeting(text('220 mx.example.test ESMTP Exim 4.96 Mon, 01 Jan 2024\r\n'), 587), {
      name: 'smtp',
      product: 'Exim',
      version: '4.96',
    });
    assert.equal(classifyGreeting(text('220 ready\r\n'), 21)?.name, 'ftp');
    assert.equal(classifyGreeting(text('220 ready\r\n'), 2525)?.name, 'smtp');
  });

  it('knows POP3, IMAP, VNC, telnet and redis answers', () => {
    assert.deepEqual(classifyGreeting(text('+OK Dovecot ready.\r\n'), 110), { name: 'pop3', product: 'Dovecot' });
    assert.equal(classifyGreeting(text('* OK [CAPABILITY IMAP4rev1] ready\r\n'), 143)?.name, 'imap');
    assert.deepEqual(classifyGreeting(text('RFB 003.008\n'), 5900), { name: 'vnc', version: '003.008' });
    assert.equal(classifyGreeting(Buffer.from([0xff, 0xfd, 0x18]), 23)?.name, 'telnet');
    assert.equal(classifyRedisReply(text('+PONG\r\n'))?.name, 'redis');
    assert.equal(classifyRedisReply(text('-NOAUTH Authentication required.\r\n'))?.name, 'redis');
    assert.equal(classifyRedisReply(text('HTTP/1.1 400 Bad Request\r\n')), undefined);
  });

  it('reads the MySQL and MariaDB handshake', () => {
    assert.deepEqual(classifyGreeting(mysqlGreeting('8.0.36'), 3306), {
      name: 'mysql',
      product: 'MySQL',
      version: '8.0.36',
    });
    assert.deepEqual(classifyGreeting(mysqlGreeting('5.5.5-10.11.6-MariaDB-0+deb12u1'), 3306), {
      name: 'mysql',
      product: 'MariaDB',
      version: '10.11.6',
    });
  });

  it('leaves bytes it does not know unnamed', () => {
    assert.equal(classifyGreeting(text('hello there\r\n'), 4000), undefined);
    assert.equal(classifyGreeting(Buffer.from([1, 2, 3]), 4000), undefined);
  });
});

describe('answers to probes', () => {
  it('reads the Server header of an HTTP response', () => {
    assert.deepEqual(classifyHttp(text('HTTP/1.1 200 OK\r\nServer: nginx/1.25.3\r\n\r\n')), {
      name: 'http',
      product: 'nginx',
      version: '1.25.3',
    });
    assert.deepEqual(classifyHttp(text('HTTP/1.0 404 Not Found\r\nserver: Apache/2.4.57 (Debian)\r\n\r\n')), {
      name: 'http',
      product: 'Apache',
      version: '2.4.57',
    });
    assert.deepEqual(classifyHttp(text('HTTP/1.1 200 OK\r\nServer: cloudflare\r\n\r\n')), {
      name: 'http',
      product: 'cloudflare',
    });
    assert.deepEqual(classifyHttp(text('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')), { name: 'http' });
    assert.equal(classifyHttp(text('SSH-2.0-x\r\n')), undefined);
  });

  it('knows the one-byte answer to a PostgreSQL SSLRequest', () => {
    assert.equal(classifyPostgresReply(text('N'))?.name, 'postgresql');
    assert.equal(classifyPostgresReply(text('S'))?.name, 'postgresql');
    assert.equal(classifyPostgresReply(text('NO')), undefined);
  });
});

describe('printable banner', () => {
  it('escapes control bytes and stops at 200 characters', () => {
    assert.equal(printableBanner(Buffer.from([0x41, 0x0d, 0x0a, 0x00, 0xff, 0x09])), 'A\\r\\n\\x00\\xff\\t');
    assert.equal(printableBanner(Buffer.alloc(500, 0x41)).length, 200);
    assert.equal(printableBanner(Buffer.alloc(500, 0)).length, 200);
  });
});
