/**
 * Argument handling of `voicewire say` (pure: argv + env in, options or a usage error out).
 */
import { parseArgs } from 'node:util';
import type { AudioFormat } from '../codec/types.js';
import { AUDIO_FORMATS, LATENCY_MODES, type LatencyMode } from '../protocol/ttsRequest.js';
import { parseCaptionsTarget, type CaptionsTarget } from './captionsOutput.js';
import { EXIT_CODES_HELP, UsageError } from './exitCodes.js';

export const SAY_USAGE = `usage: voicewire say "<text>" [options]      (or: echo "<text>" | voicewire say [options])

Speaks the text with live word captions. Without --base-url (or VOICEWIRE_BASE_URL) it starts the
local voice service in-process: no account, no network.

options:
  --format opus|mp3|wav|pcm   audio format on the wire (default: the --out file's, else opus)
  --sample-rate N             sample rate to request (default: the format's own)
  --voice ID                  voice (reference_id)
  --model M                   model header (s1, s2-pro, s2.1-pro, s2.1-pro-free, drama-3-preview)
  --latency low|normal|balanced
  --out FILE                  write the audio (captions at decode speed); the extension says how:
                              .wav a WAV of the decoded audio (any --format); .mp3, .opus/.ogg,
                              .pcm/.raw the service's own mp3, Ogg Opus or raw s16le mono pcm,
                              requested in that format and written as it arrives
  --captions FILE.vtt|.srt    write the word timeline as WebVTT or SRT
  --html FILE.html            write a page: waveform, words, a player that highlights them
  --play                      play through the sound output (exits with an error if there is none)
  --realtime                  pace captions in real time (also with --out)
  --base-url URL              a real service (default: VOICEWIRE_BASE_URL, else the local service)
  --api-key KEY               bearer key (default: VOICEWIRE_API_KEY)
  -h, --help                  this help

With neither --out nor --play it plays when a sound device exists, else shows the captions in
real time. Captions go to stdout (one "0.31  word" line per word when stdout is not a terminal);
status, progress and the summary go to stderr. --out and --captions are opened before the request;
when the stream fails midway the file holds the audio that arrived.

${EXIT_CODES_HELP}`;

export interface SayOptions {
  text: string | null; // null: read stdin
  format: AudioFormat;
  sampleRate: number | undefined;
  voice: string | undefined;
  model: string | undefined;
  latency: LatencyMode | undefined;
  out: SayOut | undefined;
  captions: CaptionsTarget | undefined;
  html: string | undefined;
  play: boolean;
  realtime: boolean;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  help: boolean;
}

/**
 * The --out file: `encoded` is the service's bytes in the wire format (`format` of the options),
 * otherwise a WAV of the decoded audio.
 */
export interface SayOut {
  path: string;
  encoded: boolean;
}

/** --out extensions that name a wire format whose bytes are written as they come. */
const ENCODED_EXTENSIONS: Readonly<Record<string, AudioFormat>> = {
  '.mp3': 'mp3',
  '.opus': 'opus',
  '.ogg': 'opus',
  '.pcm': 'pcm',
  '.raw': 'pcm',
};
const WAV_EXTENSION = '.wav';
const OUT_EXTENSIONS = [WAV_EXTENSION, ...Object.keys(ENCODED_EXTENSIONS)];

export class SayUsageError extends UsageError {}

export const DEFAULT_SAY_FORMAT: AudioFormat = 'opus';

export function parseSayArgs(argv: string[], env: NodeJS.ProcessEnv): SayOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string' },
        'sample-rate': { type: 'string' },
        voice: { type: 'string' },
        model: { type: 'string' },
        latency: { type: 'string' },
        out: { type: 'string' },
        captions: { type: 'string' },
        html: { type: 'string' },
        play: { type: 'boolean' },
        realtime: { type: 'boolean' },
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new SayUsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.out !== undefined && v.out.trim() === '') throw new SayUsageError('--out needs a file name');
  const out = v.out === undefined ? undefined : parseOut(v.out);
  const outFormat = out?.encoded === true ? ENCODED_EXTENSIONS[extension(out.path)] : undefined;
  const format = (v.format ?? outFormat ?? DEFAULT_SAY_FORMAT) as AudioFormat;
  if (!AUDIO_FORMATS.includes(format))
    throw new SayUsageError(`--format must be one of ${AUDIO_FORMATS.join(', ')}, got ${JSON.stringify(v.format)}`);
  if (outFormat !== undefined && format !== outFormat) {
    throw new SayUsageError(
      `--out ${JSON.stringify(v.out)} holds the service's ${outFormat}, but --format asks for ${format}: drop --format, or write a .wav`,
    );
  }
  let sampleRate: number | undefined;
  if (v['sample-rate'] !== undefined) {
    sampleRate = Number(v['sample-rate']);
    if (!Number.isInteger(sampleRate) || sampleRate <= 0)
      throw new SayUsageError(`--sample-rate must be a positive integer, got ${JSON.stringify(v['sample-rate'])}`);
  }
  const latency = v.latency as LatencyMode | undefined;
  if (latency !== undefined && !LATENCY_MODES.includes(latency))
    throw new SayUsageError(`--latency must be one of ${LATENCY_MODES.join(', ')}, got ${JSON.stringify(latency)}`);
  const captions = v.captions === undefined ? undefined : parseCaptionsTarget(v.captions);
  if (v.html !== undefined && v.html.trim() === '') throw new SayUsageError('--html needs a file name');
  const positional = parsed.positionals;
  const text = positional.length === 0 || (positional.length === 1 && positional[0] === '-') ? null : positional.join(' ');
  const nonEmpty = (s: string | undefined): string | undefined => (s === undefined || s.trim() === '' ? undefined : s);
  return {
    text,
    format,
    sampleRate,
    voice: v.voice,
    model: v.model,
    latency,
    out,
    captions,
    html: v.html,
    play: v.play ?? false,
    realtime: v.realtime ?? false,
    baseUrl: nonEmpty(v['base-url']) ?? nonEmpty(env.VOICEWIRE_BASE_URL),
    apiKey: nonEmpty(v['api-key']) ?? nonEmpty(env.VOICEWIRE_API_KEY),
    help: v.help ?? false,
  };
}

function extension(path: string): string {
  const m = /\.[^./\\]*$/.exec(path);
  return m === null ? '' : m[0].toLowerCase();
}

function parseOut(path: string): SayOut {
  const ext = extension(path);
  if (ext === WAV_EXTENSION) return { path, encoded: false };
  if (ENCODED_EXTENSIONS[ext] !== undefined) return { path, encoded: true };
  const names = `${OUT_EXTENSIONS.slice(0, -1).join(', ')} or ${OUT_EXTENSIONS.at(-1)}`;
  throw new SayUsageError(`--out must end in ${names} (the extension names the format), got ${JSON.stringify(path)}`);
}
