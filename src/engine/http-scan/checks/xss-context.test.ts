import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { breakoutsFor, describeContext, findReflections, hasEffect, type XssContext } from './xss-context.ts';

const P = 'prmtr0a1b2c3d4e';
const C = 'prmtrfeedbeef00';
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page a template makes of a value, and the effect of each breakout for each context of the probe, in order. */
function breakoutResults(template: (value: string) => string): Array<{ payload: string; isEffective: boolean }> {
  const contexts = findReflections(template(P), P);
  assert.ok(contexts.length > 0, 'the probe is reflected');
  return contexts.flatMap((context) =>
    breakoutsFor(context, C).map((b) => ({
      payload: b.payload,
      isEffective: hasEffect(template(b.payload), b.effect),
    })),
  );
}

describe('findReflections', () => {
  it('tells text, raw text and comments apart', () => {
    assert.deepEqual(findReflections(`<p>Hello <b>${P}</b></p>`, P), [{ kind: 'text', tag: 'b' }]);
    assert.deepEqual(findReflections(`<textarea>${P}</textarea><title>x ${P}</title>`, P), [
      { kind: 'raw-text', tag: 'textarea' },
      { kind: 'raw-text', tag: 'title' },
    ]);
    assert.deepEqual(findReflections(`<!-- debug: ${P} -->`, P), [{ kind: 'comment', tag: '' }]);
  });

  it('gives the quote of an attribute value, and the URL context when the value starts with the probe', () => {
    assert.deepEqual(findReflections(`<input value="${P}"><div class='a ${P}'></div><td width=${P}>`, P), [
      { kind: 'attribute', tag: 'input', attribute: 'value', quote: '"' },
      { kind: 'attribute', tag: 'div', attribute: 'class', quote: "'" },
      { kind: 'attribute', tag: 'td', attribute: 'width', quote: '' },
    ]);
    assert.deepEqual(findReflections(`<a href=" ${P}">x</a><a href="/go?to=${P}">y</a>`, P), [
      { kind: 'attribute', tag: 'a', attribute: 'href', quote: '"' },
      { kind: 'url-attribute', tag: 'a', attribute: 'href' },
    ]);
  });

  it('finds the string or code a probe sits in inside scripts and event handlers, not in data blocks', () => {
    const page = `<script>var a = '${P}'; var b = "${P}"; var c = \`x ${P}\`; var n = ${P}; // ${P}
      var r = /${P}/;</script><script type="application/json">{"x": "${P}"}</script><button onclick="go('${P}')">`;
    assert.deepEqual(findReflections(page, P), [
      { kind: 'script-string', tag: 'script', quote: "'" },
      { kind: 'script-string', tag: 'script', quote: '"' },
      { kind: 'script-string', tag: 'script', quote: '`' },
      { kind: 'script-code', tag: 'script', quote: '' },
      { kind: 'script-other', tag: 'script' },
      { kind: 'attribute', tag: 'button', attribute: 'onclick', quote: '"' },
      { kind: 'event-handler', tag: 'button', attribute: 'onclick', quote: "'" },
    ]);
  });

  it('finds nothing where the probe is not', () => {
    assert.deepEqual(findReflections('<p>nothing here</p>', P), []);
  });
});

