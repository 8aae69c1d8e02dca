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
 */
export async function plainLoop(urls: string[], concurrency: number, headers: Record<string, string>): Promise<LoopRun> {
  const agent = new Agent({ keepAliveTimeout: 2000 });
  let next = 0;
  let bytes = 0;
  const startedAt = performance.now();
  const worker = async (): Promise<void> => {
    while (next < urls.length) {
      const url = urls[next++]!;
      const response = await request(url, { dispatcher: agent, method: 'GET', headers });
      bytes += (await response.body.arrayBuffer()).byteLength;
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
