/**
 * `voicewire decode <capture.sse|-> [--format <wav|pcm|mp3|opus>] [--sample-rate <hz>] [--resample <hz>]
 *    [--encoding <s16le|f32le|mulaw|alaw>] --out <out.wav> [--words <words.json>] [--captions <file.vtt|file.srt> [--text-file <file>]]`
 *
 * Decodes a captured speech SSE stream into a 16-bit WAV at the stream's native rate and writes
 * the final word timeline (as JSON and/or captions). Without --format the container is told from
 * the audio's first bytes (decodeProbe.ts); with it, the engine checks it (FORMAT_MISMATCH). On bad
 * input the typed error goes to stderr, exit code 1, and the outputs still hold the audio and words
 * from before the fault; on Ctrl-C likewise, exit 130.
 */
import { open, readFile, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { AUDIO_FORMATS, type AudioFormat, type SampleEncoding } from '../codec/types.js';
import { WAV_SAMPLE_ENCODINGS } from '../codec/wavFormat.js';
import { createSpeechPipeline, type OutputFormat, type SpeechPipeline } from '../engine/SpeechPipeline.js';
import { AbortError, SinkError, VoicewireError } from '../errors.js';
import { WavWriter } from '../sinks/WavWriter.js';
import { captionsDocument, parseCaptionsTarget, type CaptionsTarget } from './captionsOutput.js';
import { probeFormat, type ProbeResult } from './decodeProbe.js';
import { EXIT_CODES_HELP, EXIT_FAILED, EXIT_OK, exitCodeFor, UsageError } from './exitCodes.js';

export const DECODE_USAGE = `usage: voicewire decode <capture.sse|-> [--format <wav|pcm|mp3|opus>] [--sample-rate <hz>] [--resample <hz>]
                        [--encoding <s16le|f32le|mulaw|alaw>] --out <out.wav> [--words <words.json>]
                        [--captions <file.vtt|file.srt> [--text-file <file>]]

  <capture.sse|->    a captured SSE body of POST /v1/tts/stream/with-timestamp ('-' reads stdin)
  --format           the request's format (default: told from the audio's first bytes; raw pcm has
                     no signature: give --format pcm, or --sample-rate alone); given, it is checked
  --sample-rate      the request's sample_rate (required for pcm; for the others the stream's own wins)
  --resample         output rate in Hz (default: the stream's own; opus decodes natively at 8/12/16/24/48 kHz)
  --encoding         s16le (default, WAV format 1), f32le (float WAV, format 3), mulaw or alaw (G.711 WAV, format 7 or 6)
  --out              the WAV to write
  --words            the final word timeline as JSON [{text, start, end, chunk_seq}] (global seconds)
  --captions         the final word timeline as WebVTT (.vtt) or SRT (.srt) captions
  --text-file        the text that was spoken (UTF-8): captions then show its punctuation and casing

On bad input (exit 1) or Ctrl-C (exit 130) the outputs hold what came before.

${EXIT_CODES_HELP}`;

/** The decoder for a capture whose format cannot be told because no audio came (the engine
 * reports a bad first event, or decodes nothing): any that needs no --sample-rate. */
const FORMAT_WITHOUT_AUDIO: AudioFormat = 'wav';
/** Used for the header of an empty output when the stream never said its rate. */
const DEFAULT_SAMPLE_RATE = 44100;
const TIME_DECIMALS = 1e6;

interface DecodeArgs {
  input: string;
  /** undefined: told from the audio (decodeProbe.ts). */
  format: AudioFormat | undefined;
  sampleRate: number | undefined;
  resample: number | undefined;
  encoding: SampleEncoding;
  out: string;
  words: string | undefined;
  captions: CaptionsTarget | undefined;
  textFile: string | undefined;
}

function parse(argv: string[]): DecodeArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string', short: 'f' },
        'sample-rate': { type: 'string', short: 'r' },
        resample: { type: 'string' },
        encoding: { type: 'string', short: 'e' },
        out: { type: 'string', short: 'o' },
        words: { type: 'string', short: 'w' },
        captions: { type: 'string' },
        'text-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'missing <capture.sse|-> input'
        : `expected one input, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  const format = values.format;
  if (format !== undefined && !AUDIO_FORMATS.includes(format as AudioFormat))
    throw new UsageError(`--format must be one of ${AUDIO_FORMATS.join(', ')}, got '${format}'`);
  if (values.out === undefined) throw new UsageError('--out is required');
  let sampleRate: number | undefined;
  if (values['sample-rate'] !== undefined) {
    const text = values['sample-rate'];
    sampleRate = /^[1-9][0-9]{0,6}$/.test(text) ? Number(text) : NaN;
    if (Number.isNaN(sampleRate)) throw new UsageError(`--sample-rate must be a positive integer (Hz), got '${text}'`);
  }
  if (format === 'pcm' && sampleRate === undefined)
    throw new UsageError('--sample-rate is required for --format pcm (raw PCM carries no header)');
  let resample: number | undefined;
  if (values.resample !== undefined) {
    resample = /^[1-9][0-9]{0,5}$/.test(values.resample) ? Number(values.resample) : NaN;
    if (Number.isNaN(resample)) throw new UsageError(`--resample must be a positive integer (Hz), got '${values.resample}'`);
  }
  const encoding = (values.encoding ?? 's16le') as SampleEncoding;
  if (!WAV_SAMPLE_ENCODINGS.includes(encoding))
    throw new UsageError(`--encoding must be one of ${WAV_SAMPLE_ENCODINGS.join(', ')}, got '${values.encoding}'`);
  const captions = values.captions === undefined ? undefined : parseCaptionsTarget(values.captions);
  if (values['text-file'] !== undefined && captions === undefined)
    throw new UsageError('--text-file is the text of the captions: give --captions too');
  return {
    input: positionals[0] as string,
    format: format as AudioFormat | undefined,
    sampleRate,
    resample,
    encoding,
    out: values.out,
    words: values.words,
    captions,
    textFile: values['text-file'],
  };
}

function describe(err: unknown): string {
  if (err instanceof VoicewireError) {
    const where = [
      err.eventIndex !== undefined ? `event ${err.eventIndex}` : '',
      err.byteOffset !== undefined ? `byte ${err.byteOffset}` : '',
      err.field !== undefined ? `field ${err.field}` : '',
    ].filter(Boolean);
    return `${err.code}: ${err.message}${where.length ? ` (${where.join(', ')})` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}

const round = (t: number): number => Math.round(t * TIME_DECIMALS) / TIME_DECIMALS;

async function openInput(path: string): Promise<Readable> {
  if (path === '-') return process.stdin;
  try {
    const handle = await open(path, 'r');
    return handle.createReadStream();
  } catch (err) {
    throw readFault(path, err);
  }
}

export async function run(argv: string[]): Promise<number> {
  let args: DecodeArgs | 'help';
  try {
    args = parse(argv);
  } catch (err) {
    process.stderr.write(`voicewire decode: ${(err as Error).message}\n${DECODE_USAGE}`);
    return exitCodeFor(err);
  }
  if (args === 'help') {
    process.stdout.write(DECODE_USAGE);
    return EXIT_OK;
  }
  const fail = (err: unknown): number => {
    process.stderr.write(`voicewire decode: ${describe(err)}\n`);
    return exitCodeFor(err);
  };
  // With --format the engine is built from the flags alone, before any file is touched.
  let speech = args.format === undefined ? null : buildSpeech(args, args.format);
  if (speech instanceof UsageError) return fail(speech);
  let sourceText: string | undefined;
  let input: Readable;
  try {
    if (args.textFile !== undefined) sourceText = await readText(args.textFile);
    input = await openInput(args.input);
  } catch (err) {
    speech?.destroy();
    return fail(err);
  }
  let format = args.format;
  let head: Probed = NOTHING_READ;
  if (speech === null) {
    const probe = await probeFormat(input);
    head = probe;
    if (probe.container === 'unknown' && args.sampleRate === undefined) {
      input.destroy();
      return fail(
        new UsageError(
          'cannot tell the format: the audio starts with no known signature (raw pcm has none); ' +
            'give --format pcm --sample-rate <hz>, or --format',
        ),
      );
    }
    // No audio before the end, or a bad event first: any decoder will do, the engine reports the event.
    format = probe.format ?? (probe.container === 'unknown' ? 'pcm' : FORMAT_WITHOUT_AUDIO);
    speech = buildSpeech(args, format);
    if (speech instanceof UsageError) {
      input.destroy();
      return fail(speech);
    }
  }
  let writer: WavWriter;
  try {
    writer = await WavWriter.open(args.out).catch((err: Error) => {
      input.destroy();
      throw writeFault(args.out, err);
    });
  } catch (err) {
    speech.destroy();
    return fail(err);
  }
  return decode({ ...args, format: format as AudioFormat }, { speech, input, head, writer, sourceText });
}

/** The engine for these flags, or the invalid option it refuses (built from the flags alone). */
function buildSpeech(args: DecodeArgs, format: AudioFormat): SpeechPipeline | UsageError {
  try {
    const output =
      args.resample === undefined && args.encoding === 's16le'
        ? undefined
        : { encoding: args.encoding, ...(args.resample === undefined ? {} : { sampleRate: args.resample }) };
    return createSpeechPipeline({
      format,
      ...(args.sampleRate === undefined ? {} : { sampleRate: args.sampleRate }),
      ...(output === undefined ? {} : { output }),
    });
  } catch (err) {
    return new UsageError(describe(err));
  }
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw readFault(path, err);
  }
}

