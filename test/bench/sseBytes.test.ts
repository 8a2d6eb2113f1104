import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureBytes, OggPager, readOpus, sseEvent } from '../../bench/lib/audio.js';
import { base64Into, base64Length, jsonBytes, SseEventWriter } from '../../bench/lib/sseBytes.js';
import { speechStream, type StreamFormat } from '../../bench/lib/speechStream.js';

/** Seconds of each format's stream compared: past two chunk_seq loops of every source. */
const COMPARED_SECONDS = 8;

describe('speech SSE events written as bytes (bench generator)', () => {
  it('base64 written into a buffer equals Node’s base64 for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(7), (bytes, at) => {
        const out = new Uint8Array(at + base64Length(bytes.length));
        const end = base64Into(bytes, out, at);
        expect(end).toBe(out.length);
        expect(Buffer.from(out.subarray(at)).toString('latin1')).toBe(Buffer.from(bytes).toString('base64'));
      }),
    );
  });

  it('an event equals the string-built one for any content, alignment, chunk_seq and offset', () => {
    const writer = new SseEventWriter();
    const alignment = fc.option(
      fc.record({
        audio_duration: fc.double({ min: 0, max: 1e4, noNaN: true }),
        segments: fc.array(
          fc.record({
            text: fc.string(),
            start: fc.double({ min: 0, max: 1e4, noNaN: true }),
            end: fc.double({ min: 0, max: 1e4, noNaN: true }),
          }),
          { maxLength: 5 },
        ),
      }),
      { nil: null },
    );
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2000 }),
        fc.string({ unit: 'grapheme' }),
        alignment,
        fc.nat(1e6),
        fc.double({ min: 0, max: 1e5, noNaN: true }),
        (audio, content, align, chunkSeq, offset) => {
          const event = writer.event(audio, {
            content: jsonBytes(content),
            alignment: align === null ? null : jsonBytes(align),
            chunkSeq,
            offset: jsonBytes(offset),
          });
          expect(event.equals(Buffer.from(sseEvent(audio, { content, alignment: align, chunkSeq, chunkAudioOffsetSec: offset })))).toBe(
            true,
          );
        },
      ),
    );
  });

  it('an event stays intact after later events are written (a held write is never overwritten)', () => {
    const writer = new SseEventWriter();
    const fields = { content: jsonBytes(''), alignment: null, chunkSeq: 0, offset: jsonBytes(0) };
    const first = writer.event(new Uint8Array(3000).fill(7), fields);
    const copy = Buffer.from(first);
    for (let i = 0; i < 100; i++) writer.event(new Uint8Array(3000).fill(i), fields);
    expect(first.equals(copy)).toBe(true);
  });

  it.each(['opus', 'pcm', 'wav', 'mp3'] as const)('a %s speech stream is byte for byte the string-built stream', (format: StreamFormat) => {
    for (const words of [true, false]) {
      const strings = [...speechStream({ format, seconds: COMPARED_SECONDS, words, build: 'strings' }).events].map((e) => Buffer.from(e));
      const bytes = [...speechStream({ format, seconds: COMPARED_SECONDS, words }).events];
      expect(bytes.length).toBe(strings.length);
      bytes.forEach((e, i) => expect(e.equals(strings[i]!), `${format} event ${i}`).toBe(true));
    }
  });

  it('a page written into the pager’s reused memory equals a page of its own', () => {
    const src = readOpus(fixtureBytes('opus/20ms-pages.opus'));
    const own = new OggPager(7);
    const reused = new OggPager(7);
    for (let i = 0; i + 10 <= src.packets.length; i += 10) {
      const packets = src.packets.slice(i, i + 10);
      expect(
        Buffer.from(reused.pageView(packets, i * 960, i === 0 ? 0x02 : 0)).equals(
          Buffer.from(own.page(packets, i * 960, i === 0 ? 0x02 : 0)),
        ),
      ).toBe(true);
    }
  });
});
