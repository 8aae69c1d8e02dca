import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSelector, selectElements } from './css-selector.ts';
import { collectGlobals, type GlobalValue } from './js-globals.ts';
import { readPageSignals, signalLimits } from './page-signals.ts';
import { parseRulePattern, resolveVersion } from './rule-pattern.ts';
import { compileRuleSet } from './rule-set.ts';
import { detectTechnologies } from './technology-matcher.ts';

const categories = {
  '1': { name: 'CMS' },
  '22': { name: 'Web servers' },
  '27': { name: 'Programming languages' },
  '59': { name: 'JavaScript libraries' },
};

describe('rule patterns', () => {
  it('parses version and confidence tags and fills version templates', () => {
    const pattern = parseRulePattern('nginx(?:/([\\d.]+))?\\;version:\\1\\;confidence:50')!;
    assert.equal(pattern.confidence, 50);
    assert.equal(resolveVersion(pattern.version, pattern.regex.exec('nginx/1.25.3')!), '1.25.3');
    assert.equal(resolveVersion(pattern.version, pattern.regex.exec('nginx')!), undefined);
    const ternary = parseRulePattern('skin/frontend/(?:default|(enterprise))\\;version:\\1?Enterprise:Community')!;
    assert.equal(resolveVersion(ternary.version, ternary.regex.exec('/skin/frontend/enterprise/x.js')!), 'Enterprise');
    assert.equal(resolveVersion(ternary.version, ternary.regex.exec('/skin/frontend/default/x.js')!), 'Community');
    assert.equal(parseRulePattern('(unclosed'), undefined);
  });
});

describe('globals in inline scripts', () => {
  it('records what the source assigns globally, and nothing declared inside a function', () => {
    const out = new Map<string, GlobalValue>();
    collectGlobals(
      'window.Foo = {version: "1.2.3", init() {}, nested: {build: 7}}; var Bar = make(); function Baz() {} (function () { var Local = 1; window.Seen = "yes"; })(); Bar.version = "4.5";',
      out,
    );
    assert.equal(out.get('Foo.version'), '1.2.3');
    assert.equal(out.get('Foo.init'), true);
    assert.equal(out.get('Foo.nested.build'), 7);
    assert.equal(out.get('Bar'), true);
    assert.equal(out.get('Bar.version'), '4.5');
    assert.equal(out.get('Baz'), true);
    assert.equal(out.get('Seen'), 'yes');
    assert.equal(out.has('Local'), false);
  });
});

describe('css selectors', () => {
  it('matches attributes, classes, ids and the descendant and child combinators', () => {
    const signals = readPageSignals(
      'http://x/',
      [{ name: 'content-type', value: 'text/html' }],
      '<div id="app" class="a b"><p><link href="/fa/5.1/x.css"></p><span data-x="1">hi</span></div>',
    );
    const count = (selector: string) =>
      selectElements(compileSelector(selector)!, signals.elements, signals.elementsByTag).length;
    assert.equal(count('div#app.b'), 1);
    assert.equal(count("div link[href*='/fa/']"), 1);
    assert.equal(count('div > link'), 0);
    assert.equal(count('div > span[data-x="1"], p'), 2);
    assert.equal(compileSelector('a:not(.x)'), undefined);
    assert.equal(compileSelector('a + b'), undefined);
  });
});

describe('matching a compiled rule set', () => {
  const rules = compileRuleSet(
    {
      Nginx: { cats: [22], headers: { Server: 'nginx(?:/([\\d.]+))?\\;version:\\1' } },
      PHP: { cats: [27], headers: { 'X-Powered-By': '^php/?([\\d.]+)?\\;version:\\1' } },
      CMSOne: {
        cats: [1],
        meta: { generator: '^CMSOne ([\\d.]+)\\;version:\\1' },
        implies: ['PHP\\;confidence:50'],
        excludes: ['CMSTwo'],
      },
      CMSTwo: { cats: [1], html: ['<div class="cms"'] },
      Plugin: { cats: [59], scriptSrc: ['plugin\\.js'], requires: ['CMSOne'] },
      Orphan: { cats: [59], scriptSrc: ['orphan\\.js'], requires: ['Missing'] },
      Weak: { cats: [59], cookies: { weak_id: '\\;confidence:25', 'weak_[0-9]+': '\\;confidence:25' } },
      Lib: { cats: [59], js: { 'Lib.version': '^(.+)$\\;version:\\1' } },
    },
    categories,
  );
  const detect = (headers: Array<{ name: string; value: string }>, html: string) =>
    detectTechnologies(
      rules,
      readPageSignals('http://x/', [{ name: 'content-type', value: 'text/html' }, ...headers], html),
    );

  it('finds versions, resolves implies with their confidence, excludes and requires', () => {
    const found = detect(
      [
        { name: 'server', value: 'nginx/1.25.3' },
        { name: 'set-cookie', value: 'weak_id=1' },
        { name: 'set-cookie', value: 'weak_42=1' },
      ],
      '<meta name="generator" content="CMSOne 3.1"><div class="cms"></div><script src="/plugin.js"></script><script src="/orphan.js"></script><script>var Lib = {version: "0.9"};</script>',
    );
    assert.deepEqual(found, [
      { name: 'CMSOne', version: '3.1', categories: ['CMS'], confidence: 100 },
      { name: 'Lib', version: '0.9', categories: ['JavaScript libraries'], confidence: 100 },
      { name: 'Nginx', version: '1.25.3', categories: ['Web servers'], confidence: 100 },
      { name: 'PHP', version: null, categories: ['Programming languages'], confidence: 50 },
      { name: 'Plugin', version: null, categories: ['JavaScript libraries'], confidence: 100 },
      { name: 'Weak', version: null, categories: ['JavaScript libraries'], confidence: 50 },
    ]);
  });

  it('finds nothing on a page without signals, and caps what the patterns scan', () => {
    assert.deepEqual(detect([], '<p>hello</p>'), []);
    const signals = readPageSignals(
      'http://x/',
      [{ name: 'content-type', value: 'text/html' }],
      `<p>${'a'.repeat(signalLimits.html * 2)}</p>`,
    );
    assert.equal(signals.html.length, signalLimits.html);
  });
});