/** What the format probe already read from the input. */
type Probed = Pick<ProbeResult, 'head' | 'ended' | 'error'>;
const NOTHING_READ: Probed = { head: [], ended: false, error: null };

interface Decoding {
  speech: SpeechPipeline;
  input: Readable;
  head: Probed;
  writer: WavWriter;
  sourceText: string | undefined;
}

async function decode(args: DecodeArgs & { format: AudioFormat }, { speech, input, head, writer, sourceText }: Decoding): Promise<number> {
  let format: OutputFormat | null = null;
  let fault: unknown = null;
  speech.on('warning', (w: VoicewireError) => process.stderr.write(`voicewire decode: warning: ${describe(w)}\n`));
  speech.on('format', (f: OutputFormat) => (format = f));
  input.on('error', (err) => speech.destroy(readFault(args.input, err)));
  // Ctrl-C stops reading; the outputs are still finished with what was decoded.
  const onInterrupt = (): void => void speech.destroy(new AbortError('interrupted'));
  process.once('SIGINT', onInterrupt);
  for (const chunk of head.head) speech.write(chunk);
  if (head.error !== null) speech.destroy(readFault(args.input, head.error));
  else if (head.ended) speech.end();
  else input.pipe(speech);
  try {
    let formatSet = false;
    for await (const frame of speech as AsyncIterable<{ samples: Int16Array | Float32Array | Uint8Array }>) {
      if (!formatSet) {
        formatSet = true;
        const f = format as OutputFormat | null;
        await writer
          .setFormat({ sampleRate: f?.sampleRate ?? DEFAULT_SAMPLE_RATE, channels: f?.channels ?? 1, encoding: args.encoding })
          .catch(ioFault(args.out));
      }
      await writer.write(frame.samples).catch(ioFault(args.out));
    }
  } catch (err) {
    fault = err;
    input.unpipe(speech);
    if (input !== process.stdin) input.destroy();
    else if (err instanceof AbortError) process.stdin.pause();
  } finally {
    process.off('SIGINT', onInterrupt);
  }
  const summary = speech.summary();
  const timeline = speech.alignment
    .timeline()
    .map((w) => ({ text: w.text, start: round(w.start), end: round(w.end), chunk_seq: w.chunkSeq }));
  try {
    await writer
      .close({ sampleRate: args.resample ?? args.sampleRate ?? DEFAULT_SAMPLE_RATE, channels: 1, encoding: args.encoding })
      .catch(ioFault(args.out));
    if (args.words !== undefined) {
      await writeFile(args.words, `[\n${timeline.map((w) => `  ${JSON.stringify(w)}`).join(',\n')}${timeline.length ? '\n' : ''}]\n`).catch(
        ioFault(args.words),
      );
    }
    if (args.captions !== undefined) {
      await writeFile(args.captions.path, captionsDocument(args.captions.kind, speech.alignment.timeline(), sourceText)).catch(
        ioFault(args.captions.path),
      );
    }
  } catch (err) {
    fault ??= err;
  }
  const f = format as OutputFormat | null;
  const rate = f === null ? 'no audio' : `${f.sampleRate} Hz ${f.channels === 1 ? 'mono' : `${f.channels} ch`}`;
  const written = [args.out, args.words, args.captions?.path].filter((p) => p !== undefined).join(', ');
  process.stdout.write(
    `${fault === null ? 'decoded' : 'partially decoded'} ${summary.durationSec.toFixed(2)} s of ${args.format} (${rate}) ` +
      `from ${summary.events} events: ${timeline.length} words → ${written}\n`,
  );
  if (fault === null) return EXIT_OK;
  const code = exitCodeFor(fault);
  process.stderr.write(
    `voicewire decode: ${fault instanceof AbortError ? 'interrupted' : `${code === EXIT_FAILED ? 'bad input: ' : ''}${describe(fault)}`}\n`,
  );
  return code;
}

function readFault(path: string, err: unknown): VoicewireError {
  return new VoicewireError('INPUT_IO', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
}

function writeFault(path: string, err: unknown): SinkError {
  return new SinkError('SINK_IO', `cannot write ${path}: ${(err as Error).message}`, { cause: err });
}

function ioFault(path: string): (err: Error) => never {
  return (err) => {
    throw writeFault(path, err);
  };
}
