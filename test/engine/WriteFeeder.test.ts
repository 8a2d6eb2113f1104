import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../src/buffer/RingBuffer.js';
import { VoicewireError } from '../../src/errors.js';
import { SpeechEventScanner } from '../../src/events/SpeechEventScanner.js';
import { WriteFeeder } from '../../src/engine/WriteFeeder.js';
import { sse, type WireEvent } from './helpers.js';

/** WriteFeeder's slice size (kept local there: a constant read inside its loop). */
const SLICE_BYTES = 64 * 1024;

/** Distinct audio bytes for event `i`. */
function audio(i: number, bytes: number): Buffer {
  const b = Buffer.alloc(bytes);
  for (let k = 0; k < bytes; k++) b[k] = (i * 31 + k) & 0xff;
  return b;
}

function event(i: number, audioBytes: number): WireEvent {
  return {
    audio_base64: audio(i, audioBytes).toString('base64'),
    content: `w${i}`,
    alignment: null,
    chunk_seq: 0,
    chunk_audio_offset_sec: 0,
  };
}

/** A body of `count` events carrying `audioBytes` each, and their audio back to back. */
function body(count: number, audioBytes: number): { bytes: Buffer; audio: Buffer } {
  const events = Array.from({ length: count }, (_, i) => event(i, audioBytes));
  return { bytes: sse(events), audio: Buffer.concat(events.map((_, i) => audio(i, audioBytes))) };
}

interface Harness {
  ring: RingBuffer;
  feeder: WriteFeeder;
  /** What happened, in order: `event N`, `pump`, `fail CODE`, `callback`. */
  log: string[];
  callback: () => void;
  /** What the reader took out of the ring. */
  read: Buffer[];
  /** Takes every byte the reader may decode, as the pipeline's decode step does. */
  readDecodable(): void;
}

function harness(ringBytes: number, hooks: { onPump?: (h: Harness) => void; stopped?: () => boolean } = {}): Harness {
  const ring = new RingBuffer(ringBytes);
  const log: string[] = [];
  const scanner = new SpeechEventScanner({ ring, onEvent: (meta) => log.push(`event ${meta.index}`) });
  const h: Harness = {
    ring,
    log,
    read: [],
    callback: () => log.push('callback'),
    readDecodable() {
      for (let n = h.feeder.decodable - ring.totalRead; n > 0;) {
        const span = Math.min(n, ring.readSpanLength);
        h.read.push(Buffer.from(ring.readSpan().subarray(0, span)));
        ring.consume(span);
        n -= span;
      }
    },
    feeder: new WriteFeeder({
      ring,
      scanner,
      pump: () => {
        log.push('pump');
        hooks.onPump?.(h);
      },
      stopped: hooks.stopped ?? (() => false),
      fail: (err) => log.push(`fail ${err instanceof VoicewireError ? err.code : String(err)}`),
    }),
  };
  return h;
}

const nextTick = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));

