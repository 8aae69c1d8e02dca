import { timingSafeEqual } from 'node:crypto';
import { appError } from '../errors/app-error.ts';
import { LruCache } from './lru-cache.ts';
import type { SecretBox } from './secret-box.ts';

/**
 * Opaque keyset markers: `<payload>.<mac>`, where the payload names the team, the listing and
 * the position. The MAC makes a marker unforgeable, and binding it to the team and listing makes
 * another team's marker (or a marker of another list) a clean 4150 that reveals nothing.
 */
export class MarkerCodec {
  /**
   * MACs of recent payloads. Paging forward encodes a position (the next marker), decodes it on
   * the next request and encodes it again (its current marker): one HMAC instead of three. Only
   * MACs this process computed are kept, and a marker is still compared in constant time.
   */
  private readonly macs = new LruCache<string>(10_000);

  constructor(private readonly box: SecretBox) {}

  /** Encodes a position of one listing for one team. */
  encode(teamId: number, scope: string, position: unknown): string {
    const payload = Buffer.from(JSON.stringify([teamId, scope, position])).toString('base64url');
    return `${payload}.${this.macOf(payload)}`;
  }

  /** Decodes a marker; an empty or absent marker is the start (undefined); anything foreign is 4150. */
  decode(teamId: number, scope: string, marker: string | undefined, parameter = 'marker'): unknown {
    if (marker === undefined || marker === '') return undefined;
    const [payload, mac, extra] = marker.split('.');
    const invalid = () => appError(4150, `${parameter} is not a marker of this listing`, [parameter]);
    if (payload === undefined || mac === undefined || extra !== undefined || !isSameMac(this.macOf(payload), mac))
      throw invalid();
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(decoded) || decoded[0] !== teamId || decoded[1] !== scope) throw invalid();
    return decoded[2];
  }

  private macOf(payload: string): string {
    let mac = this.macs.get(payload);
    if (mac === undefined) this.macs.set(payload, (mac = this.box.mac(payload)));
    return mac;
  }
}

/** Compares two MACs in constant time. */
function isSameMac(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
