import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventCatalogue } from '../../events/event-catalogue.ts';
import type { FormatEvent } from './format.types.ts';
import { eventKinds } from '../../events/event.types.ts';
import { kindCount, summarizeEvent, truncate } from './event-summary.ts';

const context = { teamName: 'Acme', webhookName: 'SOC', consoleBase: 'https://perimeter.example.net/' };

function example(kind: string, data?: Record<string, unknown>): FormatEvent {
  const doc = eventCatalogue.find((d) => d.kind === kind);
  return { id: `evt-${kind}`, type: kind, timestamp: '2026-11-29T08:00:00Z', data: data ?? doc?.example ?? {} };
}

describe('summarizeEvent', () => {
  it('says one sentence with the facts of every catalogue kind', () => {
    const expected: Record<string, string> = {
      'scan.started': 'Scan started on example.com',
      'scan.completed': 'Scan completed on example.com: 12 findings, 2 new',
      'scan.failed': 'Scan failed on example.com: The start URL did not answer (connection refused).',
      'vulnerability.new': 'New high vulnerability: SQL injection on shop.example.com',
      'vulnerability.regression': 'Regression of high vulnerability: SQL injection on shop.example.com',
      'vulnerability.patched': 'Patched high vulnerability: SQL injection on shop.example.com',
      'vulnerability.status_changed': 'SQL injection on shop.example.com marked as accepted risk',
      'asset.added': 'Asset added: example.com (domain)',
      'asset.removed': 'Asset removed: example.com (domain)',
      'asset.verified': 'Asset verified: example.com (domain)',
      'subdomain.discovered': 'New subdomain staging.example.com under example.com',
      'subdomain.disappeared': 'Subdomain staging.example.com no longer found under example.com',
      'port.opened': 'Port 5432/TCP opened on example.com (192.0.2.10)',
      'port.closed': 'Port 5432/TCP closed on example.com (192.0.2.10)',
      'technology.discovered': 'Technology nginx 1.25.3 found on example.com:443',
      'breach.opened': 'Policy breached: Database exposed on db.example.com',
      'breach.closed': 'Breach resolved: Database exposed on db.example.com',
      'zone_lookup.finished': 'Zone lookup finished: 318 of 1200 names resolved',
      'connector.run_finished': 'Connector Production DNS run finished: SUCCEEDED',
      'webhook.disabled': 'Webhook SOC pager disabled: Deliveries failed for 24 hours (last: HTTP 503).',
      'webhook.test': 'Test event for webhook SOC pager',
    };
    assert.deepEqual(Object.keys(expected).sort(), [...eventKinds].sort());
    for (const kind of eventKinds) {
      const summary = summarizeEvent(example(kind), context);
      assert.equal(summary.title, expected[kind], kind);
      assert.ok(summary.facts.length > 0, `${kind} has facts`);
      for (const fact of summary.facts) assert.notEqual(fact.value, '', `${kind} ${fact.label}`);
    }
  });

  it('links the vulnerability page, else the console page of the asset, scan or breach', () => {
    const links = Object.fromEntries(eventKinds.map((k) => [k, summarizeEvent(example(k), context).link?.url]));
    const uuid = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
    assert.equal(links['vulnerability.new'], example('vulnerability.new').data['details_page']);
    assert.match(String(links['vulnerability.new']), new RegExp(`/${uuid}$`));
    assert.equal(links['scan.completed'], 'https://perimeter.example.net/scans/3e5a7c9b1d0f2e4a6c8b0d2f4e6a8c1b');
    assert.equal(links['port.opened'], 'https://perimeter.example.net/assets/0f9d3a1c5e7b4d2a8c6e1f3b5d7a9c0e');
    assert.equal(links['breach.opened'], 'https://perimeter.example.net/surface/breaches/42');
    assert.equal(links['asset.removed'], 'https://perimeter.example.net/assets');
    assert.equal(links['webhook.test'], undefined);
  });

  it('never links another scheme: a javascript: details page falls back to the console page', () => {
    const doc = eventCatalogue.find((d) => d.kind === 'vulnerability.new');
    const data = { ...doc?.example, details_page: 'javascript:alert(1)' };
    const summary = summarizeEvent(example('vulnerability.new', data), context);
    assert.equal(
      summary.link?.url,
      'https://perimeter.example.net/vulnerabilities/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
    );
  });

  it('says when a mark is lifted, and reads the severity of findings and breaches only', () => {
    const doc = eventCatalogue.find((d) => d.kind === 'vulnerability.status_changed');
    const lifted = summarizeEvent(
      example('vulnerability.status_changed', { ...doc?.example, marked: false, mark: 'false_positive' }),
      context,
    );
    assert.equal(lifted.title, 'Mark "false positive" lifted from SQL injection on shop.example.com');
    assert.equal(lifted.severity, 'high');
    assert.equal(summarizeEvent(example('breach.opened'), context).severity, 'high');
    assert.equal(summarizeEvent(example('port.opened'), context).severity, undefined);
  });

  it('renders a kind outside the catalogue with its scalar fields', () => {
    const summary = summarizeEvent(
      {
        id: 'x',
        type: 'future.kind',
        timestamp: '2026-11-29T08:00:00Z',
        data: { a: 1, b: 'two', c: { d: 3 }, e: null },
      },
      context,
    );
    assert.equal(summary.title, 'Event future.kind');
    assert.deepEqual(summary.facts, [
      { label: 'a', value: '1' },
      { label: 'b', value: 'two' },
    ]);
    assert.equal(summary.link, undefined);
  });

  it('counts kinds in words and truncates without splitting a surrogate pair', () => {
    assert.equal(kindCount('vulnerability.new', 1), '1 new vulnerability');
    assert.equal(kindCount('vulnerability.new', 3), '3 new vulnerabilities');
    assert.equal(kindCount('port.opened', 2), '2 ports opened');
    assert.equal(truncate('abcdef', 6), 'abcdef');
    assert.equal(truncate('abcdefg', 6), 'abcde…');
    assert.equal(truncate('abcd😀efg', 6), 'abcd…');
  });
});
