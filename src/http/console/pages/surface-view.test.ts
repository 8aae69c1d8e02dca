import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pager, v3QueryOf } from './surface-view.ts';

/** The hrefs of a pager's links by their text. */
function linksOf(nav: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of nav.matchAll(/href="([^"]+)"[^>]*>([^<]+)</g)) out[m[2]!] = m[1]!.replaceAll('&amp;', '&');
  return out;
}

describe('surface pages: the query and the pager', () => {
  it('reads repeated names as lists, days as whole-day bounds, and leaves console parameters out', () => {
    const query = v3QueryOf(
      new URLSearchParams(
        'status=OPEN&status=CLOSED&port=22,443&first_seen_after=2026-02-01&first_seen_before=2026-02-03&back=-&notice=x&limit=',
      ),
    );
    assert.deepEqual(query, {
      status: ['OPEN', 'CLOSED'],
      port: '22,443',
      first_seen_after: '2026-02-01T00:00:00Z',
      first_seen_before: '2026-02-03T23:59:59Z',
    });
  });

  it('renames values as the page asks (open breaches as NEW)', () => {
    const rename = (name: string, value: string) => (name === 'status' && value === 'open' ? 'NEW' : value);
    assert.deepEqual(v3QueryOf(new URLSearchParams('status=open'), rename), { status: 'NEW' });
  });

  it('offers only the next page on the first page, keeping the filters', () => {
    const links = linksOf(pager('/surface/ips', new URLSearchParams('limit=1&first_seen_after=x'), 'C1').text);
    assert.deepEqual(links, { 'Next page': '/surface/ips?limit=1&first_seen_after=x&cursor=C1&back=-' });
  });

  it('goes back one page at a time through the cursors the page carries, and to the first page', () => {
    const second = linksOf(pager('/surface/ips', new URLSearchParams('cursor=C1&back=-'), 'C2').text);
    assert.deepEqual(second, {
      'Previous page': '/surface/ips',
      'Next page': '/surface/ips?cursor=C2&back=-%2CC1',
    });
    const third = linksOf(pager('/surface/ips', new URLSearchParams('cursor=C2&back=-,C1'), undefined).text);
    assert.deepEqual(third, {
      'First page': '/surface/ips',
      'Previous page': '/surface/ips?cursor=C1&back=-',
    });
  });

  it('keeps at most 20 earlier cursors (the first page stays a link away)', () => {
    const back = Array.from({ length: 20 }, (_, i) => `C${i}`).join(',');
    const next = linksOf(pager('/p', new URLSearchParams(`cursor=C20&back=${back}`), 'C21').text)['Next page']!;
    const kept = new URL(next, 'http://x').searchParams.get('back')!.split(',');
    assert.equal(kept.length, 20);
    assert.deepEqual([kept[0], kept[19]], ['C1', 'C20']);
  });
});
