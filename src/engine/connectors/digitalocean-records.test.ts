import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostTarget, ownerName, presentRecords } from './digitalocean-records.ts';

describe('DigitalOcean records in presentation form', () => {
  it('makes owner names absolute from @, relative names and fully qualified ones', () => {
    assert.equal(ownerName('@', 'example.com'), 'example.com');
    assert.equal(ownerName('WWW', 'example.com'), 'www.example.com');
    assert.equal(ownerName('*.dev', 'example.com'), '*.dev.example.com');
    assert.equal(ownerName('api.example.com.', 'example.com'), 'api.example.com');
    assert.equal(ownerName('api.example.com', 'example.com'), 'api.example.com');
  });

  it('makes host targets absolute with their final dot', () => {
    assert.equal(hostTarget('@', 'example.com'), 'example.com.');
    assert.equal(hostTarget('mail', 'example.com'), 'mail.example.com.');
    assert.equal(hostTarget('mx.example.net', 'example.com'), 'mx.example.net.');
    assert.equal(hostTarget('mx.example.net.', 'example.com'), 'mx.example.net.');
  });

  it('keeps an iodef URL whole, quotes TXT once, and skips SOA and unknown types', () => {
    const records = presentRecords(
      [
        { type: 'CAA', name: '@', data: 'mailto:sec@example.com', flags: 128, tag: 'iodef', ttl: 60 },
        { type: 'TXT', name: '@', data: '"already quoted"', ttl: 60 },
        { type: 'SOA', name: '@', data: '1800', ttl: 1800 },
        { type: 'HINFO', name: '@', data: 'x', ttl: 60 },
        { type: 'A', name: 'no-ttl', data: '192.0.2.1' },
      ],
      'example.com',
      1800,
    );
    assert.deepEqual(records, [
      { name: 'example.com', type: 'CAA', ttl: 60, data: '128 iodef "mailto:sec@example.com"' },
      { name: 'example.com', type: 'TXT', ttl: 60, data: '"already quoted"' },
      { name: 'no-ttl.example.com', type: 'A', ttl: 1800, data: '192.0.2.1' },
    ]);
  });
});
