/**
 * `voicewire say "<text>"`: text in, audio out (a WAV, the sound output, or both) with live word
 * captions synced to what is heard. Thin: arguments → the library (client, sinks, captions) →
 * print. See {@link SAY_USAGE} for the flags and exit codes.
 */
import { writeFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { createLineCaptionRenderer, createTtyCaptionRenderer, type CaptionRenderer, type TextOutput } from '../captions/CaptionRenderer.js';
import { createClient, type Client } from '../client/createClient.js';
import type { TtsStreamResult } from '../client/tts.js';
import type { AudioFrame } from '../codec/types.js';
import { AbortError, RequestValidationError, SinkError, VoicewireError } from '../errors.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import { detectAudioOutput } from '../sinks/audioOutput.js';
import { createPlayerSink, createRealtimeSink, type PlayerSink } from '../sinks/PlayerSink.js';
import type { WavFileSink } from '../sinks/WavFileSink.js';
import { createViewRecorder } from '../latency/view/captureView.js';
import { captureViewerHtml } from '../latency/view/viewerHtml.js';
import type { EncodedFile } from './encodedFile.js';
import { EXIT_INTERRUPTED, EXIT_OK, exitCodeFor, UsageError } from './exitCodes.js';
import { parseSayArgs, SAY_USAGE, type SayOptions } from './sayArgs.js';
import { openSayOutputs, type CaptionsFile, type SayOutputs } from './sayOutputs.js';
import { createProgress, NO_PROGRESS, PROGRESS_MIN_WORDS, type Progress } from './sayProgress.js';

export { SAY_USAGE } from './sayArgs.js';
export { EXIT_INTERRUPTED } from './exitCodes.js';

const PREFIX = 'voicewire say: ';
/** The `--html` page's title: the text, cut here. */
const TITLE_CHARS = 80;

type Terminal = TextOutput & { isTTY?: boolean; columns?: number };

/** Where `say` reads and writes; tests pass their own. */
export interface SayIo {
  stdout: Terminal;
  stderr: Terminal;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Calls `fn` on SIGINT; returns the unsubscribe. */
  onInterrupt(fn: () => void): () => void;
  /** ms since the process started. @defaultValue performance.now */
  now(): number;
}

function processIo(): SayIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    onInterrupt(fn) {
      process.on('SIGINT', fn);
      return () => process.off('SIGINT', fn);
    },
    now: () => performance.now(),
  };
}

export async function run(argv: string[], io: SayIo = processIo()): Promise<number> {
  let opts: SayOptions;
  try {
    opts = parseSayArgs(argv, io.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`${PREFIX}${err.message}\n\n${SAY_USAGE}`);
    return exitCodeFor(err);
  }
  if (opts.help) {
    io.stdout.write(SAY_USAGE);
    return EXIT_OK;
  }
  const text = opts.text ?? (io.stdin.isTTY ? '' : await readAll(io.stdin));
  if (text.trim() === '') {
    const err = new UsageError('no text: give it as an argument or on stdin');
    io.stderr.write(`${PREFIX}${err.message}\n\n${SAY_USAGE}`);
    return exitCodeFor(err);
  }

  // The sound output is checked before anything else starts.
  let player: PlayerSink | null = null;
  if (opts.play) {
    try {
      player = createPlayerSink({ detect: { env: io.env } });
    } catch (err) {
      if (err instanceof SinkError && err.code === 'NO_AUDIO_DEVICE') {
        io.stderr.write(`${PREFIX}cannot play: ${err.message}; use --out file.wav to save the audio\n`);
        return exitCodeFor(err);
      }
      throw err;
    }
  } else if (opts.out === undefined) {
    const check = detectAudioOutput({ env: io.env });
    if (check.ok) player = createPlayerSink({ player: check.player, env: io.env });
    else {
      io.stderr.write(`${PREFIX}${check.reason}: showing the captions in real time; use --out file.wav to save the audio\n`);
      player = createRealtimeSink();
    }
  } else if (opts.realtime) {
    player = createRealtimeSink();
  }
  // From the start: a player that fails is reported, never an unhandled 'error'.
  if (player !== null) keepErrorsHandled(player);

  const controller = new AbortController();
  const offInterrupt = io.onInterrupt(() => controller.abort());
  let service: { close(): Promise<void> } | null = null;
  let outputs: SayOutputs = { wav: null, encoded: null, captions: null };
  // An encoded --out takes the service's bytes from the response body on their way to the engine.
  const fetchVia: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    return outputs.encoded?.tap(response) ?? response;
  };
  try {
    // A base URL that is not one is refused before any file is opened or anything started.
    let client: Client | null =
      opts.baseUrl === undefined
        ? null
        : createClient({ baseUrl: opts.baseUrl, fetch: fetchVia, ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}) });
    outputs = await openSayOutputs(opts);
    if (outputs.wav !== null) keepErrorsHandled(outputs.wav);
    if (client === null) {
      if (opts.apiKey !== undefined) {
        io.stderr.write(
          `${PREFIX}an API key without a base URL still uses the local service; set --base-url or VOICEWIRE_BASE_URL to use a real one\n`,
        );
      }
      const { startLocalService } = await import('../service/index.js');
      const local = await startLocalService();
      service = local;
      client = createClient({ baseUrl: local.baseUrl, apiKey: local.token, fetch: fetchVia });
    }
    const request: TtsRequest = { text, format: opts.format };
    if (opts.sampleRate !== undefined) request.sample_rate = opts.sampleRate;
    if (opts.voice !== undefined) request.reference_id = opts.voice;
    if (opts.latency !== undefined) request.latency = opts.latency;
    const result = await client.tts.streamWithTimestamps(request, {
      signal: controller.signal,
      output: { encoding: 's16le' },
      playhead: player !== null ? 'external' : 'consumer',
      ...(opts.model !== undefined ? { model: opts.model } : {}),
    });
    return await speak(result, {
      io,
      player,
      wav: outputs.wav,
      encoded: outputs.encoded,
      captions: outputs.captions,
      html: opts.html ?? null,
      text,
    });
  } catch (err) {
    player?.destroy();
    if (outputs.wav !== null) await endSink(outputs.wav).catch(() => undefined);
    await outputs.encoded?.close().catch(() => undefined);
    await outputs.captions?.write([]).catch(() => undefined);
    return report(io, err, controller.signal.aborted);
  } finally {
    offInterrupt();
    await service?.close();
  }
}

