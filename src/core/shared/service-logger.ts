/** Minimal logger a service reports background failures and progress to (pino satisfies it). */
export interface ServiceLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}
