import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.ts';
import type { VerificationService } from '../core/assets/verification.service.ts';
import type { MarkerCodec } from '../core/shared/marker.ts';
import type { SecretBox } from '../core/shared/secret-box.ts';
import type { Store } from '../core/shared/store.ts';

/** Everything the HTTP layer needs, wired once in main.ts (or by the test harness). */
export interface AppDeps {
  config: Config;
  store: Store;
  box: SecretBox;
  markers: MarkerCodec;
  verification: VerificationService;
  /** Logger given to Fastify; defaults to a pino logger at config.logLevel. */
  logger?: FastifyBaseLogger;
}
