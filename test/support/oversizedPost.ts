/**
 * A client that starts an oversized POST and then stalls, over a raw socket: what a server
 * answers, and whether it closes the connection without waiting for the rest of the body.
 */
import { connect } from 'node:net';
import { expect } from 'vitest';

/** How long a test waits for the answer and the close. */
export const CLOSE_BOUND_MS = 5_000;

export interface OversizedAnswer {
  /** Everything the server sent (latin1). */
  text: string;
  /** The server closed the connection within {@link CLOSE_BOUND_MS}. */
  closed: boolean;
  /** From the last byte written to the close (or to the bound). */
  elapsedMs: number;
}

/**
 * Sends the headers and `sentBytes` of body, then nothing more. The body is announced with a
 * `Content-Length` of `announcedBytes`, or, without it, sent as one chunk of a chunked body.
 */
export function postOversized(
  url: string,
  headers: Record<string, string>,
  sentBytes: number,
  announcedBytes?: number,
): Promise<OversizedAnswer> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(u.port), u.hostname);
    const parts: Buffer[] = [];
    let wroteAt = 0;
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(parts).toString('latin1'), closed, elapsedMs: Date.now() - wroteAt });
    };
    const timer = setTimeout(() => finish(false), CLOSE_BOUND_MS);
    socket.on('data', (c: Buffer) => parts.push(c));
    socket.on('close', () => finish(true));
    // A reset after the answer still counts as a close; the answer was read before it.
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      const lines = [`POST ${u.pathname} HTTP/1.1`, `Host: ${u.host}`, 'Content-Type: application/json'];
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      lines.push(announcedBytes !== undefined ? `Content-Length: ${announcedBytes}` : 'Transfer-Encoding: chunked');
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      const body = Buffer.alloc(sentBytes, 0x20);
      if (announcedBytes === undefined) socket.write(`${sentBytes.toString(16)}\r\n`);
      socket.write(body);
      if (announcedBytes === undefined) socket.write('\r\n');
      wroteAt = Date.now();
    });
  });
}

/**
 * Runs {@link postOversized} for each `[sentBytes, announcedBytes]` case and checks the answer
 * is a 413 with `Connection: close` (containing `bodyText`, when given) and that the connection
 * closed promptly.
 */
export async function expectRefusedAndClosed(
  url: string,
  headers: Record<string, string>,
  cases: ReadonlyArray<readonly [number, number | undefined]>,
  bodyText?: string,
): Promise<void> {
  for (const [sent, announced] of cases) {
    const r = await postOversized(url, headers, sent, announced);
    expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(r.text.toLowerCase()).toContain('connection: close');
    if (bodyText !== undefined) expect(r.text).toContain(bodyText);
    expect(r.closed).toBe(true);
    expect(r.elapsedMs).toBeLessThan(CLOSE_BOUND_MS / 2);
  }
}
