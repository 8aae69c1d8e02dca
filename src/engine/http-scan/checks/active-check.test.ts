import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import type { InjectionPoint } from '../check-kit/injection.ts';
import type { ScanSession } from '../check-kit/scan-session.ts';
import { createActiveCheck } from './active-check.ts';
import type { CheckContext, CrawledPage } from '../check-kit/page-check.ts';

/** A crawled GET of `href` answered 200 with HTML (so header points exist too). */
function crawled(href: string): CrawledPage {
  const url = new URL(href);
  return {
    url,
    origin: { scheme: 'http', host: url.hostname, port: Number(url.port) },
    originText: url.origin,
    exchange: {
      request: { method: 'GET', url, headers: [{ name: 'user-agent', value: 'perimeter-test' }] },
      status: 200,
      headers: [{ name: 'content-type', value: 'text/html' }],
      body: '<p>ok</p>',
      isTruncated: false,
    },
    isHtml: true,
    links: undefined,
  };
}

const context = {
  session: { settings: { ...defaultScanProfileSettings } } as unknown as ScanSession,
  signal: new AbortController().signal,
  report: async () => undefined,
} satisfies CheckContext;

describe('createActiveCheck', () => {
  it('hands every active check the same injection points of a page, computed once', async () => {
    const seen: Array<{ check: string; point: InjectionPoint }> = [];
    const checks = ['first', 'second'].map((id) =>
      createActiveCheck({
        id,
        locations: ['query', 'path', 'header'],
        test: async (point) => void seen.push({ check: id, point }),
      }),
    );
    const page = crawled('http://127.0.0.1:8080/item/42?q=shoes');
    for (const check of checks) await check.inspect(page, context);
    const first = seen.filter((s) => s.check === 'first').map((s) => s.point);
    const second = seen.filter((s) => s.check === 'second').map((s) => s.point);
    assert.deepEqual(
      first.map((p) => `${p.location}:${p.name}`),
      ['query:q', 'path:1', 'header:User-Agent', 'header:Referer', 'header:X-Forwarded-For'],
    );
    assert.equal(second.length, first.length);
    second.forEach((point, i) => assert.equal(point, first[i], `point ${i} is the same object for both checks`));
  });

  it('tests a point once per scan and check, whichever value a later page brings', async () => {
    const tested: string[] = [];
    const check = createActiveCheck({
      id: 'once',
      test: async (point) => void tested.push(`${point.location}:${point.name}=${point.value}`),
    });
    for (const href of [
      'http://127.0.0.1:8080/item/42?q=shoes',
      'http://127.0.0.1:8080/item/42?q=hats',
      'http://127.0.0.1:8080/item/43',
    ])
      await check.inspect(crawled(href), context);
    assert.deepEqual(tested, ['query:q=shoes', 'path:1=42']);
  });
});
