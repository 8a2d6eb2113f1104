/**
 * A `fetch` that keeps a copy of the body of each request it is told to watch (named by the
 * {@link LATENCY_ID_HEADER}), for `--record`. The copy is taken as the chunks pass to the client,
 * so the client reads them exactly as without it.
 */
import { LATENCY_ID_HEADER } from './connectTimes.js';

/** A capture larger than this stops being kept (the request is still measured). */
export const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;

export interface BodyCopy {
  chunks: Uint8Array[];
  bytes: number;
  /** It outgrew {@link MAX_CAPTURE_BYTES}; `chunks` was emptied. */
  truncated: boolean;
}

export interface BodyTap {
  fetch: typeof fetch;
  watch(id: string): BodyCopy;
  forget(id: string): void;
}

export function createBodyTap(inner: typeof fetch = globalThis.fetch): BodyTap {
  const watched = new Map<string, BodyCopy>();
  const tapped: typeof fetch = async (input, init) => {
    const response = await inner(input, init);
    const id = new Headers(init?.headers).get(LATENCY_ID_HEADER);
    const copy = id === null ? undefined : watched.get(id);
    if (copy === undefined || response.body === null || !response.ok) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (!copy.truncated) {
            copy.bytes += chunk.byteLength;
            if (copy.bytes > MAX_CAPTURE_BYTES) {
              copy.truncated = true;
              copy.chunks = [];
            } else copy.chunks.push(chunk.slice());
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return {
    fetch: tapped,
    watch(id) {
      const copy: BodyCopy = { chunks: [], bytes: 0, truncated: false };
      watched.set(id, copy);
      return copy;
    },
    forget(id) {
      watched.delete(id);
    },
  };
}

/** The copied chunks as one buffer. */
export function joinChunks(copy: BodyCopy): Uint8Array {
  const out = new Uint8Array(copy.bytes);
  let at = 0;
  for (const c of copy.chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
