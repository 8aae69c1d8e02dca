import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { matchesAnyPattern, matchesAssetPattern, parseAssetPattern } from './asset-pattern.ts';

const names = [
  'example.com',
  'www.example.com',
  'a.b.example.com',
  'WWW.Example.COM',
  'example.com.',
  'notexample.com',
  'example.org',
  'api.eu.example.com',
  'api.eu.west.example.com',
  'api.example.com',
  'xn--bcher-kva.example',
  'shop.xn--bcher-kva.example',
  '192.0.2.10',
  '192.0.2.200',
  '198.51.100.1',
  '2001:db8::1',
  '2001:db8:0:0::1',
  '2001:db9::1',
];

/** name → the patterns it matches (every other pattern of the table must not match). */
const patterns: Record<string, string[]> = {
  'example.com': ['example.com', 'example.com.'],
  'EXAMPLE.com.': ['example.com', 'example.com.'],
  '*.example.com': [
    'www.example.com',
    'a.b.example.com',
    'WWW.Example.COM',
    'api.eu.example.com',
    'api.eu.west.example.com',
    'api.example.com',
  ],
  'www.example.com': ['www.example.com', 'WWW.Example.COM'],
  'api.*.example.com': ['api.eu.example.com', 'api.eu.west.example.com'],
  '*.*.example.com': ['a.b.example.com', 'api.eu.example.com', 'api.eu.west.example.com'],
  'example.*': ['example.com', 'example.com.', 'example.org'],
  '*': [
    'example.com',
    'www.example.com',
    'a.b.example.com',
    'WWW.Example.COM',
    'example.com.',
    'notexample.com',
    'example.org',
    'api.eu.example.com',
    'api.eu.west.example.com',
    'api.example.com',
    'xn--bcher-kva.example',
    'shop.xn--bcher-kva.example',
  ],
  '*.xn--bcher-kva.example': ['shop.xn--bcher-kva.example'],
  'XN--BCHER-KVA.example': ['xn--bcher-kva.example'],
  '192.0.2.10': ['192.0.2.10'],
  '192.0.2.0/24': ['192.0.2.10', '192.0.2.200'],
  '0.0.0.0/0': ['192.0.2.10', '192.0.2.200', '198.51.100.1'],
  '2001:DB8::1': ['2001:db8::1', '2001:db8:0:0::1'],
  '2001:db8::/32': ['2001:db8::1', '2001:db8:0:0::1'],
};

describe('asset pattern language: names × patterns', () => {
  for (const [pattern, matching] of Object.entries(patterns)) {
    it(`${pattern} matches exactly ${matching.length} of the ${names.length} names`, () => {
      const parsed = parseAssetPattern(pattern);
      assert.deepEqual(
        names.filter((name) => matchesAssetPattern(parsed, name)),
        matching,
      );
    });
  }
});

describe('asset pattern validation', () => {
  const invalid: Array<[unknown, string]> = [
    ['', 'Asset pattern invalid: the pattern is empty'],
    [' example.com', 'Asset pattern invalid: a pattern contains no spaces'],
    ['www example.com', 'Asset pattern invalid: a pattern contains no spaces'],
    ['bücher.example', 'Asset pattern invalid: a pattern is ASCII (send international names in punycode)'],
    [
      'ap*.example.com',
      'Asset pattern invalid: "ap*.example.com": * must be a whole label (as in *.example.com), not part of the label "ap*"',
    ],
    [
      '**.example.com',
      'Asset pattern invalid: "**.example.com": * must be a whole label (as in *.example.com), not part of the label "**"',
    ],
    ['a..example.com', 'Asset pattern invalid: "a..example.com" has an empty label'],
    ['.example.com', 'Asset pattern invalid: ".example.com" has an empty label'],
    [
      '-a.example.com',
      'Asset pattern invalid: "-a.example.com" has an invalid label "-a" (letters, digits and inner dashes)',
    ],
    [
      'example.com:443',
      'Asset pattern invalid: "example.com:443" has an invalid label "com:443" (letters, digits and inner dashes)',
    ],
    [
      '192.0.2.*',
      'Asset pattern invalid: "192.0.2.*" looks like an IP address with wildcards; IP addresses match exactly or by CIDR (e.g. 192.0.2.0/24)',
    ],
    ['192.0.2.0/33', 'Asset pattern invalid: "192.0.2.0/33" is not a valid CIDR range'],
    ['192.0.2.0/', 'Asset pattern invalid: "192.0.2.0/" is not a valid CIDR range'],
    ['example.com/24', 'Asset pattern invalid: "example.com/24" is not a valid CIDR range'],
    ['2001:db8::/129', 'Asset pattern invalid: "2001:db8::/129" is not a valid CIDR range'],
    ['2001:db8:::1', 'Asset pattern invalid: "2001:db8:::1" is not a valid IP address'],
    [`${'a'.repeat(250)}.com`, 'Asset pattern invalid: a pattern has at most 253 characters'],
    [42, 'Asset pattern invalid: pattern must be a string'],
    [undefined, 'Asset pattern invalid: pattern is required'],
  ];
  for (const [raw, message] of invalid) {
    it(`refuses ${JSON.stringify(raw)} with 9012`, () => {
      assert.throws(
        () => parseAssetPattern(raw),
        (e: unknown) =>
          e instanceof AppError &&
          e.code === 9012 &&
          e.message === message &&
          JSON.stringify(e.parameters) === '["pattern"]',
      );
    });
  }

  it('keeps a canonical lowercase spelling without the trailing dot', () => {
    assert.equal(parseAssetPattern('*.Example.COM.').text, '*.example.com');
    assert.equal(parseAssetPattern('2001:DB8::/32').text, '2001:db8::/32');
  });

  it('matches a list when any pattern matches', () => {
    const list = ['*.example.com', '192.0.2.0/24'].map(parseAssetPattern);
    assert.equal(matchesAnyPattern(list, 'www.example.com'), true);
    assert.equal(matchesAnyPattern(list, '192.0.2.77'), true);
    assert.equal(matchesAnyPattern(list, 'example.com'), false);
    assert.equal(matchesAnyPattern([], 'example.com'), false);
  });

  it('stays fast on many stars against a long name', () => {
    const pattern = parseAssetPattern(`${Array(60).fill('*').join('.')}.b`);
    const name = `${Array(120).fill('a').join('.')}.c`;
    const started = Date.now();
    assert.equal(matchesAssetPattern(pattern, name), false);
    assert.ok(Date.now() - started < 200);
  });
});