interface SpeakContext {
  io: SayIo;
  player: PlayerSink | null;
  wav: WavFileSink | null;
  encoded: EncodedFile | null;
  captions: CaptionsFile | null;
  /** `--html`: where the page of what was spoken goes. */
  html: string | null;
  text: string;
}

/** Reads the stream into the sinks, with captions and progress; returns the exit code. */
async function speak(result: TtsStreamResult, ctx: SpeakContext): Promise<number> {
  const { io, player, wav, encoded } = ctx;
  const { stream } = result;
  const start = io.now();
  const expectedWords = ctx.text.split(/\s+/).filter((w) => w !== '').length;
  const progress: Progress =
    (wav !== null || encoded !== null) && player === null && expectedWords >= PROGRESS_MIN_WORDS
      ? createProgress(io.stderr, io.now)
      : NO_PROGRESS;
  const sharedTerminal = io.stdout.isTTY === true && io.stderr.isTTY === true;
  const renderer: CaptionRenderer =
    io.stdout.isTTY === true && progress === NO_PROGRESS
      ? createTtyCaptionRenderer(io.stdout, { timeline: () => stream.alignment.timeline(), sourceText: result.request.text })
      : createLineCaptionRenderer({
          write: (s: string) => {
            if (sharedTerminal) progress.clear();
            io.stdout.write(s);
            if (sharedTerminal) progress.redraw();
          },
        });
  stream.on('word', (w) => renderer.word(w));
  stream.on('warning', (w: VoicewireError) => {
    progress.clear();
    io.stderr.write(`${PREFIX}warning: ${w.message}\n`);
  });
  // The player says what was heard; that moves the playhead (and the captions), also after the
  // stream itself has ended or failed, while the received audio plays out.
  player?.on('position', (samples: number) => stream.playhead.advanceTo(samples));
  // --html: the page of what was spoken (audio and words), written once the stream is done.
  const page = ctx.html === null ? null : createViewRecorder(result.request.format);
  if (page !== null) {
    stream.on('word', (w) => page.word(w));
    stream.on('wordRevised', (r) => page.revision(r));
  }

  let firstFrameAt: number | null = null;
  let streamError: unknown = null;
  let sinkError: unknown = null;
  let seconds = 0;
  try {
    for await (const frame of stream as AsyncIterable<AudioFrame>) {
      firstFrameAt ??= io.now();
      page?.frame(frame);
      seconds = (frame.startSample + frame.sampleCount) / frame.sampleRate;
      try {
        if (wav !== null) await writeTo(wav, frame);
        if (player !== null) await writeTo(player, frame);
        if (encoded?.error) throw encoded.error;
      } catch (err) {
        sinkError = err;
        stream.destroy();
        break;
      }
      progress.update(stream.alignment.timeline().length / Math.max(1, expectedWords), seconds);
    }
  } catch (err) {
    streamError = err;
  }
  progress.done();
  // Play out what arrived (also after a stream failure), unless interrupted or the player failed.
  const aborted = streamError instanceof AbortError;
  if (player !== null) {
    if (aborted || sinkError !== null) player.destroy();
    else await endSink(player).catch((err: unknown) => (sinkError ??= err));
  }
  if (wav !== null) await endSink(wav).catch((err: unknown) => (sinkError ??= err));
  await encoded?.close().catch((err: unknown) => (sinkError ??= err));
  renderer.finish();

  const words = stream.alignment.timeline();
  await ctx.captions?.write(words, result.request.text).catch((err: unknown) => (sinkError ??= err));
  if (page !== null && ctx.html !== null) {
    const path = ctx.html;
    await writeFile(path, captureViewerHtml(page.view(words), ctx.text.slice(0, TITLE_CHARS))).catch((err: Error) => {
      sinkError ??= new SinkError('SINK_IO', `cannot write ${path}: ${err.message}`, { cause: err });
    });
  }
  const summary = [`${seconds.toFixed(2)} s of audio`];
  if (firstFrameAt !== null) {
    summary.push(`first audio ${Math.round(firstFrameAt - start)} ms after the request (${Math.round(firstFrameAt)} ms after start)`);
  }
  summary.push(`${words.length} word${words.length === 1 ? '' : 's'}`);
  if (result.metrics.attempts > 1) summary.push(`${result.metrics.attempts} attempts`);
  const wavWritten = wav !== null && !wav.errored;
  if (wavWritten) summary.push(`wrote ${wav.path}`);
  const encodedWritten = encoded !== null && encoded.error === null;
  if (encodedWritten) summary.push(`wrote ${encoded.path} (${describeEncoded(result)})`);
  io.stderr.write(`${PREFIX}${summary.join(', ')}\n`);
  if (sinkError !== null) return report(io, sinkError, false);
  if (streamError !== null) {
    const code = report(io, streamError, aborted);
    if (wavWritten && !aborted) io.stderr.write(`${PREFIX}${wav.path} is a complete WAV of the ${seconds.toFixed(2)} s that arrived\n`);
    if (encodedWritten && !aborted) io.stderr.write(`${PREFIX}${encoded.path} holds the audio of every complete event that arrived\n`);
    return code;
  }
  return EXIT_OK;
}

