import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  extractPageLinks,
  formSubmission,
  formSubmissions,
  formSubmissionUrl,
  maxFormVariants,
  type FormLink,
} from './html-links.ts';
import { parseMultipart } from './multipart.ts';

const page = `<!doctype html><html><head><title> Index of /files </title>
<link rel="stylesheet" href="/style.css"><script src="/app.js"></script></head>
<body><a href="/a?x=1#top">A</a><A HREF="b.html">B</A><a>none</a><iframe src="/frame"></iframe>
<form action="/search" method="GET"><input name="q"><input type="email" name="contact"><input type="hidden" name="lang" value="en">
<select name="sort"><option value="date">Date</option><option value="name">Name</option></select><textarea name="note"></textarea>
<input type="submit" name="go" value="Go"></form>
<form action="/login" method="post"><input name="user"></form></body></html>`;

describe('extractPageLinks', () => {
  it('collects anchors, scripts, stylesheets, frames and the title', () => {
    const links = extractPageLinks(page);
    assert.deepEqual(links.links, ['/style.css', '/app.js', '/a?x=1#top', 'b.html', '/frame']);
    assert.equal(links.title, 'Index of /files');
  });

  it('fills GET forms with sensible values, the default button included, and gives no URL for a POST form', () => {
    const { forms } = extractPageLinks(page);
    assert.equal(forms.length, 2);
    const base = new URL('http://127.0.0.1/dir/page');
    const url = formSubmissionUrl(forms[0]!, base);
    assert.equal(
      url?.href,
      'http://127.0.0.1/search?q=perimeter&contact=scanner%40example.com&lang=en&sort=date&note=perimeter&go=Go',
    );
    assert.equal(formSubmissionUrl(forms[1]!, base), undefined);
  });
});

const base = new URL('http://127.0.0.1/app/page');
const onlyForm = (html: string): FormLink => {
  const { forms } = extractPageLinks(html);
  assert.equal(forms.length, 1);
  return forms[0]!;
};
const bodyOf = (html: string): string => formSubmission(onlyForm(html), base)?.body ?? '';

