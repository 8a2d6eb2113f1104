/** Decodes a live response with voicewire's own engine (createSpeechPipeline). */
import { createSpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import type { AudioFormat } from '../../src/codec/types.js';

export interface EngineResult {
  words: { text: string; start: number; end: number }[];
  samples: number;
  sampleRate: number;
  durationSec: number;
  events: number;
}

export async function decodeWithEngine(body: ReadableStream<Uint8Array>, format: AudioFormat, sampleRate?: number): Promise<EngineResult> {
  const p = createSpeechPipeline({ format, ...(sampleRate !== undefined ? { sampleRate } : {}) });
  const words: EngineResult['words'] = [];
  let samples = 0;
  let rate = 0;
  let summary: { durationSec: number; events: number } | null = null;
  p.on('word', (w) => words.push({ text: w.text, start: w.start, end: w.end }));
  p.on('summary', (s) => { summary = s; });
  p.on('data', (f) => { samples += f.sampleCount; rate = f.sampleRate; });
  const done = new Promise<void>((resolve, reject) => { p.on('end', resolve); p.on('error', reject); });
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    if (!p.write(chunk)) await new Promise((r) => p.once('drain', r));
  }
  p.end();
  await done;
  const s = summary as { durationSec: number; events: number } | null;
  return { words, samples, sampleRate: rate, durationSec: s?.durationSec ?? samples / rate, events: s?.events ?? 0 };
}
