/**
 * Test helpers: the general path as a reference (SseParser → JSON.parse → inspectSpeechEvent →
 * strict base64 → Buffer), and a driver for the scanner that drains a small ring like a consumer.
 */
import { RingBuffer } from '../../src/buffer/RingBuffer.js';
import { SseError, VoicewireError } from '../../src/errors.js';
import type { SpeechEventError } from '../../src/errors.js';
import { SpeechEventScanner } from '../../src/events/SpeechEventScanner.js';
import type { EventPathCounts, SpeechEventMeta } from '../../src/events/SpeechEventScanner.js';
import { inspectSpeechEvent, parseEventJson } from '../../src/events/SpeechEvent.js';
import { createSseParser, truncationError } from '../../src/sse/SseParser.js';

export interface ErrorShape {
  code: string;
  eventIndex?: number;
  field?: string;
  byteOffset?: number;
}
export interface StageResult {
  metas: Omit<SpeechEventMeta, 'alignmentRepeat'>[];
  repeats: boolean[];
  audio: Buffer;
  warnings: ErrorShape[];
  error: ErrorShape | null;
}

export function shape(e: unknown): ErrorShape {
  if (!(e instanceof VoicewireError)) throw e;
  const s: ErrorShape = { code: e.code };
  if (e.eventIndex !== undefined) s.eventIndex = e.eventIndex;
  if (e.field !== undefined) s.field = e.field;
  if (e.byteOffset !== undefined) s.byteOffset = e.byteOffset;
  return s;
}

function strip(m: SpeechEventMeta): Omit<SpeechEventMeta, 'alignmentRepeat'> {
  const { alignmentRepeat: _r, ...rest } = m;
  return rest;
}

/** The general path over the same bytes. */
export function runGeneral(chunks: Uint8Array[], mode: 'fail' | 'skip' = 'fail'): StageResult {
  const res: StageResult = { metas: [], repeats: [], audio: Buffer.alloc(0), warnings: [], error: null };
  const audio: Buffer[] = [];
  let total = 0;
  let index = 0;
  let lastSeq = 0;
  let lastOff = 0;
  let truncated: SseError | null = null;
  const parser = createSseParser({
    onEvent(ev) {
      if (ev.event !== 'message') return;
      const i = index++;
      let json: unknown;
      try {
        json = parseEventJson(ev.data, i);
      } catch (e) {
        if (mode === 'fail') throw e;
        res.warnings.push(shape(e));
        return;
      }
      const r = inspectSpeechEvent(json, i, lastSeq, lastOff);
      if (r.errors.length > 0) {
        if (mode === 'fail') throw r.errors[0] as SpeechEventError;
        for (const e of r.errors) res.warnings.push(shape(e));
        if (!r.audioValid) return;
      }
      const bytes = Buffer.from(r.event.audio_base64, 'base64');
      res.metas.push({
        index: i,
        chunkSeq: r.event.chunk_seq,
        chunkAudioOffsetSec: r.event.chunk_audio_offset_sec,
        content: r.event.content,
        alignment: r.event.alignment,
        audioStart: total,
        audioBytes: bytes.length,
      });
      audio.push(bytes);
      total += bytes.length;
      lastSeq = r.event.chunk_seq;
      lastOff = r.event.chunk_audio_offset_sec;
    },
    onWarning(w) {
      truncated = w;
    },
  });
  try {
    for (const c of chunks) parser.feed(c);
    parser.end();
    if (truncated !== null) {
      const t = truncated as SseError;
      throw truncationError(t.byteOffset!, 'an event', index);
    }
  } catch (e) {
    res.error = shape(e);
  }
  res.audio = Buffer.concat(audio);
  return res;
}

export interface ScannerRunOptions {
  ringCapacity?: number;
  mode?: 'fail' | 'skip';
  /** Bytes the consumer reads after each feed (Infinity: all). Cycled. */
  drain?: number[];
  maxEventBytes?: number;
  /** Filled with the scanner's path counters at the end of the run. */
  paths?: EventPathCounts;
}

/** The scanner over the chunks, with a consumer that drains the ring between feeds. */
export function runScanner(chunks: Uint8Array[], opts: ScannerRunOptions = {}): StageResult {
  const res: StageResult = { metas: [], repeats: [], audio: Buffer.alloc(0), warnings: [], error: null };
  const ring = new RingBuffer(opts.ringCapacity ?? 1 << 20);
  const out: Buffer[] = [];
  const drain = opts.drain ?? [Infinity];
  let d = 0;
  const read = (max: number): void => {
    let left = max;
    while (left > 0 && ring.length > 0) {
      const n = Math.min(left, ring.readSpanLength);
      out.push(Buffer.from(ring.buffer.subarray(ring.readIndex, ring.readIndex + n)));
      ring.consume(n);
      left -= n;
    }
  };
  const scanner = new SpeechEventScanner({
    ring,
    onInvalidEvent: opts.mode ?? 'fail',
    ...(opts.maxEventBytes === undefined ? {} : { maxEventBytes: opts.maxEventBytes }),
    onEvent(m) {
      res.metas.push(strip(m));
      res.repeats.push(m.alignmentRepeat);
    },
    onWarning(w) {
      res.warnings.push(shape(w));
    },
  });
  try {
    for (const c of chunks) {
      let pos = 0;
      let stalls = 0;
      while (pos < c.length) {
        const n = scanner.feed(c, pos);
        pos += n;
        if (n === 0 && ++stalls > 4)
          read(Infinity); // a consumer eventually reads everything
        else read(drain[d++ % drain.length]!);
      }
      read(drain[d++ % drain.length]!);
    }
    read(Infinity);
    scanner.end();
  } catch (e) {
    res.error = shape(e);
  }
  read(Infinity);
  res.audio = Buffer.concat(out);
  if (opts.paths !== undefined) Object.assign(opts.paths, scanner.pathCounts);
  return res;
}

/** Cuts `bytes` at the given positions (sorted, deduplicated, in range). */
export function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const pts = [...new Set(cuts.map((c) => Math.max(0, Math.min(bytes.length, c))))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of pts) {
    if (p > prev) out.push(bytes.subarray(prev, p));
    prev = p;
  }
  if (prev < bytes.length) out.push(bytes.subarray(prev));
  return out;
}
