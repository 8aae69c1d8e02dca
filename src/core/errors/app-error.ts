import { errorCatalogue, type ErrorCode } from './error-catalogue.ts';

/**
 * A failure of a remote party the caller named (a name server that refuses a transfer), not of
 * this server: the edge counts it apart from server faults.
 */
export interface RemoteFailure {
  /** The operation that reached out (`zone-transfer`). */
  operation: string;
  /** Why it failed, a short fixed word (`refused`, `timeout` …). */
  reason: string;
}

/** The one error type of the core: a catalogue code, a message for humans, the parameters at fault. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly parameters: string[] | undefined;
  readonly remoteFailure: RemoteFailure | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options?: { parameters?: string[]; cause?: unknown; remoteFailure?: RemoteFailure },
  ) {
    super(message ?? errorCatalogue[code], options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.parameters = options?.parameters;
    this.remoteFailure = options?.remoteFailure;
  }
}

/** Builds an AppError; `parameters` names the request parameters at fault. */
export function appError(code: ErrorCode, message?: string, parameters?: string[]): AppError {
  return new AppError(code, message, parameters === undefined ? undefined : { parameters });
}

/** True when the value is an AppError. */
export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
