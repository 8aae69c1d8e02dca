import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventCatalogue } from '../../events/event-catalogue.ts';
import type { FormatEvent } from './format.types.ts';
import { emailMessage, escapeHtml, subjectMax } from './email.ts';

const context = { teamName: 'Acme', webhookName: 'SOC mail', consoleBase: 'https://perimeter.example.net' };

function example(kind: string, patch: Record<string, unknown> = {}, timestamp = '2026-11-29T08:00:00Z'): FormatEvent {
  const data = eventCatalogue.find((d) => d.kind === kind)?.example ?? {};
  return { id: `evt-${kind}-${timestamp}`, type: kind, timestamp, data: { ...data, ...patch } };
}

/** What no e-mail of this format may hold: remote resources, scripts, style sheets. */
function assertSelfContained(html: string): void {
  assert.doesNotMatch(html, /<img|<script|<link|<style|<iframe|src=|url\(/i);
}

describe('emailMessage', () => {
  it('renders every catalogue example alone: subject, text and HTML say the event', () => {
    for (const doc of eventCatalogue) {
      const message = emailMessage([example(doc.kind)], context);
      assert.ok(message.subject.startsWith('[perimeter] '), doc.kind);
      assert.ok(message.subject.length <= subjectMax, doc.kind);
      const title = message.subject.slice('[perimeter] '.length);
      assert.ok(message.text.startsWith(`${title}\n`), doc.kind);
      assert.ok(message.html.includes(escapeHtml(title)), doc.kind);
      assertSelfContained(message.html);
    }
  });

  it('writes the facts and the link in both bodies', () => {
    const message = emailMessage([example('vulnerability.new')], context);
    assert.equal(message.subject, '[perimeter] New high vulnerability: SQL injection on shop.example.com');
    assert.match(message.text, /^Severity: high$/m);
    const page = String(eventCatalogue.find((d) => d.kind === 'vulnerability.new')?.example['details_page']);
    assert.ok(message.text.split('\n').includes(`Open the vulnerability: ${page}`));
    assert.ok(message.html.includes(`<a href="${escapeHtml(page)}" style="`));
    assert.match(message.text, /team Acme through the webhook SOC mail/);
  });

  it('HTML-escapes every value and keeps the subject on one line', () => {
    const hostile = '<script>alert("x")</script>\r\nBcc: victim@example.com';
    const message = emailMessage([example('vulnerability.new', { title: hostile, host: `a'b"&<c>` })], {
      ...context,
      teamName: '<b>T</b>',
    });
    assert.doesNotMatch(message.html, /<script|<b>T/);
    assert.ok(message.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.ok(message.html.includes('a&#39;b&quot;&amp;&lt;c&gt;'));
    assert.doesNotMatch(message.subject, /[\r\n]/);
    assert.ok(message.subject.includes('</script> Bcc: victim@example.com'));
    assertSelfContained(message.html);
  });

  it('groups a digest by kind, the most severe group first, and says how many of what', () => {
    const events = [
      example('port.opened', {}, '2026-11-29T08:01:00Z'),
      example('vulnerability.new', { severity: 'medium', title: 'XSS' }, '2026-11-29T08:02:00Z'),
      example('vulnerability.new', { severity: 'critical', title: 'RCE' }, '2026-11-29T08:03:00Z'),
      example('breach.opened', { severity: 'high' }, '2026-11-29T08:04:00Z'),
      example('port.opened', { port: 22 }, '2026-11-29T08:05:00Z'),
    ];
    const message = emailMessage(events, context);
    assert.equal(
      message.subject,
      '[perimeter] 5 events for Acme: 2 new vulnerabilities, 1 policy breach, 2 ports opened',
    );
    const order = [
      '== 2 new vulnerabilities ==',
      'New critical vulnerability: RCE',
      'New medium vulnerability: XSS',
      '== 1 policy breach ==',
      '== 2 ports opened ==',
      'Port 5432/TCP opened',
      'Port 22/TCP opened',
    ];
    const positions = order.map((s) => message.text.indexOf(s));
    assert.ok(
      positions.every((p) => p >= 0),
      JSON.stringify(positions),
    );
    assert.deepEqual(
      [...positions].sort((a, b) => a - b),
      positions,
    );
    const body = message.html.slice(message.html.indexOf('<body'));
    const htmlOrder = ['2 new vulnerabilities', 'RCE', 'XSS', '1 policy breach', '2 ports opened'].map((s) =>
      body.indexOf(s),
    );
    assert.deepEqual(
      [...htmlOrder].sort((a, b) => a - b),
      htmlOrder,
    );
    assertSelfContained(message.html);
  });

  it('keeps a digest subject within its length, naming the rest as more kinds', () => {
    const events = eventCatalogue.map((d) => example(d.kind));
    const message = emailMessage(events, { ...context, teamName: 'A team with a rather long name indeed' });
    assert.ok(message.subject.length <= subjectMax);
    assert.match(
      message.subject,
      /^\[perimeter\] 21 events for A team with a rather long name indeed: .* and \d+ more kinds$/,
    );
  });

  it('refuses an empty list', () => {
    assert.throws(() => emailMessage([], context), /at least one event/);
  });
});
