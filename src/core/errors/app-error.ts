import { errorCatalogue, type ErrorCode } from './error-catalogue.ts';

/** The one error type of the core: a catalogue code, a message for humans, the parameters at fault. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly parameters: string[] | undefined;

  constructor(code: ErrorCode, message?: string, options?: { parameters?: string[]; cause?: unknown }) {
    super(message ?? errorCatalogue[code], options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.parameters = options?.parameters;
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
