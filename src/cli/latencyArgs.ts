/**
 * Argument handling of `voicewire latency` (pure: argv + env in, options or a usage error out).
 */
import { parseArgs } from 'node:util';
import type { AudioFormat } from '../codec/types.js';
import { AUDIO_FORMATS, LATENCY_MODES, type LatencyMode } from '../protocol/ttsRequest.js';

export const LATENCY_USAGE = `usage: voicewire latency [options]

Measures a speech endpoint's latency the way a phone call feels it: connect, response head, first
byte, first audio, first PCM frame, first word, last byte, gaps between audio events, and whether a
real-time player would have stalled. Without --base-url (or VOICEWIRE_BASE_URL) and --target it
measures the local voice service, started in-process.

what to measure:
  --base-url URL              a service (default: VOICEWIRE_BASE_URL, else the local service)
  --api-key KEY               bearer key (default: VOICEWIRE_API_KEY)
  --target LABEL=URL          a contender (repeat to compare services side by side)
  --api-key-env LABEL=VAR     the key of target LABEL, from environment variable VAR
  --model M                   a model (repeat to compare models side by side)
  --text T                    the text to speak (repeat for several)
  --texts FILE                one text per line
  --format opus|mp3|wav|pcm   audio format on the wire (default opus)
  --sample-rate N             sample rate to request
  --latency low|normal|balanced
  --pace fast|realtime        the local service's pace (default fast)

how:
  --runs N                    measured rounds; each sends every text to every contender (default 10)
  --concurrency C             requests in flight at once (default 1)
  --warmup W                  unmeasured rounds first (default 1)
  --jitter-buffer-ms B        a simulated player's buffer (repeat; default 0, 100 and 200)
  --timeout-ms T              wait for the head, and longest gap in the body (default 30000)

output (the summary table always goes to stdout; progress to stderr):
  --json FILE                 every request's record and the statistics
  --csv FILE                  one row per request
  --html FILE                 a self-contained report with charts
  --record DIR                save each SSE body (replay with 'voicewire decode') and its viewer page
  -h, --help                  this help

exit codes: 0 done; 1 a request failed (the service, the stream, or unreachable); 2 usage, or the
service refused a request (4xx); 3 local I/O (a file cannot be read or written); 130 interrupted
(what was measured so far is printed and written).
`;

export interface LatencyCliTarget {
  label: string;
  baseUrl: string;
  /** The key's environment variable, when given per target. */
  apiKeyEnv: string | undefined;
}

export interface LatencyCliOptions {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  targets: LatencyCliTarget[];
  models: string[];
  texts: string[];
  textsFile: string | undefined;
  format: AudioFormat;
  sampleRate: number | undefined;
  latency: LatencyMode | undefined;
  pace: 'fast' | 'realtime';
  runs: number;
  concurrency: number;
  warmup: number;
  jitterBuffersMs: number[] | undefined;
  timeoutMs: number | undefined;
  json: string | undefined;
  csv: string | undefined;
  html: string | undefined;
  record: string | undefined;
  help: boolean;
}

export class LatencyUsageError extends Error {}

const DEFAULT_RUNS = 10;
const DEFAULT_WARMUP = 1;
/** More requests in flight than this is a typo, not a benchmark (each holds a socket and a decoder). */
const MAX_CONCURRENCY = 1000;

function integer(flag: string, v: string | undefined, min: number, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    throw new LatencyUsageError(
      `${flag} must be an integer ${min}–${max === Number.MAX_SAFE_INTEGER ? '…' : max}, got ${JSON.stringify(v)}`,
    );
  return n;
}

function pair(flag: string, v: string): [string, string] {
  const eq = v.indexOf('=');
  if (eq <= 0 || eq === v.length - 1) throw new LatencyUsageError(`${flag} needs LABEL=VALUE, got ${JSON.stringify(v)}`);
  return [v.slice(0, eq), v.slice(eq + 1)];
}

function absoluteUrl(flag: string, v: string): string {
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
    return v;
  } catch {
    throw new LatencyUsageError(`${flag} needs an http(s) URL, got ${JSON.stringify(v)}`);
  }
}

