/** Thrown for mistakes of an operator (CLI), not of an API caller. */
export class OperatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorError';
  }
}
