/**
 * Exit codes of the client command line (docs/cli.md): 0 success, 1 a CI gate failed (findings at
 * or above --fail-on), 2 a usage error, 3 an API or network error, 4 a scan or import that did not
 * complete; `scan start --wait` without --fail-on exits with the code of the highest severity found.
 */
export const exitCodes = { ok: 0, gate: 1, usage: 2, api: 3, incomplete: 4 } as const;

/** A mistake on the command line: its message, then exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** What the server or the network refused: the API's own message, then exit 3. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: number | string,
  ) {
    super(message);
  }
}

/** An ending with a given exit code and message (a scan that did not complete, a gate). */
export class ExitError extends Error {
  override name = 'ExitError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
