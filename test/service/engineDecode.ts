/** Decodes a live response with voicewire's own engine (createSpeechPipeline). */
import { createSpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import type { AudioFormat } from '../../src/codec/types.js';

export interface EngineResult {
  words: { text: string; start: number; end: number }[];
  samples: number;
  sampleRate: number;
  durationSec: number;
  events: number;
  /** The decoded mono s16 samples (when asked for). */
  pcm?: Int16Array;
}

export async function decodeWithEngine(
  body: ReadableStream<Uint8Array>,
  format: AudioFormat,
  sampleRate?: number,
  keepPcm = false,
): Promise<EngineResult> {
  const p = createSpeechPipeline({ format, ...(sampleRate !== undefined ? { sampleRate } : {}) });
  const words: EngineResult['words'] = [];
  let samples = 0;
  let rate = 0;
  let summary: { durationSec: number; events: number } | null = null;
  p.on('word', (w) => words.push({ text: w.text, start: w.start, end: w.end }));
  p.on('summary', (s) => {
    summary = s;
  });
  const frames: Int16Array[] = [];
  p.on('data', (f) => {
    samples += f.sampleCount;
    rate = f.sampleRate;
    if (keepPcm) frames.push(f.samples as Int16Array);
  });
  const done = new Promise<void>((resolve, reject) => {
    p.on('end', resolve);
    p.on('error', reject);
  });
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    if (!p.write(chunk)) await new Promise((r) => p.once('drain', r));
  }
  p.end();
  await done;
  const s = summary as { durationSec: number; events: number } | null;
  const result: EngineResult = { words, samples, sampleRate: rate, durationSec: s?.durationSec ?? samples / rate, events: s?.events ?? 0 };
  if (keepPcm) {
    const pcm = new Int16Array(samples);
    let o = 0;
    for (const f of frames) {
      pcm.set(f.subarray(0, Math.min(f.length, samples - o)), o);
      o += f.length;
    }
    result.pcm = pcm;
  }
  return result;
}
