import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nameLabels, ownerName, parentName, rangeUnder, reverseName } from './dns-names.ts';
import { RootMatcher } from './root-matcher.ts';

describe('discovered names: labels with escaped dots', () => {
  it('splits labels only at dots no backslash escapes', () => {
    assert.deepEqual(nameLabels('www.example.com'), ['www', 'example', 'com']);
    assert.deepEqual(nameLabels('foo\\.bar.example.com'), ['foo\\.bar', 'example', 'com']);
    assert.deepEqual(nameLabels('a\\\\.example.com'), ['a\\\\', 'example', 'com']);
    assert.deepEqual(nameLabels('a\\092.b'), ['a\\092', 'b']);
    assert.deepEqual(nameLabels('x.com\\.'), ['x', 'com\\.']);
  });

  it('walks up one label at a time', () => {
    assert.equal(parentName('www.example.com'), 'example.com');
    assert.equal(parentName('foo\\.example.com'), 'com');
    assert.equal(parentName('foo\\.example'), undefined);
    assert.equal(parentName('com'), undefined);
  });

  it('lower-cases and drops a final separating dot, keeping an escaped one', () => {
    assert.equal(ownerName('WWW.Example.COM.'), 'www.example.com');
    assert.equal(ownerName('x.com\\.'), 'x.com\\.');
    assert.equal(ownerName('x.com\\\\.'), 'x.com\\\\');
  });

  it('reverses labels, not dots, and is its own inverse', () => {
    assert.equal(reverseName('www.example.com'), 'com.example.www');
    assert.equal(reverseName('foo\\.example.com'), 'com.foo\\.example');
    for (const name of ['www.example.com', 'foo\\.example.com', 'a\\\\.b.c', 'x\\.y\\.z'])
      assert.equal(reverseName(reverseName(name)), name);
    const { from, to } = rangeUnder('example.com');
    const key = reverseName('foo\\.example.com');
    assert.equal(key > from && key < to, false, 'foo\\.example.com is not under example.com');
    const inside = reverseName('a\\.b.example.com');
    assert.equal(inside > from && inside < to, true, 'a\\.b.example.com is under example.com');
  });

  it('matches a name to the most specific root label by label', () => {
    const roots = new RootMatcher([
      { id: 1, name: 'example.com', status: 'verified' },
      { id: 2, name: 'b.example.com', status: 'verified' },
    ]);
    assert.equal(roots.match('www.b.example.com')?.id, 2);
    assert.equal(roots.match('a\\.b.example.com')?.id, 1);
    assert.equal(roots.match('foo\\.example.com'), undefined);
    assert.equal(roots.match('example.com')?.id, 1);
    assert.equal(roots.match('badexample.com'), undefined);
  });
});
