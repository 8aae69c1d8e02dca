/**
 * The engine's name servers are the core's (engine → core is the allowed direction): one
 * parser serves the API's `nameServer` and the resolvers of the configuration.
 */
export { formatNameServer } from '../../core/zones/name-server.ts';
export type { NameServer as NameServerAddress } from '../../core/zones/zone-engine.ts';
import { parseNameServer as parseCoreNameServer } from '../../core/zones/name-server.ts';
import type { NameServer } from '../../core/zones/zone-engine.ts';

/** A resolver or transfer server of the engine: single-label host names are allowed. */
export function parseNameServer(text: string): NameServer | undefined {
  return parseCoreNameServer(text, { singleLabel: true });
}
