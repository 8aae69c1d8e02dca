/**
 * One resource record as the engine reports it, from a zone file, a zone transfer or a lookup.
 *
 * - `name`: the owner, absolute, ASCII lower-case, WITHOUT the trailing dot
 *   (`www.example.com`; the root alone is `.`), special bytes escaped as in `dns-name.ts`.
 * - `ttl`: seconds.
 * - `class`: mnemonic (`IN`) or `CLASSnnn`.
 * - `type`: the IANA registry's mnemonic (`AAAA`), or `TYPEnnn` for an unassigned number.
 * - `data`: the canonical presentation form of the record data: names absolute with their
 *   trailing dot and lower-cased, numbers in decimal, IPv6 in RFC 5952 form, strings quoted,
 *   hex upper-case, base64 unbroken; a type without a text codec as RFC 3597 `\# len HEX`.
 *   The same record gives the same `data` whichever source it came from, so callers may
 *   compare and deduplicate records as strings. One exception: a zone file may give a type of
 *   the IANA registry that has no codec (WKS, APL …) in its own text form, which is kept as
 *   written (see rdata-text.ts), where a transfer gives the RFC 3597 form.
 */
export interface ZoneRecord {
  name: string;
  ttl: number;
  class: string;
  type: string;
  data: string;
}

/**
 * A zone file that does not follow RFC 1035 §5 (or a directive the service refuses, such as
 * `$INCLUDE`). `line` is 1-based and names the line where the fault was found.
 */
export class ZoneSyntaxError extends Error {
  override readonly name = 'ZoneSyntaxError';

  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}
