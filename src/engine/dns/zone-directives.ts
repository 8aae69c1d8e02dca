import { canonicalName, PresentationError } from './dns-name.ts';
import { parseTtl, QUOTE_MARK } from './text-values.ts';
import type { ZoneEntry } from './zone-tokenizer.ts';

/** What directives change while a zone file is read. */
export interface ZoneState {
  /** Canonical origin (`example.com.`) that completes relative names and stands for `@`. */
  origin: string;
  /** TTL of records that give none: from `$TTL`, the caller's default, or the SOA minimum. */
  defaultTtl: number | undefined;
  /** The last TTL a record gave explicitly (RFC 1035 semantics when there is no `$TTL`). */
  lastTtl: number | undefined;
  /** Canonical owner of the previous record, for entries whose owner is blank. */
  lastOwner: string | undefined;
}

/** True when the entry is a `$…` control entry (RFC 1035 §5.1), which must start its line. */
export function isDirective(entry: ZoneEntry): boolean {
  return !entry.isOwnerBlank && entry.tokens[0]?.charCodeAt(0) === 0x24;
}

function onlyArgument(entry: ZoneEntry, directive: string, what: string): string {
  const argument = entry.tokens[1];
  if (argument === undefined) throw new PresentationError(`${directive} needs ${what}`);
  if (argument.startsWith(QUOTE_MARK)) throw new PresentationError(`${directive} takes ${what}, not a quoted string`);
  if (entry.tokens.length > 2)
    throw new PresentationError(`${directive} takes only ${what}, got "${entry.tokens[2]}" after it`);
  return argument;
}

/**
 * Applies `$ORIGIN` and `$TTL`; refuses `$INCLUDE` (a zone file sent to the service must stand
 * alone: the server never opens a path a user names). `$GENERATE` (a BIND extension) makes
 * records, so the parser expands it itself (zone-parser.ts, zone-generate.ts).
 */
export function applyDirective(entry: ZoneEntry, state: ZoneState): void {
  const directive = (entry.tokens[0] ?? '').toUpperCase();
  switch (directive) {
    case '$ORIGIN':
      state.origin = canonicalName(onlyArgument(entry, '$ORIGIN', 'a domain name'), state.origin);
      return;
    case '$TTL':
      state.defaultTtl = parseTtl(onlyArgument(entry, '$TTL', 'a TTL'));
      return;
    case '$INCLUDE':
      throw new PresentationError(
        '$INCLUDE is not allowed: the zone file must be self-contained, the server never reads files named in it',
      );
    default:
      throw new PresentationError(
        `unknown directive "${entry.tokens[0] ?? ''}" (RFC 1035 knows $ORIGIN, $TTL and $INCLUDE; BIND adds $GENERATE)`,
      );
  }
}
