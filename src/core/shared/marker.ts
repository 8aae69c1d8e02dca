import { appError } from '../errors/app-error.ts';
import type { SecretBox } from './secret-box.ts';

/**
 * Opaque keyset markers: `<payload>.<mac>`, where the payload names the team, the listing and
 * the position. The MAC makes a marker unforgeable, and binding it to the team and listing makes
 * another team's marker (or a marker of another list) a clean 4150 that reveals nothing.
 */
export class MarkerCodec {
  constructor(private readonly box: SecretBox) {}

  /** Encodes a position of one listing for one team. */
  encode(teamId: number, scope: string, position: unknown): string {
    const payload = Buffer.from(JSON.stringify([teamId, scope, position])).toString('base64url');
    return `${payload}.${this.box.mac(payload)}`;
  }

  /** Decodes a marker; an empty or absent marker is the start (undefined); anything foreign is 4150. */
  decode(teamId: number, scope: string, marker: string | undefined, parameter = 'marker'): unknown {
    if (marker === undefined || marker === '') return undefined;
    const [payload, mac, extra] = marker.split('.');
    const invalid = () => appError(4150, `${parameter} is not a marker of this listing`, [parameter]);
    if (payload === undefined || mac === undefined || extra !== undefined || !this.box.verifyMac(payload, mac)) throw invalid();
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(decoded) || decoded[0] !== teamId || decoded[1] !== scope) throw invalid();
    return decoded[2];
  }
}