describe('WriteFeeder', () => {
  it('a write that fits is fed whole: its events, then its callback, then a pump', () => {
    const h = harness(64 * 1024);
    const { bytes } = body(3, 1000);
    h.feeder.write(bytes, h.callback, false);
    expect(h.log).toEqual(['event 0', 'event 1', 'event 2', 'callback', 'pump']);
    expect(h.feeder.holding).toBe(false);
    expect(h.feeder.bytes).toBe(bytes.length);
    expect(h.feeder.decodable).toBe(3000);
  });

  it('a write larger than the ring waits, then resumes where it stopped', () => {
    const h = harness(4096);
    const { bytes, audio: all } = body(6, 1500);
    h.feeder.write(bytes, h.callback, false);
    expect(h.log).toEqual(['event 0', 'event 1', 'pump']); // held: no callback
    expect(h.feeder.holding).toBe(true);
    expect(h.feeder.resume()).toBe(false); // the ring is still full
    let resumes = 0;
    while (h.feeder.holding) {
      h.readDecodable();
      expect(h.feeder.resume()).toBe(true);
      resumes++;
    }
    expect(resumes).toBeGreaterThan(1);
    expect(h.log.filter((entry) => entry === 'callback')).toHaveLength(1);
    expect(h.log.filter((entry) => entry.startsWith('event'))).toEqual(['event 0', 'event 1', 'event 2', 'event 3', 'event 4', 'event 5']);
    h.readDecodable();
    expect(Buffer.concat(h.read).equals(all)).toBe(true);
  });

  it('while a write is held the reader may take the event being received; after it, only complete events', () => {
    const h = harness(4096);
    const { bytes } = body(6, 1500);
    h.feeder.write(bytes, h.callback, false);
    // Events 0 and 1 are complete (3000 bytes); event 2 has filled the rest of the ring.
    expect(h.feeder.decodable).toBe(4096);
    while (h.feeder.holding) {
      h.readDecodable();
      h.feeder.resume();
    }
    expect(h.feeder.decodable).toBe(9000);
    expect(h.feeder.resume()).toBe(false); // nothing held
  });

  it('a write larger than a slice reaches the reader a slice at a time, with a pump between slices', () => {
    const ringLengths: number[] = [];
    const h = harness(1024 * 1024, {
      onPump: (self) => {
        ringLengths.push(self.ring.length);
        self.readDecodable();
      },
    });
    const { bytes, audio: all } = body(80, 3000); // ~320 KiB of body, ~234 KiB of audio
    h.feeder.write(bytes, h.callback, false);
    expect(bytes.length).toBeGreaterThan(4 * SLICE_BYTES);
    expect(ringLengths.length).toBe(Math.ceil(bytes.length / SLICE_BYTES)); // one per slice boundary, one after the callback
    // A slice's base64 decodes to 3/4 of its size, plus the event it ended inside.
    for (const length of ringLengths) expect(length).toBeLessThanOrEqual((SLICE_BYTES * 3) / 4 + 3000);
    expect(h.log.indexOf('callback')).toBe(h.log.length - 2);
    expect(Buffer.concat(h.read).equals(all)).toBe(true);
  });

  it('once the pump reports the stream stopped, the rest of a sliced write is ignored and it is called back once', () => {
    let stopped = false;
    const h = harness(1024 * 1024, {
      onPump: () => {
        stopped = true;
      },
      stopped: () => stopped,
    });
    const { bytes } = body(80, 3000);
    h.feeder.write(bytes, h.callback, false);
    const events = h.log.filter((entry) => entry.startsWith('event')).length;
    expect(events).toBeGreaterThan(0);
    expect(events).toBeLessThan(80);
    expect(h.log.slice(-3)).toEqual(['pump', 'callback', 'pump']); // the stopping pump, then the end of the write
  });

  it('an invalid event fails the input before the write is called back', () => {
    const h = harness(64 * 1024);
    h.feeder.write(sse([event(0, 100), 'data: {not json\n\n', event(2, 100)]), h.callback, false);
    expect(h.log).toEqual(['event 0', 'fail EVENT_INVALID_JSON', 'callback', 'pump']);
  });

  it('a next-tick write is counted at once but fed on the next tick, once', async () => {
    const h = harness(64 * 1024);
    const { bytes } = body(2, 500);
    h.feeder.write(bytes, h.callback, true);
    expect(h.feeder.bytes).toBe(bytes.length);
    expect(h.log).toEqual([]);
    expect(h.ring.totalWritten).toBe(0);
    await nextTick();
    expect(h.log).toEqual(['event 0', 'event 1', 'callback', 'pump']);
  });

  it('feedWaiting feeds a next-tick write at once, and the tick then finds nothing', async () => {
    const h = harness(64 * 1024);
    h.feeder.write(body(2, 500).bytes, h.callback, true);
    h.feeder.feedWaiting();
    expect(h.log).toEqual(['event 0', 'event 1', 'callback', 'pump']);
    await nextTick();
    expect(h.log).toEqual(['event 0', 'event 1', 'callback', 'pump']);
    h.feeder.feedWaiting(); // nothing waits: a no-op
    expect(h.log).toHaveLength(4);
  });

  it('release calls a held write back and forgets the rest of it', () => {
    const h = harness(4096);
    h.feeder.write(body(6, 1500).bytes, h.callback, false);
    h.feeder.release();
    expect(h.log).toEqual(['event 0', 'event 1', 'pump', 'callback']);
    expect(h.feeder.holding).toBe(false);
    h.readDecodable();
    expect(h.feeder.resume()).toBe(false);
    expect(h.log).toHaveLength(4);
  });

  it('release calls a next-tick write back: the tick then feeds nothing', async () => {
    const h = harness(64 * 1024);
    h.feeder.write(body(2, 500).bytes, h.callback, true);
    h.feeder.release();
    expect(h.log).toEqual(['callback']);
    await nextTick();
    expect(h.log).toEqual(['callback']);
    expect(h.ring.totalWritten).toBe(0);
  });

  it('drop forgets a held or next-tick write without calling it back', async () => {
    const held = harness(4096);
    held.feeder.write(body(6, 1500).bytes, held.callback, false);
    held.feeder.drop();
    held.readDecodable();
    expect(held.feeder.resume()).toBe(false);
    expect(held.log).toEqual(['event 0', 'event 1', 'pump']);

    const waiting = harness(64 * 1024);
    waiting.feeder.write(body(2, 500).bytes, waiting.callback, true);
    waiting.feeder.drop();
    await nextTick();
    expect(waiting.log).toEqual([]);
  });

  it('end throws SSE_TRUNCATED when the body stopped inside an event', () => {
    const h = harness(64 * 1024);
    const bytes = sse([event(0, 100), event(1, 100)]);
    h.feeder.write(bytes.subarray(0, bytes.length - 10), h.callback, false);
    expect(() => h.feeder.end()).toThrow(expect.objectContaining({ code: 'SSE_TRUNCATED' }));

    const whole = harness(64 * 1024);
    whole.feeder.write(sse([event(0, 100)]), whole.callback, false);
    expect(() => whole.feeder.end()).not.toThrow();
  });
});
