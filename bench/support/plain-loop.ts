import { Agent, request } from 'undici';

/** One pass of the plain loop over a list of URLs. */
export interface LoopRun {
  durationMs: number;
  requests: number;
  bytes: number;
  requestsPerSecond: number;
}

/**
 * GET every URL once, `concurrency` in flight over one keep-alive undici agent, each body read
 * fully: the floor of "Node fetching these pages" for a crawler with that concurrency.
 * With `parse`, each HTML body is read as text and handed to it (the crawl floor: a crawler
 * must at least parse a page to find the next URLs); without, bodies are read as bytes.
 */
export async function plainLoop(
  urls: string[],
  concurrency: number,
  headers: Record<string, string>,
  parse?: (html: string) => void,
): Promise<LoopRun> {
  const agent = new Agent({ keepAliveTimeout: 2000 });
  let next = 0;
  let bytes = 0;
  const startedAt = performance.now();
  const worker = async (): Promise<void> => {
    while (next < urls.length) {
      const url = urls[next++]!;
      const response = await request(url, { dispatcher: agent, method: 'GET', headers });
      const type = response.headers['content-type'];
      if (parse !== undefined && typeof type === 'string' && type.toLowerCase().includes('text/html')) {
        const html = await response.body.text();
        bytes += html.length;
        parse(html);
      } else {
        bytes += (await response.body.arrayBuffer()).byteLength;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
  } finally {
    await agent.close();
  }
  const durationMs = performance.now() - startedAt;
  return { durationMs, requests: urls.length, bytes, requestsPerSecond: urls.length / (durationMs / 1000) };
}
