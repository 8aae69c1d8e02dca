import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultBoundary, harmlessFile, multipartBody, multipartBoundary, parseMultipart } from './multipart.ts';

describe('multipartBody', () => {
  it('writes each field then each file as a form-data part, CRLF line ends, closed by the final delimiter', () => {
    const { contentType, text } = multipartBody(
      [
        ['caption', 'holiday'],
        ['Submit', 'Upload'],
      ],
      [harmlessFile('picture')],
      'XyZ',
    );
    assert.equal(contentType, 'multipart/form-data; boundary=XyZ');
    assert.equal(
      text,
      '--XyZ\r\nContent-Disposition: form-data; name="caption"\r\n\r\nholiday\r\n' +
        '--XyZ\r\nContent-Disposition: form-data; name="Submit"\r\n\r\nUpload\r\n' +
        '--XyZ\r\nContent-Disposition: form-data; name="picture"; filename="perimeter.txt"\r\nContent-Type: text/plain\r\n\r\n' +
        'perimeter scanner test file\r\n\r\n' +
        '--XyZ--\r\n',
    );
  });

  it('uses a fixed default boundary and escapes quotes and line breaks in names as the HTML standard does', () => {
    const { contentType, text } = multipartBody([['a"b\nc', 'line1\nline2']], []);
    assert.equal(contentType, `multipart/form-data; boundary=${defaultBoundary}`);
    assert.ok(text.includes('name="a%22b%0D%0Ac"\r\n\r\nline1\r\nline2\r\n'));
  });
});

describe('parseMultipart', () => {
  it('round-trips fields (empty ones and repeated names included) and files', () => {
    const fields: Array<[string, string]> = [
      ['token', ''],
      ['m', 'a'],
      ['m', 'c'],
      ['note', "it's <b>bold</b>\r\nsecond line"],
    ];
    const files = [harmlessFile('up'), { field: 'doc', filename: 'x.csv', contentType: 'text/csv', content: 'a,b' }];
    const { contentType, text } = multipartBody(fields, files);
    assert.deepEqual(parseMultipart(text, contentType), { fields, files });
  });

  it('reads a browser-built body: quoted boundary, a part without Content-Type, LF line ends', () => {
    const text =
      '--b1\nContent-Disposition: form-data; name="q"\n\nshoe\n--b1\nContent-Disposition: form-data; name="f"; filename="a.txt"\n\nhi\n--b1--\n';
    assert.deepEqual(parseMultipart(text, 'multipart/form-data; boundary="b1"'), {
      fields: [['q', 'shoe']],
      files: [{ field: 'f', filename: 'a.txt', contentType: 'text/plain', content: 'hi' }],
    });
  });

  it('refuses other types, a missing boundary, an unclosed body and parts that are not form-data', () => {
    const { contentType, text } = multipartBody([['a', '1']], []);
    assert.equal(parseMultipart(text, 'application/x-www-form-urlencoded'), undefined);
    assert.equal(parseMultipart(text, 'multipart/form-data'), undefined);
    assert.equal(parseMultipart(text.replace(/--\r\n$/, '\r\n'), contentType), undefined);
    assert.equal(parseMultipart('a=1&b=2', contentType), undefined);
    assert.equal(
      parseMultipart('--z\r\nContent-Type: text/plain\r\n\r\nx\r\n--z--\r\n', 'multipart/form-data; boundary=z'),
      undefined,
    );
  });

  it('finds the boundary of a multipart/form-data type only', () => {
    assert.equal(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary=abc'), 'abc');
    assert.equal(multipartBoundary('multipart/mixed; boundary=abc'), undefined);
    assert.equal(multipartBoundary(undefined), undefined);
  });
});
