/**
 * A stored value that must be one of a list (a connector's provider, a webhook's format, an
 * event's kind). One outside the list would be the bug of an older writer: reading fails loudly
 * rather than answer it.
 */
export function storedMember<T extends string>(allowed: readonly T[], value: string, what: string): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new Error(`${what} has an unknown value ${JSON.stringify(value)}`);
  return value as T;
}
