import { appError } from '../core/errors/app-error.ts';

/**
 * The streamed body of an upload, refusing one of no bytes at all with 1050 once it has ended
 * (the consumer's transaction then keeps nothing). A body of blank lines or comments is a body.
 * (Every other input is validated from the route's schemas before its handler: validation.ts.)
 */
export async function* requiredUpload(body: AsyncIterable<Buffer>, what: string): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    yield chunk;
  }
  if (bytes === 0) throw appError(1050, `Request body missing: send ${what} as the request body`);
}
