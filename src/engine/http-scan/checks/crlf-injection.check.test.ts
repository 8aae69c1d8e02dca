import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crlfPayload, findInjectedHeader, injectedHeaderName, lineBreaks } from './crlf-injection.check.ts';

describe('CRLF injection payloads', () => {
  it('writes each line break as it must travel: %0D%0A, %250d%250a and %E5%98%8D%E5%98%8A once in a query', () => {
    const name = injectedHeaderName();
    assert.match(name, /^X-Prmtr-[0-9a-f]{10}$/);
    assert.notEqual(injectedHeaderName(), name, 'unique per payload');
    const encoded = lineBreaks.map((b) => new URLSearchParams({ v: `en${crlfPayload(b, 'X-Prmtr-1')}` }).toString());
    assert.deepEqual(encoded, [
      'v=en%0D%0AX-Prmtr-1%3A+1',
      'v=en%250d%250aX-Prmtr-1%3A+1',
      'v=en%E5%98%8D%E5%98%8AX-Prmtr-1%3A+1',
    ]);
    // The Unicode pair narrowed to one byte per character is CR LF.
    assert.equal(Buffer.from(lineBreaks[2]!.text, 'latin1').toString('hex'), '0d0a');
  });

  it('finds the injected header only as a header of its own', () => {
    const name = 'X-Prmtr-0123456789';
    assert.deepEqual(
      findInjectedHeader(
        [
          { name: 'location', value: '/a' },
          { name: 'x-prmtr-0123456789', value: '1' },
        ],
        name,
      ),
      { name: 'x-prmtr-0123456789', value: '1' },
    );
    assert.deepEqual(
      findInjectedHeader([{ name: 'x-prmtr-0123456789', value: '1"' }], name)?.value,
      '1"',
      'the rest of the template line follows',
    );
    // Encoded into another header's value, or another marker: not injected.
    assert.equal(
      findInjectedHeader([{ name: 'location', value: '/a?lang=en%0D%0AX-Prmtr-0123456789:%201' }], name),
      undefined,
    );
    assert.equal(
      findInjectedHeader([{ name: 'location', value: '/a?lang=en\\r\\nX-Prmtr-0123456789: 1' }], name),
      undefined,
    );
    assert.equal(findInjectedHeader([{ name: 'x-prmtr-9999999999', value: '1' }], name), undefined);
    assert.equal(findInjectedHeader([{ name: 'x-prmtr-0123456789', value: 'other' }], name), undefined);
  });
});
