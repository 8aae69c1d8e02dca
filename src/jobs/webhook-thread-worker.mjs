// Worker-thread entry of the webhook deliveries (threaded-webhook-delivery.ts). Plain JavaScript
// so that it starts however the parent loaded TypeScript (engine/threads/import-ts.mjs).
import { importTs } from '../engine/threads/import-ts.mjs';

await (await importTs('./webhook-thread.ts', import.meta.url)).serveWebhookThread();
