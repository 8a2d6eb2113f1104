/**
 * Argument handling of `voicewire say` (pure: argv + env in, options or a usage error out).
 */
import { parseArgs } from 'node:util';
import type { AudioFormat } from '../codec/types.js';
import { AUDIO_FORMATS, LATENCY_MODES, type LatencyMode } from '../protocol/ttsRequest.js';

export const SAY_USAGE = `usage: voicewire say "<text>" [options]      (or: echo "<text>" | voicewire say [options])

Speaks the text with live word captions. Without --base-url (or VOICEWIRE_BASE_URL) it starts the
local voice service in-process: no account, no network.

options:
  --format opus|mp3|wav|pcm   audio format on the wire (default opus)
  --sample-rate N             sample rate to request (default: the format's own)
  --voice ID                  voice (reference_id)
  --model M                   model header (s1, s2-pro, s2.1-pro, s2.1-pro-free, drama-3-preview)
  --latency low|normal|balanced
  --out FILE.wav              write the audio to a WAV file (captions at decode speed)
  --captions FILE.vtt|.srt    write the word timeline as WebVTT or SRT
  --html FILE.html            write a page: waveform, words, a player that highlights them
  --play                      play through the sound output (exits with an error if there is none)
  --realtime                  pace captions in real time (also with --out)
  --base-url URL              a real service (default: VOICEWIRE_BASE_URL, else the local service)
  --api-key KEY               bearer key (default: VOICEWIRE_API_KEY)
  -h, --help                  this help

With neither --out nor --play it plays when a sound device exists, else shows the captions in
real time. Captions go to stdout (one "0.31  word" line per word when stdout is not a terminal);
status, progress and the summary go to stderr.

exit codes: 0 done; 1 the service or the stream failed (the WAV holds the audio that arrived);
2 usage; 3 I/O (cannot write a file, no sound device); 130 interrupted.
`;

export interface SayOptions {
  text: string | null; // null: read stdin
  format: AudioFormat;
  sampleRate: number | undefined;
  voice: string | undefined;
  model: string | undefined;
  latency: LatencyMode | undefined;
  out: string | undefined;
  captions: { path: string; kind: 'vtt' | 'srt' } | undefined;
  html: string | undefined;
  play: boolean;
  realtime: boolean;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  help: boolean;
}

export class SayUsageError extends Error {}

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
  const format = (v.format ?? DEFAULT_SAY_FORMAT) as AudioFormat;
  if (!AUDIO_FORMATS.includes(format)) throw new SayUsageError(`--format must be one of ${AUDIO_FORMATS.join(', ')}, got ${JSON.stringify(v.format)}`);
  let sampleRate: number | undefined;
  if (v['sample-rate'] !== undefined) {
    sampleRate = Number(v['sample-rate']);
    if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw new SayUsageError(`--sample-rate must be a positive integer, got ${JSON.stringify(v['sample-rate'])}`);
  }
  const latency = v.latency as LatencyMode | undefined;
  if (latency !== undefined && !LATENCY_MODES.includes(latency)) throw new SayUsageError(`--latency must be one of ${LATENCY_MODES.join(', ')}, got ${JSON.stringify(latency)}`);
  let captions: SayOptions['captions'];
  if (v.captions !== undefined) {
    const lower = v.captions.toLowerCase();
    const kind = lower.endsWith('.vtt') ? 'vtt' : lower.endsWith('.srt') ? 'srt' : null;
    if (kind === null) throw new SayUsageError(`--captions needs a .vtt or .srt file name, got ${JSON.stringify(v.captions)}`);
    captions = { path: v.captions, kind };
  }
  if (v.out !== undefined && v.out.trim() === '') throw new SayUsageError('--out needs a file name');
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
    out: v.out,
    captions,
    html: v.html,
    play: v.play ?? false,
    realtime: v.realtime ?? false,
    baseUrl: nonEmpty(v['base-url']) ?? nonEmpty(env.VOICEWIRE_BASE_URL),
    apiKey: nonEmpty(v['api-key']) ?? nonEmpty(env.VOICEWIRE_API_KEY),
    help: v.help ?? false,
  };
}
