import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onBaseUrl, throttleDelay } from './digitalocean-client.ts';

describe('DigitalOcean SDK wiring', () => {
  it('moves a paging link of DigitalOcean onto the configured base URL, keeping its path and query', () => {
    const link = 'https://api.digitalocean.com/v2/domains?page=2&per_page=200';
    assert.equal(onBaseUrl(link, 'http://127.0.0.1:8080'), 'http://127.0.0.1:8080/v2/domains?page=2&per_page=200');
    // A proxy under a path prefix, whether the link names DigitalOcean or the proxy itself.
    assert.equal(
      onBaseUrl(link, 'https://proxy.example/do'),
      'https://proxy.example/do/v2/domains?page=2&per_page=200',
    );
    assert.equal(
      onBaseUrl('https://proxy.example/do/v2/droplets?page=3', 'https://proxy.example/do'),
      'https://proxy.example/do/v2/droplets?page=3',
    );
    // A link naming another host never takes the token there.
    assert.equal(
      onBaseUrl('https://evil.example/v2/droplets?page=2', 'https://api.digitalocean.com'),
      'https://api.digitalocean.com/v2/droplets?page=2',
    );
  });

  it('waits as Retry-After says, else until ratelimit-reset, else lets the caller choose', () => {
    assert.equal(throttleDelay(new Headers({ 'retry-after': '2', 'ratelimit-reset': '1' })), 2000);
    const reset = Math.floor(Date.now() / 1000) + 10;
    const wait = throttleDelay(new Headers({ 'ratelimit-reset': String(reset) }));
    assert.ok(wait !== undefined && wait > 8000 && wait <= 10_000, `waits ${wait} ms`);
    assert.equal(throttleDelay(new Headers({ 'ratelimit-reset': '1' })), 0);
    assert.equal(throttleDelay(new Headers()), undefined);
  });
});
