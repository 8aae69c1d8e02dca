import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ZoneSyntaxError } from './zone-record.ts';
import { ZoneTokenizer, type ZoneEntry } from './zone-tokenizer.ts';

/** Tokenizes text fed in chunks of `size` characters (1 = character by character). */
function tokenize(text: string, size = text.length || 1): ZoneEntry[] {
  const tokenizer = new ZoneTokenizer();
  const out: ZoneEntry[] = [];
  for (let i = 0; i < text.length; i += size) tokenizer.push(text.slice(i, i + size), out);
  tokenizer.end(out);
  return out;
}

const simple = (entries: ZoneEntry[]) =>
  entries.map((entry) => ({ line: entry.line, blank: entry.isOwnerBlank, tokens: entry.tokens }));

function assertSyntaxError(text: string, line: number, message: RegExp): void {
  assert.throws(
    () => tokenize(text),
    (err: unknown) => {
      assert.ok(err instanceof ZoneSyntaxError, String(err));
      assert.equal(err.line, line);
      assert.match(err.message, message);
      return true;
    },
  );
}

describe('zone tokenizer', () => {
  it('splits lines into tokens and drops comments and blank lines', () => {
    const entries = tokenize('www  IN\tA 192.0.2.1 ; the web\n\n; only a comment\n   \nmail MX 10 mx\n');
    assert.deepEqual(simple(entries), [
      { line: 1, blank: false, tokens: ['www', 'IN', 'A', '192.0.2.1'] },
      { line: 5, blank: false, tokens: ['mail', 'MX', '10', 'mx'] },
    ]);
  });

  it('marks entries whose line starts with blank space (the previous owner)', () => {
    const entries = tokenize('a A 1.2.3.4\n\tA 1.2.3.5\n  ; comment\n  TXT x\n');
    assert.deepEqual(
      entries.map((entry) => entry.isOwnerBlank),
      [false, true, true],
    );
  });

  it('joins the lines inside parentheses, nested or not, keeping each token line', () => {
    const entries = tokenize('@ SOA ns hm ( 1 ; serial\n  2 (3)\n  4 5 )\nnext A 1.1.1.1\n');
    assert.equal(entries.length, 2);
    assert.deepEqual(entries[0]?.tokens, ['@', 'SOA', 'ns', 'hm', '1', '2', '3', '4', '5']);
    assert.deepEqual(entries[0]?.lines, [1, 1, 1, 1, 1, 2, 2, 3, 3]);
    assert.equal(entries[1]?.line, 4);
  });

  it('reads quoted strings with escapes, semicolons and parentheses inside as text', () => {
    const [entry] = tokenize('t TXT "a \\"b\\" ; (c)" plain\\ word "" x\\059y\n');
    assert.deepEqual(entry?.tokens, ['t', 'TXT', '"a \\"b\\" ; (c)', 'plain\\ word', '"', 'x\\059y']);
  });

  it('starts a new token at a quote, as BIND does', () => {
    const [entry] = tokenize('t TXT a"b"c "d"e\n');
    assert.deepEqual(entry?.tokens, ['t', 'TXT', 'a', '"b', 'c', '"d', 'e']);
  });

  it('ends tokens at parentheses and comments without blanks', () => {
    const [entry] = tokenize('a A(1.2.3.4)x;c\n');
    assert.deepEqual(entry?.tokens, ['a', 'A', '1.2.3.4', 'x']);
  });

  it('gives the same entries whatever the chunk boundaries', () => {
    const text = '$ORIGIN example.com.\n@ SOA ns hm (\n 1 2 3 4 5 )\r\nt TXT "x ; y" \\(\n last A 1.2.3.4';
    const whole = tokenize(text);
    for (const size of [1, 2, 3, 7, 64]) assert.deepEqual(tokenize(text, size), whole, `chunk size ${size}`);
    assert.equal(whole.length, 4);
    assert.deepEqual(whole[3]?.tokens, ['last', 'A', '1.2.3.4']);
    assert.equal(whole[3]?.isOwnerBlank, true);
  });

  it('accepts CRLF line ends and a last line without newline', () => {
    assert.deepEqual(simple(tokenize('a A 1.2.3.4\r\nb A 1.2.3.5')), [
      { line: 1, blank: false, tokens: ['a', 'A', '1.2.3.4'] },
      { line: 2, blank: false, tokens: ['b', 'A', '1.2.3.5'] },
    ]);
  });

  it('names the line of an unclosed parenthesis', () => {
    assertSyntaxError('a A 1.2.3.4\nb ( A\n 1.2.3.4\n', 2, /unbalanced parentheses: "\(" is never closed/);
  });

  it('names the line of a closing parenthesis without an opening one', () => {
    assertSyntaxError('a A 1.2.3.4\nb A 1.2.3.4 )\n', 2, /"\)" without "\("/);
  });

  it('refuses a quoted string that does not end on its line', () => {
    assertSyntaxError('a A 1.2.3.4\nt TXT "abc\ndef"\n', 2, /unbalanced quotes/);
    assertSyntaxError('t TXT "abc\\"\n', 1, /unbalanced quotes/);
  });

  it('refuses a backslash at the end of a line', () => {
    assertSyntaxError('a A 1.2.3.4\nt TXT abc\\\n', 2, /backslash at the end of a line/);
  });

  it('bounds the memory of one line and of one entry', () => {
    const tokenizer = new ZoneTokenizer({ maxLineChars: 100, maxEntryChars: 60 });
    assert.throws(() => tokenizer.push('x'.repeat(101), []), /line 1: line longer than 100 characters/);
    const other = new ZoneTokenizer({ maxLineChars: 100, maxEntryChars: 60 });
    const long = `a TXT (\n${'"abcdefghij"\n'.repeat(7)})\n`;
    assert.throws(() => other.push(long, []), /line 1: record longer than 60 characters/);
  });
});