describe('forms as a browser builds their entry list', () => {
  it('sends the submit button clicked: named inputs (value default Submit), named buttons (value default empty), image coordinates', () => {
    assert.equal(
      bodyOf('<form method="post"><input name="id" value="1"><input type="submit" name="Submit"></form>'),
      'id=1&Submit=Submit',
    );
    assert.equal(
      bodyOf('<form method="post"><input name="id" value="1"><button name="go">Go</button></form>'),
      'id=1&go=',
    );
    assert.equal(
      bodyOf(
        '<form method="post"><button type="button" name="no">x</button><input type="image" name="map" alt="Go"></form>',
      ),
      'map.x=1&map.y=1',
    );
    // An unnamed button adds nothing; reset and plain buttons are not submit buttons.
    assert.equal(
      bodyOf('<form method="post"><input name="a" value="1"><input type="submit" value="Send"></form>'),
      'a=1',
    );
    assert.deepEqual(
      onlyForm('<form><input type="reset" name="r"><button type="reset" name="r2"></button></form>').buttons,
      [],
    );
  });

  it('makes each submit button a variant, the first the default, and applies formaction, formmethod and formenctype', () => {
    const form = onlyForm(
      '<form action="/save" method="post"><input name="t" value="x">' +
        '<button name="preview" value="1">Preview</button>' +
        '<button name="publish" value="1" formaction="/publish" formmethod="get">Publish</button>' +
        '<input type="submit" name="up" value="Upload" formenctype="multipart/form-data">' +
        '<button name="preview" value="1">Preview again</button></form>',
    );
    const variants = formSubmissions(form, base);
    assert.deepEqual(
      variants.map((v) => `${v.method} ${v.url.pathname}${v.url.search} ${v.body ?? ''}`),
      ['POST /save t=x&preview=1', 'GET /publish?t=x&publish=1 ', `POST /save ${variants[2]!.body}`],
    );
    assert.deepEqual(
      variants.map((v) => v.buttonLabel),
      ['Preview', 'Publish', 'Upload'],
    );
    assert.deepEqual(parseMultipart(variants[2]!.body!, variants[2]!.contentType!)?.fields, [
      ['t', 'x'],
      ['up', 'Upload'],
    ]);
    assert.deepEqual(formSubmission(form, base), variants[0]);
    // A table of rows with a button each: the first maxFormVariants.
    const rows = Array.from({ length: 25 }, (_, i) => `<button name="edit" value="${i}">Edit</button>`).join('');
    assert.equal(formSubmissions(onlyForm(`<form method="post">${rows}</form>`), base).length, maxFormVariants);
    // No button: one variant that sends the fields alone.
    assert.deepEqual(
      formSubmissions(onlyForm('<form method="post"><input name="a" value="1"></form>'), base).map((v) => v.body),
      ['a=1'],
    );
  });

  it('takes buttons and fields outside the form through their form attribute', () => {
    const { forms } = extractPageLinks(
      '<input name="early" value="e" form="f"><form id="f" method="post"><input name="a" value="1"></form>' +
        '<button name="go" value="g" form="f">Go</button><input name="other" form="missing"><form><input name="b"></form>',
    );
    assert.equal(forms.length, 2);
    assert.equal(formSubmission(forms[0]!, base)?.body, 'a=1&early=e&go=g');
    assert.deepEqual(forms[1]!.fields, [['b', 'perimeter']]);
  });

  it('sends hidden values as given (even empty), the selected options, checked boxes and radios, and textarea text', () => {
    const form = onlyForm(
      '<form><input type="hidden" name="token" value=""><input type="hidden" name="step" value="2">' +
        '<select name="format"><option value="csv">CSV</option><option value="xml" selected>XML</option></select>' +
        '<select name="size"><option disabled>pick</option><option> Large  one </option></select>' +
        '<select name="tags" multiple><option selected>a</option><option>b</option><option selected value="c">C</option></select>' +
        '<select name="none" multiple><option>x</option></select><select name="empty"></select>' +
        '<input type="checkbox" name="news"><input type="checkbox" name="terms" value="yes" checked><input type="checkbox" name="ok" checked>' +
        '<input type="radio" name="plan" value="free"><input type="radio" name="plan" value="pro" checked><input type="radio" name="plan" value="max">' +
        '<input type="radio" name="color" value="red"><input type="radio" name="color" value="blue">' +
        '<textarea name="bio">\nI &amp; you</textarea><textarea name="blank"></textarea></form>',
    );
    assert.deepEqual(form.fields, [
      ['token', ''],
      ['step', '2'],
      ['format', 'xml'],
      ['size', 'Large one'],
      ['tags', 'a'],
      ['tags', 'c'],
      ['empty', 'perimeter'],
      ['terms', 'yes'],
      ['ok', 'on'],
      ['plan', 'pro'],
      ['color', 'red'],
      ['bio', 'I & you'],
      ['blank', 'perimeter'],
    ]);
  });

  it('leaves out disabled controls, those of a disabled fieldset, and disabled buttons', () => {
    const form = onlyForm(
      '<form method="post"><input name="a" value="1"><input name="b" disabled><select name="s" disabled><option>x</option></select>' +
        '<textarea name="t" disabled>x</textarea><fieldset disabled><input name="c"><button name="in">x</button></fieldset>' +
        '<input type="checkbox" name="k" checked disabled><input type="submit" name="off" disabled><input type="submit" name="on" value="On"></form>',
    );
    assert.deepEqual(form.fields, [['a', '1']]);
    assert.equal(formSubmission(form, base)?.body, 'a=1&on=On');
  });

  it('records file inputs and the encoding, and sends a multipart body with a harmless text file', () => {
    const form = onlyForm(
      '<form method="POST" enctype="Multipart/Form-Data" action="/upload"><input name="caption" value="hi">' +
        '<input type="file" name="picture" accept="image/*"><input type="file" name="doc"><input type="file" name="off" disabled>' +
        '<input type="submit" name="upload" value="Upload"></form>',
    );
    assert.equal(form.enctype, 'multipart/form-data');
    assert.deepEqual(form.fileFields, [
      { name: 'picture', accept: 'image/*' },
      { name: 'doc', accept: '' },
    ]);
    assert.deepEqual(form.fields, [['caption', 'hi']]);
    const submission = formSubmission(form, base)!;
    assert.match(submission.contentType ?? '', /^multipart\/form-data; boundary=/);
    const parsed = parseMultipart(submission.body!, submission.contentType!);
    assert.deepEqual(parsed?.fields, [
      ['caption', 'hi'],
      ['upload', 'Upload'],
    ]);
    assert.deepEqual(
      parsed?.files.map((f) => `${f.field} ${f.filename} ${f.contentType}`),
      ['picture perimeter.txt text/plain', 'doc perimeter.txt text/plain'],
    );
    // Urlencoded, a file input sends its file's name; the encoding is urlencoded when absent.
    const plain = onlyForm('<form method="post"><input type="file" name="f"></form>');
    assert.equal(plain.enctype, 'application/x-www-form-urlencoded');
    assert.equal(formSubmission(plain, base)?.body, 'f=perimeter.txt');
  });

  it('submits GET and POST forms only, to http(s) actions', () => {
    assert.equal(formSubmission(onlyForm('<form method="dialog"><input name="a"></form>'), base), undefined);
    assert.equal(formSubmission(onlyForm('<form method="put"><input name="a"></form>'), base), undefined);
    assert.equal(
      formSubmission(onlyForm('<form action="javascript:void(0)"><input name="a"></form>'), base),
      undefined,
    );
    assert.equal(
      formSubmissionUrl(onlyForm('<form action="/s?old=1#x"><input name="a" value="1"></form>'), base)?.href,
      'http://127.0.0.1/s?a=1',
    );
  });
});
