/**
 * `voicewire say --out x.mp3|x.opus|x.ogg|x.pcm`: the service's own encoded audio (the format the
 * extension names, requested as such), written to the file as the events arrive, while the engine
 * still decodes the same stream for playback and captions. The bytes are taken from the response
 * body on its way to the client (`say` gives the client a `fetch` that calls {@link EncodedFile.tap}),
 * so nothing is re-encoded.
 *
 * Each event's audio is written once the event is complete and valid, before the body bytes
 * go on to the engine: when the stream fails midway the file holds the audio of every event the
 * engine accepted. A write failure does not break the body (that would read as a service fault);
 * it is kept in {@link EncodedFile.error} for `say` to report as local I/O.
 */
import type { FileHandle } from 'node:fs/promises';
import { SinkError } from '../errors.js';
import { createEventAudioReader } from './eventAudio.js';

const EVENT_STREAM = 'text/event-stream';

export class EncodedFile {
  readonly path: string;
  private readonly handle: FileHandle;
  /** Audio bytes written so far. */
  bytes = 0;
  /** The first write failure (SINK_IO), after which nothing more is written. */
  error: SinkError | null = null;
  private tapped = false;
  private closed = false;
  /** The write in flight: close waits for it. */
  private pending: Promise<void> = Promise.resolve();

  constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.handle = handle;
  }

  /**
   * The response with its body teed into the file when it is the (first) 2xx event stream; any
   * other response (an error answer before a retry) as it is.
   */
  tap(response: Response): Response {
    const type = response.headers.get('content-type') ?? '';
    if (this.tapped || !response.ok || response.body === null || !type.toLowerCase().includes(EVENT_STREAM)) return response;
    this.tapped = true;
    const audio: Buffer[] = [];
    const reader = createEventAudioReader((bytes) => audio.push(bytes));
    let readable = true;
    const take = (chunk?: Uint8Array): void => {
      if (!readable) return;
      try {
        if (chunk === undefined) reader.end();
        else reader.feed(chunk);
      } catch {
        readable = false; // an invalid event: the engine reports it; the file ends before it
      }
    };
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: async (chunk, controller) => {
          take(chunk);
          await this.writeAll(audio.splice(0));
          controller.enqueue(chunk);
        },
        flush: async () => {
          take();
          await this.writeAll(audio.splice(0));
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  private writeAll(chunks: Buffer[]): Promise<void> {
    if (chunks.length === 0) return Promise.resolve();
    this.pending = this.pending.then(async () => {
      for (const chunk of chunks) {
        if (this.error !== null || this.closed) return;
        try {
          await this.handle.write(chunk);
          this.bytes += chunk.length;
        } catch (err) {
          this.error = new SinkError('SINK_IO', `cannot write ${this.path}: ${(err as Error).message}`, { cause: err });
        }
      }
    });
    return this.pending;
  }

  /** Waits for the write in flight and closes the file. @throws the write failure, if any */
  async close(): Promise<void> {
    await this.pending;
    if (!this.closed) {
      this.closed = true;
      await this.handle.close().catch((err: Error) => {
        this.error ??= new SinkError('SINK_IO', `cannot write ${this.path}: ${err.message}`, { cause: err });
      });
    }
    if (this.error !== null) throw this.error;
  }
}
