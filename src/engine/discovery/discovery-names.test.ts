import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { labelVariants, permutationCandidates, shippedWordList } from './candidate-names.ts';
import {
  createHostScanner,
  isUnderRoot,
  normaliseHost,
  recordTargets,
  spfTargets,
  txtText,
} from './discovery-names.ts';
import { matchFingerprint, providerOf, shippedProviders } from './takeover-checks.ts';
import { certificateHostNames } from './web-sources.ts';

const record = (type: string, data: string) => ({ name: 'example.test', ttl: 300, class: 'IN', type, data });

describe('discovery names', () => {
  it('normalises host names and refuses what is not one', () => {
    assert.equal(normaliseHost('WWW.Example.TEST.'), 'www.example.test');
    assert.equal(normaliseHost('*.example.test'), 'example.test');
    assert.equal(normaliseHost('_sip._tcp.example.test'), '_sip._tcp.example.test');
    for (const bad of ['', '.', 'a..b', '-a.test', 'a-.test', 'a b.test', 'ex%41.test', `${'a'.repeat(64)}.test`])
      assert.equal(normaliseHost(bad), undefined, bad);
  });

  it('tells names under the root from look-alikes', () => {
    assert.ok(isUnderRoot('example.test', 'example.test'));
    assert.ok(isUnderRoot('a.b.example.test', 'example.test'));
    assert.ok(!isUnderRoot('badexample.test', 'example.test'));
    assert.ok(!isUnderRoot('example.test.evil', 'example.test'));
  });

  it('reads targets of CNAME, MX, NS, SRV, SOA and SPF records', () => {
    assert.deepEqual(recordTargets(record('CNAME', 'www.example.test.')), ['www.example.test.']);
    assert.deepEqual(recordTargets(record('MX', '10 mx.example.test.')), ['mx.example.test.']);
    assert.deepEqual(recordTargets(record('NS', 'ns1.example.test.')), ['ns1.example.test.']);
    assert.deepEqual(recordTargets(record('SRV', '0 5 5060 sip.example.test.')), ['sip.example.test.']);
    assert.deepEqual(recordTargets(record('SOA', 'ns1.example.test. hostmaster.example.test. 1 3600 600 86400 60')), [
      'ns1.example.test.',
    ]);
    assert.deepEqual(
      recordTargets(
        record(
          'TXT',
          '"v=spf1 include:_spf.example.test a:web.example.test" " mx:mail.example.test ip4:192.0.2.1 redirect=spf.example.test"',
        ),
      ),
      ['_spf.example.test', 'web.example.test', 'mail.example.test', 'spf.example.test'],
    );
    assert.deepEqual(recordTargets(record('TXT', '"google-site-verification=abc include:x.example.test"')), []);
    assert.deepEqual(spfTargets('v=spf1 include:%{d}.example.test exists:%{i}.x.test a:cidr.example.test/24 -all'), [
      'cidr.example.test',
    ]);
    assert.equal(txtText('"a\\"b" "c\\099"'), 'a"bcc');
  });

  it('finds names under the root in free text, not glued to longer names', () => {
    const scan = createHostScanner('example.test');
    const text =
      'see https://api.example.test/v1, "https:\\/\\/cdn.Example.test\\/x.js", mail@mx.example.test; not badexample.test nor example.test.evil.org; root example.test.';
    assert.deepEqual(scan(text).sort(), ['api.example.test', 'cdn.example.test', 'example.test', 'mx.example.test']);
  });

  it('permutes first labels with environment words and numbers, within the bound', () => {
    const www = labelVariants('www');
    assert.ok(www.includes('dev-www') && www.includes('www-staging') && www.includes('www1') && www.includes('www-2'));
    assert.deepEqual(
      labelVariants('api2')
        .filter((v) => /^api\d$/.test(v))
        .sort(),
      ['api1', 'api3'],
    );
    assert.ok(!labelVariants('dev').includes('dev-dev'));
    const { names, isCapped } = permutationCandidates(
      ['www.example.test', 'example.test', 'api.example.test'],
      'example.test',
      30,
    );
    assert.equal(names.length, 30);
    assert.ok(isCapped);
    assert.ok(names.every((name) => name.endsWith('.example.test') && name !== 'example.test'));
    assert.deepEqual(permutationCandidates(['a.example.test'], 'example.test', 1000).isCapped, false);
  });

  it('ships a word list of 10,000 unique names in frequency order', () => {
    const words = shippedWordList();
    assert.equal(words.length, 10_000);
    assert.equal(new Set(words).size, 10_000);
    assert.deepEqual(words.slice(0, 4), ['www', 'mail', 'ftp', 'localhost']);
  });

  it('reads certificate names from subjectAltName and the subject CN', () => {
    assert.deepEqual(
      certificateHostNames(
        'DNS:a.example.test, IP Address:127.0.0.1, DNS:*.b.example.test, DNS:"we\\u002cird.example.test"',
        'O=x\nCN=c.example.test',
      ),
      ['a.example.test', '*.b.example.test', 'we,ird.example.test', 'c.example.test'],
    );
    assert.deepEqual(certificateHostNames(undefined, undefined), []);
  });

  it('matches provider suffixes (longest first) and unclaimed-page signatures from the shipped file', () => {
    const providers = shippedProviders();
    assert.ok(providers.length >= 30);
    assert.equal(providerOf('gone.bitbucket.io', providers)?.provider, 'Bitbucket');
    assert.equal(providerOf('bucket.s3.amazonaws.com', providers)?.provider, 'AWS/S3');
    assert.equal(providerOf('notbitbucket.io', providers), undefined);
    const s3 = providerOf('x.s3.amazonaws.com', providers);
    assert.ok(s3 !== undefined);
    assert.equal(matchFingerprint('<Error><Code>NoSuchBucket</Code>', s3), 'NoSuchBucket');
    assert.equal(matchFingerprint('<html>hello</html>', s3), undefined);
  });
});
