import type { Socket } from 'node:net';

/** How long a connection closed on an error keeps discarding what the client still sends. */
export const lingerMs = 2000;

const closing = new WeakSet<Socket>();

/**
 * Closes a connection once the answer is written, without a reset: half-closes it (FIN after
 * the answer), keeps reading and dropping what the client still sends, and closes when the
 * client has closed its side or after `lingerMs`. Closing a socket with unread bytes sends a
 * reset, which can reach a client still writing its body before it reads the answer; lingering
 * lets it read the 413 or 400 (the "lingering close" of nginx and Apache).
 */
export function closeLingering(socket: Socket, ms = lingerMs): void {
  if (closing.has(socket) || socket.destroyed) return;
  closing.add(socket);
  const timer = setTimeout(() => socket.destroy(), ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  // Reads after a parse error or a refused body only feed a parser that drops them.
  socket.on('error', () => undefined);
  socket.end();
}

/** True once closeLingering took the socket over (later parse errors on it need no answer). */
export function isClosingLingering(socket: Socket): boolean {
  return closing.has(socket);
}

/**
 * Makes the HTTP server close this connection with closeLingering once the current answer is
 * written (Node calls `destroySoon` after a `Connection: close` response). Sockets without
 * that method (inject's fake sockets) are left alone.
 */
export function lingerAfterResponse(socket: Socket | undefined): void {
  if (socket === undefined || socket === null || typeof socket.destroySoon !== 'function' || socket.destroyed) return;
  socket.destroySoon = () => closeLingering(socket);
}
