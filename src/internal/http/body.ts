/**
 * Reading a response body with an idle timeout and an abort signal, mapped to typed errors.
 *
 * `idleTimeoutMs` bounds the gap between body bytes while we are waiting for them; time the
 * consumer spends between reads (backpressure) is not counted.
 */
import { AbortError, ApiTimeoutError } from '../../errors.js';

export interface BodyReadOptions {
  /** Longest gap between two body chunks. 0 or Infinity disables it. */
  idleTimeoutMs: number;
  /** The caller's signal: aborting cancels the read and the connection. */
  signal?: AbortSignal | undefined;
  /** Context for error messages. */
  requestId?: string | undefined;
  status?: number | undefined;
}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

function readWithDeadline(reader: ReadableStreamDefaultReader<Uint8Array>, opts: BodyReadOptions): Promise<ReadResult> {
  const { idleTimeoutMs, signal } = opts;
  if (signal?.aborted) return Promise.reject(new AbortError(undefined, signal.reason));
  const hasIdle = idleTimeoutMs > 0 && Number.isFinite(idleTimeoutMs);
  if (!hasIdle && !signal) return reader.read();
  return new Promise<ReadResult>((resolve, reject) => {
    let settled = false;
    const finish = (): void => {
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      if (settled) return;
      finish();
      reader.cancel(signal?.reason).catch(() => undefined);
      reject(new AbortError(undefined, signal?.reason));
    };
    const timer = hasIdle
      ? setTimeout(() => {
          if (settled) return;
          finish();
          const err = new ApiTimeoutError(`No response body bytes for ${idleTimeoutMs} ms (idleTimeoutMs)`, {
            status: opts.status,
            requestId: opts.requestId,
          });
          reader.cancel(err).catch(() => undefined);
          reject(err);
        }, idleTimeoutMs)
      : undefined;
    signal?.addEventListener('abort', onAbort, { once: true });
    reader.read().then(
      (r) => {
        if (settled) return;
        finish();
        resolve(r);
      },
      (e: unknown) => {
        if (settled) return;
        finish();
        reject(signal?.aborted ? new AbortError(undefined, signal.reason) : e);
      },
    );
  });
}

/**
 * Yields the body's chunks. Breaking out of the loop (or an error) cancels the body, which lets
 * the connection go back to the pool or be closed.
 */
export async function* iterateBody(
  body: ReadableStream<Uint8Array> | null,
  opts: BodyReadOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (body === null) return;
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const r = await readWithDeadline(reader, opts);
      if (r.done) {
        done = true;
        return;
      }
      yield r.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Bytes kept of an error body; error bodies are small JSON objects. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Reads the whole body as UTF-8 text. Chunks are kept in a list and joined once at the end
 * (no per-chunk concatenation). With `maxBytes`, reading stops there and the rest is cancelled.
 */
export async function readBodyText(
  body: ReadableStream<Uint8Array> | null,
  opts: BodyReadOptions & { maxBytes?: number },
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const max = opts.maxBytes ?? Infinity;
  for await (const chunk of iterateBody(body, opts)) {
    chunks.push(chunk);
    total += chunk.byteLength;
    if (total >= max) break;
  }
  return Buffer.concat(chunks, Math.min(total, max)).toString('utf8');
}
