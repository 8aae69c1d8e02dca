import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsTokens, stringValue, tokenAt } from './js-tokens.ts';

const kinds = (code: string): string[] => [...jsTokens(code)].map((t) => `${t.type}:${t.text}`);

describe('jsTokens', () => {
  it('splits code into strings, templates, comments, regexes, identifiers, numbers and punctuators', () => {
    assert.deepEqual(kinds('var a = "x\\"y" + `t${b}` / 2; // end'), [
      'identifier:var',
      'identifier:a',
      'punctuator:=',
      'string:"x\\"y"',
      'punctuator:+',
      'template:`t${b}`',
      'punctuator:/',
      'number:2',
      'punctuator:;',
      'comment:// end',
    ]);
  });

  it('tells a regular expression from a division by what precedes the slash', () => {
    assert.deepEqual(kinds("x = /'[/]/g.test(s); y = a / b / c"), [
      'identifier:x',
      'punctuator:=',
      "regex:/'[/]/g",
      'punctuator:.',
      'identifier:test',
      'punctuator:(',
      'identifier:s',
      'punctuator:)',
      'punctuator:;',
      'identifier:y',
      'punctuator:=',
      'identifier:a',
      'punctuator:/',
      'identifier:b',
      'punctuator:/',
      'identifier:c',
    ]);
  });

  it('ends an unterminated string at the end of its line, as a browser would give up on it', () => {
    assert.deepEqual(kinds("a = 'open\nb"), ['identifier:a', 'punctuator:=', "string:'open", 'identifier:b']);
  });
});

describe('tokenAt and stringValue', () => {
  it('finds the token covering an offset, and reads string values with their escapes', () => {
    const code = "go('a\\'b\\u0041', `t`)";
    assert.equal(tokenAt(code, 5)?.type, 'string');
    assert.equal(tokenAt(code, 0)?.text, 'go');
    assert.equal(tokenAt(code, 16), undefined);
    const [, , text, , template] = [...jsTokens(code)];
    assert.equal(stringValue(text!), "a'bA");
    assert.equal(stringValue(template!), 't');
    assert.equal(stringValue([...jsTokens('`a${b}`')][0]!), undefined);
  });
});
