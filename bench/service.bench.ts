/**
 * The local service, warmed: one-sentence requests over loopback; time to the response head,
 * the first body byte, and the first event carrying audio (target: first audio ≤ 150 ms).
 *
 *   npm run bench -- service                      (SERVICE_BENCH_FORMAT=opus: one format only)
 */
import { startLocalService } from '../src/service/index.js';
import type { BenchOptions, BenchResult } from './types.js';

const SENTENCE = 'The quick brown fox jumps over the lazy dog.';
const TARGET_FIRST_AUDIO_MS = 150;
const COMMAND = 'npm run bench -- service';

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}
const r1 = (x: number): number => Math.round(x * 10) / 10;

interface Timing {
  headMs: number;
  firstByteMs: number;
  firstAudioMs: number;
  totalMs: number;
  audioSec: number;
}

/** One request; the first audio is the end of the first `data:` event whose audio is non-empty. */
async function once(baseUrl: string, token: string, body: object): Promise<Timing> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/v1/tts/stream/with-timestamp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const headMs = performance.now() - t0;
  let firstByteMs = -1;
  let firstAudioMs = -1;
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (firstByteMs < 0) firstByteMs = performance.now() - t0;
    if (firstAudioMs < 0) {
      text += decoder.decode(chunk, { stream: true });
      let end: number;
      while (firstAudioMs < 0 && (end = text.indexOf('\n\n')) >= 0) {
        const ev = JSON.parse(text.slice(6, end)) as { audio_base64: string };
        if (ev.audio_base64.length > 0) firstAudioMs = performance.now() - t0;
        text = text.slice(end + 2);
      }
    }
  }
  return { headMs, firstByteMs, firstAudioMs, totalMs: performance.now() - t0, audioSec: 0 };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const svc = await startLocalService();
  const iterations = opts.quick ? 2 : 20;
  const warmups = opts.quick ? 1 : 2;
  const results: BenchResult[] = [];
  try {
    const only = process.env.SERVICE_BENCH_FORMAT;
    const formats: [string, object][] = [
      ['pcm 22.05 kHz', { format: 'pcm', sample_rate: 22050 }],
      ['pcm 44.1 kHz', { format: 'pcm' }],
      ['opus 48 kHz', { format: 'opus' }],
      ['mp3 44.1 kHz', { format: 'mp3' }],
    ];
    for (const [label, extra] of formats.filter(([l]) => !only || l.startsWith(only))) {
      const body = { text: SENTENCE, latency: 'normal', ...extra };
      for (let w = 0; w < warmups; w++) await once(svc.baseUrl, svc.token, body);
      const runs: Timing[] = [];
      for (let i = 0; i < iterations; i++) runs.push(await once(svc.baseUrl, svc.token, body));
      const firstAudio = runs.map((r) => r.firstAudioMs);
      const p50 = quantile(firstAudio, 0.5);
      results.push({
        scenario: `local service / one sentence (${SENTENCE.length} chars) / ${label}`,
        figures: {
          'head ms p50': r1(
            quantile(
              runs.map((r) => r.headMs),
              0.5,
            ),
          ),
          'first byte ms p50': r1(
            quantile(
              runs.map((r) => r.firstByteMs),
              0.5,
            ),
          ),
          'first audio ms p50': r1(p50),
          'first audio ms p90': r1(quantile(firstAudio, 0.9)),
          'whole response ms p50': r1(
            quantile(
              runs.map((r) => r.totalMs),
              0.5,
            ),
          ),
          iterations,
        },
        target: `first audio ≤ ${TARGET_FIRST_AUDIO_MS} ms`,
        met: p50 <= TARGET_FIRST_AUDIO_MS,
        command: COMMAND,
        notes:
          'warmed service (espeak worker and resampler loaded, 2 warm-up requests); loopback fetch; 2-core machine shared with other jobs',
      });
    }
  } finally {
    await svc.close();
  }
  return results;
}