/** What an encoded --out file holds, e.g. `mp3` or `raw s16le pcm, 44100 Hz mono`. */
function describeEncoded(result: TtsStreamResult): string {
  const { format, sample_rate } = result.request;
  return format === 'pcm' ? `raw s16le pcm, ${sample_rate} Hz mono` : format === 'opus' ? 'Ogg Opus' : format;
}

/** Writes one frame, resolving when the sink took it (backpressure) or rejecting when it failed. */
function writeTo(sink: Writable, frame: AudioFrame): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (sink.destroyed) {
      reject(sink.errored ?? new SinkError('SINK_IO', 'the output was closed'));
      return;
    }
    // A sink that fails while this write waits rejects it at once, whether or not it calls back.
    const onError = (err: Error): void => reject(err);
    sink.once('error', onError);
    sink.write(frame, (err) => {
      sink.off('error', onError);
      if (err) reject(err);
      else resolve();
    });
  });
}

/** Ends a sink and waits until it has closed (a WAV's header is fixed by then). */
function endSink(sink: Writable): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (sink.closed) {
      if (sink.errored) reject(sink.errored);
      else resolve();
      return;
    }
    sink.once('close', () => (sink.errored ? reject(sink.errored) : resolve()));
    sink.once('error', () => undefined);
    sink.end();
  });
}

/**
 * A sink's failure reaches `say` through its write callbacks, `errored` and `close` (see writeTo,
 * endSink); this listener only keeps its 'error' event from crashing the process as unhandled.
 */
function keepErrorsHandled(sink: Writable): void {
  sink.on('error', () => undefined);
}

/** One line on stderr for an error; returns the exit code it maps to. */
function report(io: SayIo, err: unknown, interrupted: boolean): number {
  const code = interrupted ? EXIT_INTERRUPTED : exitCodeFor(err);
  const message = err instanceof Error ? err.message : String(err);
  let line: string;
  if (code === EXIT_INTERRUPTED) line = 'interrupted';
  else if (err instanceof RequestValidationError) line = `invalid request: ${message}`;
  else if (err instanceof SinkError) line = message;
  else if (err instanceof VoicewireError) line = `${err.name}: ${message}`;
  else line = err instanceof Error && err.stack ? err.stack : message; // a bug: keep its stack
  io.stderr.write(`${PREFIX}${line}\n`);
  return code;
}

async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