export function parseLatencyArgs(argv: string[], env: NodeJS.ProcessEnv): LatencyCliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: false,
      strict: true,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        target: { type: 'string', multiple: true },
        'api-key-env': { type: 'string', multiple: true },
        model: { type: 'string', multiple: true },
        text: { type: 'string', multiple: true },
        texts: { type: 'string' },
        format: { type: 'string' },
        'sample-rate': { type: 'string' },
        latency: { type: 'string' },
        pace: { type: 'string' },
        runs: { type: 'string' },
        concurrency: { type: 'string' },
        warmup: { type: 'string' },
        'jitter-buffer-ms': { type: 'string', multiple: true },
        'timeout-ms': { type: 'string' },
        json: { type: 'string' },
        csv: { type: 'string' },
        html: { type: 'string' },
        record: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new LatencyUsageError((err as Error).message);
  }
  const v = parsed.values;
  const format = (v.format ?? 'opus') as AudioFormat;
  if (!AUDIO_FORMATS.includes(format))
    throw new LatencyUsageError(`--format must be one of ${AUDIO_FORMATS.join(', ')}, got ${JSON.stringify(v.format)}`);
  const latency = v.latency as LatencyMode | undefined;
  if (latency !== undefined && !LATENCY_MODES.includes(latency))
    throw new LatencyUsageError(`--latency must be one of ${LATENCY_MODES.join(', ')}, got ${JSON.stringify(latency)}`);
  const pace = v.pace ?? 'fast';
  if (pace !== 'fast' && pace !== 'realtime') throw new LatencyUsageError(`--pace must be fast or realtime, got ${JSON.stringify(pace)}`);
  const targets: LatencyCliTarget[] = (v.target ?? []).map((t) => {
    const [label, url] = pair('--target', t);
    return { label, baseUrl: absoluteUrl('--target', url), apiKeyEnv: undefined };
  });
  if (new Set(targets.map((t) => t.label)).size !== targets.length) throw new LatencyUsageError('--target labels must differ');
  for (const k of v['api-key-env'] ?? []) {
    const [label, variable] = pair('--api-key-env', k);
    const target = targets.find((t) => t.label === label);
    if (target === undefined) throw new LatencyUsageError(`--api-key-env ${label}=…: no --target named ${JSON.stringify(label)}`);
    if ((env[variable] ?? '') === '') throw new LatencyUsageError(`--api-key-env ${label}=${variable}: ${variable} is not set`);
    target.apiKeyEnv = variable;
  }
  const nonEmpty = (s: string | undefined): string | undefined => (s === undefined || s.trim() === '' ? undefined : s);
  const baseUrl = nonEmpty(v['base-url']) ?? nonEmpty(env.VOICEWIRE_BASE_URL);
  if (baseUrl !== undefined) absoluteUrl('--base-url', baseUrl);
  if (v['base-url'] !== undefined && targets.length > 0) throw new LatencyUsageError('give either --base-url or --target, not both');
  const texts = v.text ?? [];
  if (texts.some((t) => t.trim() === '')) throw new LatencyUsageError('--text must not be empty');
  if (texts.length > 0 && v.texts !== undefined) throw new LatencyUsageError('give either --text or --texts, not both');
  const jitter = v['jitter-buffer-ms']?.map((b) => integer('--jitter-buffer-ms', b, 0, 0, 60_000));
  for (const flag of ['json', 'csv', 'html', 'record'] as const) {
    if (v[flag] !== undefined && v[flag].trim() === '')
      throw new LatencyUsageError(`--${flag} needs a ${flag === 'record' ? 'directory' : 'file'} name`);
  }
  return {
    baseUrl: targets.length > 0 ? undefined : baseUrl,
    apiKey: nonEmpty(v['api-key']) ?? nonEmpty(env.VOICEWIRE_API_KEY),
    targets,
    models: v.model ?? [],
    texts,
    textsFile: v.texts,
    format,
    sampleRate: v['sample-rate'] === undefined ? undefined : integer('--sample-rate', v['sample-rate'], 1, 0),
    latency,
    pace,
    runs: integer('--runs', v.runs, 1, DEFAULT_RUNS),
    concurrency: integer('--concurrency', v.concurrency, 1, 1, MAX_CONCURRENCY),
    warmup: integer('--warmup', v.warmup, 0, DEFAULT_WARMUP),
    jitterBuffersMs: jitter,
    timeoutMs: v['timeout-ms'] === undefined ? undefined : integer('--timeout-ms', v['timeout-ms'], 1, 0),
    json: v.json,
    csv: v.csv,
    html: v.html,
    record: v.record,
    help: v.help ?? false,
  };
}

/** The texts of a `--texts` file: its non-empty lines, trimmed. */
export function textsFromFile(content: string): string[] {
  return content
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}
