import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../src/buffer/RingBuffer.js';
import { SLOT_CHARS } from '../../src/events/Base64Stage.js';
import { MAX_SLOTS } from '../../src/events/slotPool.js';
import { growSimdMemory, lineEndSimd, simdMemory, WASM_PAGE_BYTES } from '../../src/events/simdBase64.js';
import { SpeechEventScanner } from '../../src/events/SpeechEventScanner.js';
import type { SpeechEventMeta } from '../../src/events/SpeechEventScanner.js';
import { seededRandom } from '../support/rng.js';
import { runGeneral, runScanner, splitAt } from './helpers.js';
import type { ErrorShape } from './helpers.js';
import { audioFirstStreamArb, buildStream } from './streamGen.js';

/** Cuts into reads of 1..max bytes (the small network reads the stage is for). */
function smallReads(bytes: Uint8Array, sizes: number[], max: number): Uint8Array[] {
  const cuts: number[] = [];
  let p = 0;
  for (let i = 0; p < bytes.length; i++) {
    p += 1 + ((sizes[i % sizes.length] ?? 0) % max);
    cuts.push(p);
  }
  return splitAt(bytes, cuts);
}

function event(audio: Buffer, seq = 0, content = 'hi'): string {
  return (
    `data: {"audio_base64":"${audio.toString('base64')}","content":"${content}",` +
    `"alignment":null,"chunk_seq":${seq},"chunk_audio_offset_sec":0}\n\n`
  );
}

function randomAudio(n: number, seed: number): Buffer {
  const rand = seededRandom(seed);
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (rand() * 256) | 0;
  return b;
}

