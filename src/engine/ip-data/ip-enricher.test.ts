import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { AsnTable } from './asn-table.ts';
import { OfflineIpEnricher } from './ip-enricher.ts';

describe('offline IP enrichment (shipped data, no network)', () => {
  const enricher = new OfflineIpEnricher();
  before(async () => enricher.prepare());

  it('finds the autonomous system and country of a public IPv4 address', () => {
    const got = enricher.enrich('8.8.8.8');
    assert.ok(got !== undefined);
    assert.equal(got.asNumber, 15169);
    assert.match(got.asName ?? '', /google/i);
    assert.equal(got.country, 'US');
    assert.equal(got.countryName, 'United States');
    assert.equal(got.continent, 'NA');
    assert.equal(got.continentName, 'North America');
    assert.equal(got.asDomain, null);
  });

  it('finds a European address with its continent', () => {
    // RIPE NCC's own web server.
    const got = enricher.enrich('193.0.6.139');
    assert.ok(got !== undefined);
    assert.equal(got.asNumber, 3333);
    assert.equal(got.country, 'NL');
    assert.equal(got.countryName, 'Netherlands');
    assert.equal(got.continent, 'EU');
    assert.equal(got.continentName, 'Europe');
  });

  it('finds a public IPv6 address', () => {
    const got = enricher.enrich('2001:4860:4860::8888');
    assert.ok(got !== undefined);
    assert.equal(got.asNumber, 15169);
    assert.equal(got.country, 'US');
  });

  it('leaves loopback, private, documentation and mapped addresses unenriched', () => {
    for (const address of [
      '127.0.0.1',
      '::1',
      '10.1.2.3',
      '192.168.0.1',
      '192.0.2.10',
      '2001:db8::1',
      '169.254.169.254',
      '::ffff:8.8.8.8',
      'fe80::1',
      '0.0.0.0',
    ]) {
      assert.equal(enricher.enrich(address), undefined, address);
    }
  });

  it('answers undefined for text that is not an address', () => {
    assert.equal(enricher.enrich('example.com'), undefined);
  });
});

describe('ASN table', () => {
  const table = AsnTable.parse(
    '16777216,16777471,13335,"Cloudflare, Inc."\n16778240,16779263,38803,Gtelecom Pty Ltd\n16779264,16779519,0,Unannounced\n',
    '42540488161975842760550356425300246528,42540488241204005274814694018844196863,6939,"Say ""hi"" LLC"\n',
  );

  it('finds the range holding an address, bounds included', () => {
    assert.deepEqual(table.lookup('1.0.0.0'), { number: 13335, name: 'Cloudflare, Inc.' });
    assert.deepEqual(table.lookup('1.0.0.255'), { number: 13335, name: 'Cloudflare, Inc.' });
    assert.deepEqual(table.lookup('1.0.4.0'), { number: 38803, name: 'Gtelecom Pty Ltd' });
    assert.deepEqual(table.lookup('2001::1'), { number: 6939, name: 'Say "hi" LLC' });
  });

  it('answers undefined between ranges, before the first, and for AS 0', () => {
    assert.equal(table.lookup('1.0.1.0'), undefined);
    assert.equal(table.lookup('0.255.255.255'), undefined);
    assert.equal(table.lookup('1.0.8.1'), undefined);
    assert.equal(table.lookup('2002::1'), undefined);
  });
});
