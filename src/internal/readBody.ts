/**
 * The one bounded request-body reader of voicewire's servers (the speech endpoint, the agent
 * platform, the webhook receivers), and the one way they turn away a body over their limit.
 *
 * Over the limit, reading stops at once (the rest is never buffered) and the caller answers 413
 * with `Connection: close`, then {@link closeWhenAnswered} ends the connection as soon as the
 * answer is out. Without that, Node drains the unread body before it closes a connection, so a
 * client still sending (or sending slowly) would keep the socket for as long as it likes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type BodyRead =
  | { kind: 'body'; bytes: Buffer }
  /** The body (or its announced `Content-Length`) is over `limit`; the rest was not read. */
  | { kind: 'too_large'; limit: number };

/** Headers of an answer after which the connection is closed. */
export const CONNECTION_CLOSE: Readonly<Record<string, string>> = { connection: 'close' };

/**
 * Reads the whole body, up to `limit` bytes. A `Content-Length` over the limit is refused before
 * a byte is read. Rejects with the stream's error when the request breaks.
 */
export function readBoundedBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const announced = Number(req.headers['content-length']);
  if (Number.isFinite(announced) && announced > limit) {
    req.pause();
    return Promise.resolve({ kind: 'too_large', limit });
  }
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve({ kind: 'too_large', limit });
        return;
      }
      parts.push(chunk);
    };
    // One concat at the end of a bounded body, never per chunk.
    const onEnd = (): void => {
      cleanup();
      resolve({ kind: 'body', bytes: Buffer.concat(parts, size) });
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * After the answer, how long the rest of an unwanted body is still read (and dropped) before the
 * connection is cut. Closing with unread bytes makes the kernel reset the connection, and a reset
 * can reach the client before it has read the answer; a client that stops sending when it sees
 * the answer and the FIN closes well within this.
 */
export const CLOSE_LINGER_MS = 1_000;

/**
 * Ends the connection once `res` is fully written (answer it with {@link CONNECTION_CLOSE}): for
 * a request whose body was not read, or should not be waited for. Call it before answering.
 */
export function closeWhenAnswered(res: ServerResponse): void {
  // Held now: Node detaches the socket from the response when it finishes.
  const socket = res.socket;
  const req = res.req;
  res.once('finish', () => {
    req.resume();
    if (!socket || socket.destroyed) return;
    const cut = setTimeout(() => socket.destroy(), CLOSE_LINGER_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  });
}