describe('SpeechEventScanner staging audio from small reads (Base64Stage)', () => {
  for (const mode of ['fail', 'skip'] as const) {
    it(`gives what the general path gives for audio-first events in 1-byte and 1–64 B reads (${mode} mode)`, () => {
      fc.assert(
        fc.property(
          audioFirstStreamArb,
          fc.array(fc.nat(63), { minLength: 1, maxLength: 40 }),
          fc.boolean(),
          fc.integer({ min: 4, max: 3000 }),
          fc.array(fc.oneof(fc.constant(Infinity), fc.nat(50)), { minLength: 1, maxLength: 4 }),
          (s, sizes, oneByte, ringCapacity, drain) => {
            const bytes = buildStream(s.items, s.bom, s.eols, s.cut);
            const expected = runGeneral([bytes], mode);
            const chunks = oneByte ? smallReads(bytes, [0], 1) : smallReads(bytes, sizes, 64);
            const split = runScanner(chunks, { ringCapacity, drain, mode });
            const whole = runScanner([bytes], { mode });
            expect({ ...split, repeats: [] }).toEqual(expected);
            expect(split.repeats).toEqual(whole.repeats);
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  it('gives the exact events when more streams than slots interleave their reads', () => {
    // A long content keeps a stream's slot held after its audio string ended (until the event's
    // end arrives in a later read): other streams then take held slots too.
    const streams = Array.from({ length: MAX_SLOTS * 2 }, (_, k) =>
      Buffer.from([0, 1, 2].map((e) => event(randomAudio(300 + 97 * k + e, k * 10 + e), e, 'word '.repeat(k % 3 === 0 ? 60 : 1))).join('')),
    );
    const expected = streams.map((b) => runGeneral([b]));
    const reads = streams.map((b, k) => smallReads(b, [k, 7, 30, 2, 63, 11], 48));
    const got = streams.map(() => ({ metas: [] as SpeechEventMeta[], audio: [] as Buffer[], error: null as ErrorShape | null }));
    const rings = streams.map(() => new RingBuffer(1 << 16));
    const scanners = streams.map((_, k) => new SpeechEventScanner({ ring: rings[k]!, onEvent: (m) => got[k]!.metas.push(m) }));
    const drain = (k: number): void => {
      const ring = rings[k]!;
      while (ring.length > 0) {
        got[k]!.audio.push(Buffer.from(ring.readSpan()));
        ring.consume(ring.readSpanLength);
      }
    };
    const maxReads = Math.max(...reads.map((r) => r.length));
    for (let i = 0; i < maxReads; i++) {
      for (let k = 0; k < streams.length; k++) {
        const c = reads[k]![i];
        if (c === undefined) continue;
        expect(scanners[k]!.feed(c)).toBe(c.length);
        drain(k);
      }
    }
    for (let k = 0; k < streams.length; k++) {
      scanners[k]!.end();
      expect(got[k]!.metas.map(({ alignmentRepeat: _a, ...m }) => m)).toEqual(expected[k]!.metas);
      expect(Buffer.concat(got[k]!.audio)).toEqual(expected[k]!.audio);
    }
  });

  it('finishes audio longer than a slot on the plain path, byte for byte', () => {
    const audio = randomAudio((SLOT_CHARS / 4) * 3 + 3000, 5);
    const bytes = Buffer.from(event(randomAudio(100, 1)) + event(audio, 0) + event(randomAudio(50, 2)));
    const expected = runGeneral([bytes]);
    expect(runScanner(smallReads(bytes, [5, 40, 63, 1, 17], 64))).toEqual({ ...expected, repeats: [false, false, false] });
  });

  it('reports an event over the size limit at the same place as whole reads, after the earlier events', () => {
    const bytes = Buffer.from(event(randomAudio(90, 3)) + event(randomAudio(3000, 4)) + event(randomAudio(10, 5)));
    const whole = runScanner([bytes], { maxEventBytes: 2500 });
    expect(whole.error).toMatchObject({ code: 'SSE_LINE_TOO_LONG' });
    expect(whole.metas).toHaveLength(1);
    for (const sizes of [[0], [3, 9, 60, 33], [63]]) {
      expect(runScanner(smallReads(bytes, sizes, 64), { maxEventBytes: 2500 })).toEqual(whole);
    }
  });

  it('drops a staged event that turns out to be another event type, and goes on', () => {
    const other = `event: ping\n${event(randomAudio(600, 6))}`;
    const bytes = Buffer.from(event(randomAudio(200, 7)) + other + event(randomAudio(300, 8), 1));
    const expected = runGeneral([bytes]);
    expect(expected.metas).toHaveLength(2);
    expect(runScanner(smallReads(bytes, [4, 21, 50], 64))).toEqual({ ...expected, repeats: [false, false] });
  });

  it('joins a second data line after a staged audio string, as the general path does', () => {
    const b64 = randomAudio(700, 11).toString('base64');
    const text = `data: {"audio_base64":"${b64}",\ndata: "chunk_seq":3,"chunk_audio_offset_sec":1.5}\n\n` + event(randomAudio(50, 12), 3);
    const bytes = Buffer.from(text);
    const expected = runGeneral([bytes]);
    expect(expected.metas).toHaveLength(2);
    for (const sizes of [[0], [6, 30, 61], [17, 2]]) {
      expect(runScanner(smallReads(bytes, sizes, 64))).toEqual({ ...expected, repeats: [false, false] });
    }
  });

  it('names the event and field of bad base64 found while staging, after delivering the earlier audio', () => {
    const good = randomAudio(240, 9);
    const bad = randomAudio(900, 10).toString('base64');
    const text =
      event(good) + `data: {"audio_base64":"${bad.slice(0, 500)}!${bad.slice(501)}","chunk_seq":0,"chunk_audio_offset_sec":0}\n\n`;
    const bytes = Buffer.from(text);
    const r = runScanner(smallReads(bytes, [2, 13, 40], 64));
    expect(r.error).toEqual({ code: 'AUDIO_BAD_BASE64', eventIndex: 1, field: 'audio_base64' });
    expect(r.audio).toEqual(good);
    expect(r.error).toEqual(runGeneral([bytes]).error);
  });
});

describe('SpeechEventScanner reusing the fields of an event whose bytes after the audio repeat', () => {
  const tails = [
    '","content":"hi","alignment":null,"chunk_seq":0,"chunk_audio_offset_sec":0}',
    '","content":"hi","alignment":{"audio_duration":1,"segments":[{"text":"a","start":0,"end":0.5}]},' +
      '"chunk_seq":0,"chunk_audio_offset_sec":0}',
    '","content":"hi","alignment":{"audio_duration":1,"segments":[{"text":"a","start":0,"end":0.5}]},' +
      '"chunk_seq":1,"chunk_audio_offset_sec":1.5}',
    '","content":"hi","alignment":{"audio_duration":2,"segments":[]},"chunk_seq":1,"chunk_audio_offset_sec":1.5}',
    '","chunk_seq":1,"chunk_audio_offset_sec":1.5,"alignment":{"audio_duration":2,"segments":[]}}',
    '","content":"hi","chunk_seq":-1,"chunk_audio_offset_sec":0}',
  ];
  const audioText = fc
    .tuple(
      fc.uint8Array({ maxLength: 300 }),
      fc.oneof({ weight: 8, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('"', '\\\\', '!', '\\"') }),
      fc.nat(),
    )
    .map(([bytes, bad, at]) => {
      const b64 = Buffer.from(bytes).toString('base64');
      const k = b64.length === 0 ? 0 : at % b64.length;
      return b64.slice(0, k) + bad + b64.slice(k);
    });
  const tailIndex = fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.nat(tails.length - 1) });
  const eventArb = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(audioText, tailIndex).map(([a, t]) => `data: {"audio_base64":"${a}${tails[t]}\n\n`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(audioText, fc.nat(tails.length - 1))
        .map(([a, t]) => `data: {"chunk_seq":0,"audio_base64":"${a}${tails[t]!.replace(',"chunk_seq":0', '')}\n\n`),
    },
  );

  for (const mode of ['fail', 'skip'] as const) {
    it(`gives what the general path gives, repeats included (${mode} mode)`, () => {
      fc.assert(
        fc.property(fc.array(eventArb, { maxLength: 10 }), fc.array(fc.nat(63), { minLength: 1, maxLength: 20 }), (events, sizes) => {
          const bytes = Buffer.from(events.join(''));
          const expected = runGeneral([bytes], mode);
          const whole = runScanner([bytes], { mode });
          const split = runScanner(smallReads(bytes, sizes, 64), { mode });
          expect({ ...whole, repeats: [] }).toEqual(expected);
          expect({ ...split, repeats: [] }).toEqual(expected);
          expect(split.repeats).toEqual(whole.repeats);
          // A repeat is the previous snapshot of its chunk_seq (never a false `true`).
          whole.metas.forEach((m, i) => {
            if (!whole.repeats[i]) return;
            const prev = whole.metas
              .slice(0, i)
              .reverse()
              .find((p) => p.alignment !== null);
            expect(prev?.chunkSeq).toBe(m.chunkSeq);
            expect(m.alignment).toBe(prev?.alignment);
          });
        }),
        { numRuns: 200 },
      );
    });
  }
});

describe("SpeechEventScanner holding the rest of a staged event's data line (Base64Stage tail)", () => {
  /** What follows the audio string: JSON-ish text with non-ASCII characters, quotes and escapes,
   * sometimes a stray CR or LF (which ends the data line early, as any byte sequence may). */
  const tailText = fc
    .array(
      fc.oneof(
        {
          weight: 12,
          arbitrary: fc.constantFrom(
            '","content":"',
            'word ',
            'é',
            '世界',
            '\\"',
            '\\\\',
            '{"text":"a","start":0,"end":0.5},',
            ',',
            '1.25',
            '"',
          ),
        },
        { weight: 1, arbitrary: fc.constantFrom('\r', '\n', '\r\n', '\n\n', '\u2028', '\0') },
      ),
      { maxLength: 120 },
    )
    .map((parts) => parts.join(''));
  const good = ',"content":"hi","alignment":null,"chunk_seq":0,"chunk_audio_offset_sec":0}';
  const eventArb = fc
    .tuple(
      fc.uint8Array({ maxLength: 700 }),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(good) },
        { weight: 2, arbitrary: tailText.map((t) => `,"content":"${t}","alignment":null,"chunk_seq":0,"chunk_audio_offset_sec":0}`) },
        { weight: 2, arbitrary: tailText },
      ),
      fc.constantFrom('\n', '\r\n', '\r'),
      fc.constantFrom('', 'data: more\n', ': comment\n', 'id: 7\n'),
    )
    .map(([audio, tail, eol, extra]) => `data: {"audio_base64":"${Buffer.from(audio).toString('base64')}"${tail}${eol}${extra}${eol}`);
  const readSizes = fc.oneof(fc.array(fc.nat(63), { minLength: 1, maxLength: 20 }), fc.array(fc.nat(699), { minLength: 1, maxLength: 8 }));

  for (const mode of ['fail', 'skip'] as const) {
    it(`gives what whole reads and the general path give, however the tail is split (${mode} mode)`, () => {
      fc.assert(
        fc.property(fc.array(eventArb, { maxLength: 6 }), readSizes, fc.boolean(), (events, sizes, oneByte) => {
          const bytes = Buffer.from(events.join(''));
          const expected = runGeneral([bytes], mode);
          const whole = runScanner([bytes], { mode });
          const split = runScanner(oneByte ? smallReads(bytes, [0], 1) : smallReads(bytes, sizes, 700), { mode });
          expect({ ...split, repeats: [] }).toEqual(expected);
          expect(split).toEqual(whole);
        }),
        { numRuns: 200 },
      );
    });
  }

  it('reports a line or event limit crossed inside the held tail at the same byte as whole reads', () => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { minLength: 1, maxLength: 4 }),
        readSizes,
        fc.integer({ min: 40, max: 3000 }),
        (events, sizes, max) => {
          const bytes = Buffer.from(events.join(''));
          const whole = runScanner([bytes], { maxEventBytes: max });
          expect(runScanner(smallReads(bytes, sizes, 700), { maxEventBytes: max })).toEqual(whole);
        },
      ),
      { numRuns: 200 },
    );
    // One case for certain: the audio fits, its snapshot does not.
    const bytes = Buffer.from(
      event(randomAudio(600, 21)).replace(
        '"alignment":null',
        `"alignment":{"audio_duration":1,"segments":[${'{"text":"a","start":0,"end":0.5},'.repeat(60)}{"text":"b","start":0,"end":1}]}`,
      ),
    );
    const whole = runScanner([bytes], { maxEventBytes: 1500 });
    expect(whole.error).toMatchObject({ code: 'SSE_LINE_TOO_LONG' });
    for (const sizes of [[0], [3, 9, 60, 33], [63]]) {
      expect(runScanner(smallReads(bytes, sizes, 64), { maxEventBytes: 1500 })).toEqual(whole);
    }
  });

  it('gives held tails back when more streams than slots interleave their reads', () => {
    // Every event ends with a long content: each stream is holding a tail most of the time, and
    // the streams beyond MAX_SLOTS take slots from streams that are.
    const streams = Array.from({ length: MAX_SLOTS + 9 }, (_, k) =>
      Buffer.from([0, 1].map((e) => event(randomAudio(200 + 31 * k + e, k * 7 + e), e, `wörd ${k} `.repeat(40))).join('')),
    );
    const expected = streams.map((b) => runGeneral([b]));
    const reads = streams.map((b, k) => smallReads(b, [k, 13, 40, 5, 63], 64));
    const got = streams.map(() => [] as SpeechEventMeta[]);
    const rings = streams.map(() => new RingBuffer(1 << 16));
    const scanners = streams.map((_, k) => new SpeechEventScanner({ ring: rings[k]!, onEvent: (m) => got[k]!.push(m) }));
    const audio = streams.map(() => [] as Buffer[]);
    for (let i = 0; i < Math.max(...reads.map((r) => r.length)); i++) {
      for (let k = 0; k < streams.length; k++) {
        const c = reads[k]![i];
        if (c === undefined) continue;
        expect(scanners[k]!.feed(c)).toBe(c.length);
        const ring = rings[k]!;
        while (ring.length > 0) {
          audio[k]!.push(Buffer.from(ring.readSpan()));
          ring.consume(ring.readSpanLength);
        }
      }
    }
    for (let k = 0; k < streams.length; k++) {
      scanners[k]!.end();
      expect(got[k]!.map(({ alignmentRepeat: _a, ...m }) => m)).toEqual(expected[k]!.metas);
      expect(Buffer.concat(audio[k]!)).toEqual(expected[k]!.audio);
    }
  });
});

describe("wasm lineEnd (the tail's line-end search)", () => {
  it('finds the first LF or CR within the length and nothing past it', () => {
    const lineEnd = lineEndSimd;
    if (lineEnd === null) return; // no wasm SIMD: the stage is off
    const at = growSimdMemory(1) * WASM_PAGE_BYTES;
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }).map((b) => b.map((x) => (x < 16 ? [10, 13][x % 2]! : x))),
        fc.nat(200),
        fc.nat(15),
        (bytes, lenSeed, shift) => {
          const mem = simdMemory();
          const len = bytes.length === 0 ? 0 : lenSeed % (bytes.length + 1);
          mem.set(bytes, at + shift);
          mem.fill(10, at + shift + bytes.length, at + shift + bytes.length + 16); // line ends past the end
          let expected = len;
          for (let i = 0; i < len; i++) {
            if (bytes[i] === 10 || bytes[i] === 13) {
              expected = i;
              break;
            }
          }
          expect(lineEnd(at + shift, len)).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
