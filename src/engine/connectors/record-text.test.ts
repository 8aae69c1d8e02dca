import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { absoluteName, ownerName, presentationData, quotedString, quotedText } from './record-text.ts';

describe('record-text (presentation form shared by the adapters)', () => {
  it('writes targets absolute and owners without the final dot, in lower case', () => {
    assert.equal(absoluteName(' Mail.Example.COM '), 'mail.example.com.');
    assert.equal(absoluteName('ns1.example.net.'), 'ns1.example.net.');
    assert.equal(absoluteName(''), '.');
    assert.equal(ownerName('WWW.Example.com.'), 'www.example.com');
    assert.equal(ownerName('example.com'), 'example.com');
  });

  it('quotes TXT as character-strings of at most 255 characters, escaping quotes and backslashes', () => {
    assert.equal(quotedString('say "hi" \\o/'), '"say \\"hi\\" \\\\o/"');
    assert.equal(quotedText('v=spf1 -all'), '"v=spf1 -all"');
    assert.equal(quotedText(' "already" "split" '), '"already" "split"');
    assert.equal(quotedText(''), '""');
    const long = 'k'.repeat(300);
    assert.equal(quotedText(long), `"${'k'.repeat(255)}" "${'k'.repeat(45)}"`);
  });

  it('renders text RDATA by type and skips pseudo-types', () => {
    assert.equal(presentationData('MX', '10 Mail.example.com'), '10 mail.example.com.');
    assert.equal(presentationData('SRV', '10 5 5060 sip.example.com.'), '10 5 5060 sip.example.com.');
    assert.equal(presentationData('CAA', '0 issue letsencrypt.org'), '0 issue "letsencrypt.org"');
    assert.equal(presentationData('CNAME', 'target.example.net'), 'target.example.net.');
    assert.equal(presentationData('A', ' 192.0.2.1 '), '192.0.2.1');
    assert.equal(presentationData('ALIAS', 'lb.example.net'), undefined);
  });
});