describe('breakouts: effective on the flawed code, not on the fix', () => {
  it('text: a new element, unless < is encoded', () => {
    assert.deepEqual(
      breakoutResults((v) => `<p>Hello ${v}</p>`),
      [{ payload: `<${C}>`, isEffective: true }],
    );
    assert.deepEqual(
      breakoutResults((v) => `<p>Hello ${escapeHtml(v)}</p>`),
      [{ payload: `<${C}>`, isEffective: false }],
    );
  });

  it('raw text and comments: closed first', () => {
    assert.deepEqual(
      breakoutResults((v) => `<textarea>${v}</textarea>`),
      [{ payload: `</textarea><${C}>`, isEffective: true }],
    );
    // A new tag alone inside a textarea is text, not an element.
    assert.equal(hasEffect(`<textarea><${C}></textarea>`, { kind: 'element', name: C }), false);
    assert.deepEqual(
      breakoutResults((v) => `<!-- ${v} -->`),
      [{ payload: `--><${C}>`, isEffective: true }],
    );
  });

  it('attributes: the quote of the context and a handler, unless the quote is encoded', () => {
    assert.deepEqual(
      breakoutResults((v) => `<input value="${v}">`),
      [{ payload: `" onmouseover="${C}(1)" x="`, isEffective: true }],
    );
    assert.deepEqual(
      breakoutResults((v) => `<div class='${v}'>x</div>`),
      [{ payload: `' onmouseover='${C}(1)' x='`, isEffective: true }],
    );
    assert.deepEqual(
      breakoutResults((v) => `<td width=${v}>x</td>`),
      [{ payload: `x onmouseover=${C}(1) `, isEffective: true }],
    );
    assert.deepEqual(
      breakoutResults((v) => `<input value="${escapeHtml(v)}">`),
      [{ payload: `" onmouseover="${C}(1)" x="`, isEffective: false }],
    );
    // A double-quoted attribute whose encoder forgets the single quote is safe from the double-quote breakout only.
    assert.deepEqual(
      breakoutResults((v) => `<input value="${v.replace(/"/g, '&quot;')}">`),
      [{ payload: `" onmouseover="${C}(1)" x="`, isEffective: false }],
    );
  });

  it('URL attributes: a javascript: scheme, unless the scheme is checked', () => {
    const flawed = (v: string): string => `<a href="${escapeHtml(v)}">go</a>`;
    assert.deepEqual(breakoutResults(flawed), [
      { payload: `" onmouseover="${C}(1)" x="`, isEffective: false },
      { payload: `javascript:${C}(1)`, isEffective: true },
    ]);
    const fixed = (v: string): string => `<a href="${escapeHtml(/^\s*javascript:/i.test(v) ? '/' : v)}">go</a>`;
    assert.deepEqual(
      breakoutResults(fixed).map((r) => r.isEffective),
      [false, false],
    );
  });

  it('scripts: leaving the string as an expression, or closing the script; not when JSON-encoded with < escaped', () => {
    assert.deepEqual(
      breakoutResults((v) => `<script>var user = '${v.replace(/</g, '\\x3c')}';</script>`),
      [
        { payload: `'-${C}(1)-'`, isEffective: true },
        { payload: `</script><${C}>`, isEffective: false },
      ],
    );
    // JSON-encoded but < left alone: the string holds, </script> does not.
    assert.deepEqual(
      breakoutResults((v) => `<script>var user = ${JSON.stringify(v)};</script>`).map((r) => r.isEffective),
      [false, true],
    );
    assert.deepEqual(
      breakoutResults((v) => `<script>var user = ${JSON.stringify(v).replace(/</g, '\\u003c')};</script>`).map(
        (r) => r.isEffective,
      ),
      [false, false],
    );
    assert.deepEqual(breakoutResults((v) => `<script>var n = ${v};</script>`)[0], {
      payload: `1-${C}(1)-1`,
      isEffective: true,
    });
  });

  it('event handlers: the entity-decoded value is code, so an encoded quote still breaks out', () => {
    const results = breakoutResults((v) => `<button onclick="go('${escapeHtml(v)}')">x</button>`);
    assert.deepEqual(results, [
      { payload: `" onmouseover="${C}(1)" x="`, isEffective: false },
      { payload: `'-${C}(1)-'`, isEffective: true },
    ]);
  });
});

describe('hasEffect', () => {
  it('never counts the canary as text, an attribute value or a string', () => {
    assert.equal(hasEffect(`<p>&lt;${C}&gt;</p>`, { kind: 'element', name: C }), false);
    assert.equal(
      hasEffect(`<input value="&quot; onmouseover=&quot;${C}(1)&quot;">`, {
        kind: 'attribute',
        name: 'onmouseover',
        value: `${C}(1)`,
      }),
      false,
    );
    assert.equal(
      hasEffect(`<script>var a = "${C}(1)"; // ${C}(1)\n</script>`, { kind: 'script-call', name: C }),
      false,
    );
    assert.equal(hasEffect(`<a href="/x?javascript:${C}(1)">x</a>`, { kind: 'javascript-url', name: C }), false);
    assert.equal(hasEffect(`<a href=" JavaScript:${C}(1)">x</a>`, { kind: 'javascript-url', name: C }), true);
  });
});

describe('describeContext', () => {
  it('names each context for the finding', () => {
    const contexts: XssContext[] = [
      { kind: 'attribute', tag: 'input', attribute: 'value', quote: '"' },
      { kind: 'url-attribute', tag: 'a', attribute: 'href' },
      { kind: 'script-string', tag: 'script', quote: "'" },
    ];
    assert.deepEqual(contexts.map(describeContext), [
      'the double-quoted value of the value attribute of a <input> element',
      'the URL attribute href of a <a> element, at the start of its value',
      'a single-quoted string in a <script> block',
    ]);
  });
});
