/**
 * The files `voicewire say` writes (`--out` WAV or encoded file, `--captions`), opened before the request: a path
 * that cannot be written fails at once (exit 3) instead of after the whole text was synthesized.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { CaptionWord } from '../captions/captionCues.js';
import { SinkError } from '../errors.js';
import { createWavFileSink, type WavFileSink } from '../sinks/WavFileSink.js';
import { captionsDocument, type CaptionsKind } from './captionsOutput.js';
import { EncodedFile } from './encodedFile.js';
import type { SayOptions } from './sayArgs.js';

/** The captions file, open from the start; written once with the final timeline. */
export interface CaptionsFile {
  readonly path: string;
  /** Writes the document for these words (`sourceText`: the text spoken) and closes the file. */
  write(words: readonly CaptionWord[], sourceText?: string): Promise<void>;
  /** Closes the file without writing (it stays empty). */
  close(): Promise<void>;
}

export interface SayOutputs {
  wav: WavFileSink | null;
  /** `--out` with an mp3/opus/ogg/pcm/raw extension: the service's bytes. */
  encoded: EncodedFile | null;
  captions: CaptionsFile | null;
}

/** @throws SinkError `SINK_IO` naming the path that cannot be written; nothing is left open. */
export async function openSayOutputs(opts: Pick<SayOptions, 'out' | 'captions'>): Promise<SayOutputs> {
  let captions: CaptionsFile | null = null;
  if (opts.captions !== undefined) {
    const { path, kind } = opts.captions;
    const handle = await openForWriting(path);
    captions = captionsFile(path, handle, kind);
  }
  let wav: WavFileSink | null = null;
  let encoded: EncodedFile | null = null;
  if (opts.out !== undefined) {
    const { path } = opts.out;
    let handle: FileHandle;
    try {
      handle = await openForWriting(path);
    } catch (err) {
      await captions?.close();
      throw err;
    }
    if (opts.out.encoded) {
      encoded = new EncodedFile(path, handle);
    } else {
      // The sink opens the file itself, asynchronously and without a signal when done; opening it
      // here first made a bad path fail now, before the request.
      await handle.close();
      wav = createWavFileSink(path);
    }
  }
  return { wav, encoded, captions };
}

async function openForWriting(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'w');
  } catch (err) {
    throw new SinkError('SINK_IO', `cannot write ${path}: ${(err as Error).message}`, { cause: err });
  }
}

function captionsFile(path: string, handle: FileHandle, kind: CaptionsKind): CaptionsFile {
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return {
    path,
    close,
    async write(words, sourceText) {
      try {
        await handle.writeFile(captionsDocument(kind, words, sourceText));
      } catch (err) {
        throw new SinkError('SINK_IO', `cannot write ${path}: ${(err as Error).message}`, { cause: err });
      } finally {
        await close().catch(() => undefined);
      }
    },
  };
}
