/** Test helpers: load the committed captures, rebuild edited ones, run a pipeline to the end. */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { AudioFrame } from '../../src/codec/types.js';
import type { SpeechPipeline, SpeechSummary, WordEvent, WordRevision } from '../../src/engine/SpeechPipeline.js';
import type { VoicewireError } from '../../src/errors.js';

export const CAPTURES = join(import.meta.dirname, '..', 'fixtures', 'captures');

export interface Expected {
  sampleRate: number;
  channels: number;
  samples: number;
  sha256: string;
  chunks: Array<{ text: string; samples: number; offsetSec: number }>;
  words: Array<{ text: string; start: number; end: number; chunk_seq: number }>;
}
export const expected: Expected = JSON.parse(readFileSync(join(CAPTURES, 'speech.expected.json'), 'utf8'));

export function capture(name: string): Buffer {
  return readFileSync(join(CAPTURES, name));
}

export interface WireEvent {
  audio_base64: string;
  content: string;
  alignment: { audio_duration: number; segments: Array<{ text: string; start: number; end: number }> } | null;
  chunk_seq: number;
  chunk_audio_offset_sec: number;
}

/** The `data:` events of a capture (comments dropped). */
export function events(name: string): WireEvent[] {
  return capture(name)
    .toString('utf8')
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice('data: '.length)) as WireEvent);
}

/** Serializes events (or raw event blocks) back into an SSE body. */
export function sse(items: Array<WireEvent | string>): Buffer {
  return Buffer.from(items.map((e) => (typeof e === 'string' ? e : `data: ${JSON.stringify(e)}\n\n`)).join(''));
}

/** Audio bytes carried by events. */
export function audioBytes(items: WireEvent[]): number {
  return items.reduce((n, e) => n + Buffer.from(e.audio_base64, 'base64').length, 0);
}

export function splitRandom(body: Uint8Array, seed: number, max = 4000): Uint8Array[] {
  let a = seed >>> 0;
  const random = () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 4294967296;
  };
  const parts: Uint8Array[] = [];
  for (let at = 0; at < body.length;) {
    const n = 1 + Math.floor(random() * max);
    parts.push(body.subarray(at, at + n));
    at += n;
  }
  return parts;
}

export interface RunResult {
  frames: AudioFrame[];
  pcm: Int16Array;
  sha256: string;
  words: WordEvent[];
  revisions: WordRevision[];
  warnings: VoicewireError[];
  error: (Error & Partial<VoicewireError>) | null;
  summary: SpeechSummary | null;
  /** Order of 'summary' / 'end' / 'error'. */
  order: string[];
}

/** Writes `parts` (then ends), reads every frame in flowing mode, resolves at 'end' or 'error'. */
export function runPipeline(pipeline: SpeechPipeline, parts: Uint8Array[]): Promise<RunResult> {
  const result: RunResult = {
    frames: [],
    pcm: new Int16Array(0),
    sha256: '',
    words: [],
    revisions: [],
    warnings: [],
    error: null,
    summary: null,
    order: [],
  };
  pipeline.on('word', (w) => result.words.push(w));
  pipeline.on('wordRevised', (r) => result.revisions.push(r));
  pipeline.on('warning', (w) => result.warnings.push(w));
  pipeline.on('summary', (s) => {
    result.summary = s;
    result.order.push('summary');
  });
  pipeline.on('data', (f: AudioFrame) => result.frames.push(f));
  const done = new Promise<RunResult>((resolve) => {
    const finish = () => {
      result.pcm = concatFrames(result.frames);
      result.sha256 = createHash('sha256').update(new Uint8Array(result.pcm.buffer)).digest('hex');
      resolve(result);
    };
    pipeline.on('end', () => {
      result.order.push('end');
      finish();
    });
    pipeline.on('error', (e) => {
      result.error = e;
      result.order.push('error');
      finish();
    });
  });
  void (async () => {
    for (const part of parts) {
      if (pipeline.destroyed) return;
      if (!pipeline.write(part)) await new Promise((r) => pipeline.once('drain', r).once('close', r));
    }
    if (!pipeline.destroyed) pipeline.end();
  })();
  return done;
}

export function concatFrames(frames: AudioFrame[]): Int16Array {
  const out = new Int16Array(frames.reduce((n, f) => n + f.samples.length, 0));
  let o = 0;
  for (const f of frames) {
    out.set(f.samples as Int16Array, o);
    o += f.samples.length;
  }
  return out;
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
