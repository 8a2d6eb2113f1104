import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../src/buffer/RingBuffer.js';
import { SpeechEventError, SseError } from '../../src/errors.js';
import type { VoicewireError } from '../../src/errors.js';
import { SpeechEventScanner } from '../../src/events/SpeechEventScanner.js';
import type { SpeechEventMeta } from '../../src/events/SpeechEventScanner.js';
import { runGeneral, runScanner } from './helpers.js';

const AUDIO = [Buffer.from('first audio chunk'), Buffer.from('second, longer audio chunk!'), Buffer.from('third')];
const SNAP = {
  audio_duration: 1.2,
  segments: [
    { text: 'hello', start: 0, end: 0.4 },
    { text: 'world', start: 0.5, end: 1.1 },
  ],
};

function event(fields: Record<string, unknown>): string {
  return `data: ${JSON.stringify(fields)}\n\n`;
}
function good(i: number, extra: Record<string, unknown> = {}): string {
  return event({
    audio_base64: AUDIO[i % 3]!.toString('base64'),
    content: 'hello world',
    alignment: null,
    chunk_seq: 0,
    chunk_audio_offset_sec: 0,
    ...extra,
  });
}

interface Collected {
  metas: SpeechEventMeta[];
  warnings: VoicewireError[];
  audio: Buffer;
  error: unknown;
  scanner: SpeechEventScanner;
}
function scan(body: string | Buffer, opts: { ring?: number; mode?: 'fail' | 'skip'; max?: number } = {}): Collected {
  const ring = new RingBuffer(opts.ring ?? 4096);
  const c: Collected = { metas: [], warnings: [], audio: Buffer.alloc(0), error: null, scanner: null as unknown as SpeechEventScanner };
  const out: Buffer[] = [];
  c.scanner = new SpeechEventScanner({
    ring,
    ...(opts.mode === undefined ? {} : { onInvalidEvent: opts.mode }),
    ...(opts.max === undefined ? {} : { maxEventBytes: opts.max }),
    onEvent: (m) => c.metas.push(m),
    onWarning: (w) => c.warnings.push(w),
  });
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const drain = (): void => {
    while (ring.length > 0) {
      out.push(Buffer.from(ring.readSpan()));
      ring.consume(ring.readSpanLength);
    }
  };
  try {
    for (let pos = 0; pos < bytes.length;) {
      pos += c.scanner.feed(bytes, pos);
      drain();
    }
    c.scanner.end();
  } catch (e) {
    c.error = e;
  }
  drain();
  c.audio = Buffer.concat(out);
  return c;
}

describe('SpeechEventScanner', () => {
  it('delivers one meta per message event and decodes its audio into the ring', () => {
    const r = scan(good(0) + good(1, { content: 'grüße, 世界', chunk_audio_offset_sec: 1.25 }));
    expect(r.error).toBeNull();
    expect(r.audio).toEqual(Buffer.concat([AUDIO[0]!, AUDIO[1]!]));
    expect(r.metas.map((m) => [m.index, m.content, m.chunkAudioOffsetSec, m.audioStart, m.audioBytes])).toEqual([
      [0, 'hello world', 0, 0, AUDIO[0]!.length],
      [1, 'grüße, 世界', 1.25, AUDIO[0]!.length, AUDIO[1]!.length],
    ]);
    expect(r.scanner.committedAudio).toBe(AUDIO[0]!.length + AUDIO[1]!.length);
  });

  it('a byte-identical repeated snapshot is flagged and not re-parsed (same object)', () => {
    const r = scan(
      good(0, { alignment: SNAP }) + good(1, { alignment: SNAP }) + good(2, { alignment: null }) + good(0, { alignment: SNAP }),
    );
    expect(r.metas.map((m) => m.alignmentRepeat)).toEqual([false, true, false, true]);
    expect(r.metas[1]!.alignment).toBe(r.metas[0]!.alignment);
    expect(r.metas[3]!.alignment).toBe(r.metas[0]!.alignment);
    expect(r.metas[2]!.alignment).toBeNull();
  });

  it('a changed snapshot, or the same bytes for another chunk_seq, is parsed anew', () => {
    const changed = { ...SNAP, audio_duration: 2 };
    const r = scan(good(0, { alignment: SNAP }) + good(1, { alignment: changed }) + good(2, { alignment: changed, chunk_seq: 1 }));
    expect(r.metas.map((m) => m.alignmentRepeat)).toEqual([false, false, false]);
    expect(r.metas[1]!.alignment).toEqual(changed);
    expect(r.metas[2]!.chunkSeq).toBe(1);
  });

  it('a content with escapes and keys the stage does not use stay on the fast path, and read as the general path reads them', () => {
    const body = [
      good(0, { content: 'She said "hi"\nthen \\ left' }),
      good(1, { content: 'She said "hi"\nthen \\ left', is_final: false, meta: { a: [1, '}]'] } }),
      good(2, { a_key_longer_than_any_known_one: 'x"y' }),
    ].join('');
    const c = scan(body);
    expect(c.error).toBeNull();
    expect(c.scanner.pathCounts).toMatchObject({ fast: 3, general: 0 });
    expect(c.metas.map((m) => m.content)).toEqual(['She said "hi"\nthen \\ left', 'She said "hi"\nthen \\ left', 'hello world']);
    expect({ ...runScanner([Buffer.from(body)]), repeats: [] }).toEqual(runGeneral([Buffer.from(body)]));
  });

  it('an event the fast path cannot judge (a bad escape in content, a key spelled with an escape) takes the general path', () => {
    const badEscape = good(0).replace('"content":"hello world"', '"content":"bad \\x escape"');
    const escapedKey = good(1).replace('"chunk_seq"', '"chunk\\u005fseq"');
    const c = scan(badEscape + escapedKey + good(2), { mode: 'skip' });
    expect(c.scanner.pathCounts).toMatchObject({ fast: 1, general: 2 });
    expect(c.warnings.map((w) => w.code)).toEqual(['EVENT_INVALID_JSON']);
    expect(c.metas.map((m) => m.index)).toEqual([1, 2]);
  });

  it('other event names are ignored and take no index', () => {
    const r = scan(good(0) + 'event: ping\ndata: {"x":1}\n\n' + good(1));
    expect(r.metas.map((m) => m.index)).toEqual([0, 1]);
    expect(r.audio).toEqual(Buffer.concat([AUDIO[0]!, AUDIO[1]!]));
  });

  it('an escaped slash inside the base64 takes the general path and gives the same audio', () => {
    const audio = Buffer.from([0xff, 0xff, 0xff, 0xfb, 0xef]); // base64 with '/'
    const b64 = audio.toString('base64');
    expect(b64).toContain('/');
    const body = `data: {"audio_base64":"${b64.replaceAll('/', '\\/')}","chunk_seq":0,"chunk_audio_offset_sec":0}\n\n`;
    const r = scan(body);
    expect(r.error).toBeNull();
    expect(r.audio).toEqual(audio);
  });

  it('a snapshot holding its own nested "chunk_seq" key after a nested object gives what the general path gives', () => {
    // The fast scan takes `,"chunk_seq"` after a `}` as the end of the alignment; here that guess
    // is wrong (it is inside the snapshot), which must still end in the general path's result.
    const tricky = { ...SNAP, extra: { a: 1 }, chunk_seq: 7 };
    const body = [good(0), good(1, { alignment: tricky, chunk_seq: 2 }), good(2, { alignment: SNAP, chunk_seq: 3 })].join('');
    for (const mode of ['fail', 'skip'] as const) {
      const r = runScanner([Buffer.from(body)], { mode });
      const g = runGeneral([Buffer.from(body)], mode);
      expect(r.error).toEqual(g.error);
      expect(r.metas).toEqual(g.metas);
      expect(r.warnings).toEqual(g.warnings);
      expect(r.audio).toEqual(g.audio);
    }
  });

  it('content and alignment may be absent; content is then empty', () => {
    const r = scan(`data: {"audio_base64":"","chunk_seq":3,"chunk_audio_offset_sec":2.5}\n\n`);
    expect(r.metas[0]).toMatchObject({ content: '', alignment: null, chunkSeq: 3, chunkAudioOffsetSec: 2.5, audioBytes: 0 });
  });

  it('a full ring makes feed consume fewer bytes, and resuming gives the same results', () => {
    const body = Array.from({ length: 12 }, (_, i) => good(i, { alignment: i % 2 ? SNAP : null })).join('');
    const expected = runGeneral([Buffer.from(body)]);
    for (const cap of [1, 2, 4, 7, 16, 31]) {
      const r = runScanner([Buffer.from(body)], { ringCapacity: cap, drain: [3, 0, 5] });
      expect({ ...r, repeats: [] }).toEqual(expected);
    }
    // With a ring smaller than one event's audio, feed must report backpressure.
    const ring = new RingBuffer(8);
    const s = new SpeechEventScanner({ ring, onEvent: () => {} });
    const bytes = Buffer.from(good(1));
    expect(s.feed(bytes)).toBeLessThan(bytes.length);
  });

  it('holds back the last byte of an event that waits for ring space, even at the end of the chunk', () => {
    const ring = new RingBuffer(8);
    const metas: SpeechEventMeta[] = [];
    const s = new SpeechEventScanner({ ring, onEvent: (m) => metas.push(m) });
    const bytes = Buffer.from(good(0));
    const n = s.feed(bytes);
    expect(n).toBe(bytes.length - 1);
    expect(metas).toHaveLength(0);
    expect(s.feed(bytes, n)).toBe(0); // still full
    const got: Buffer[] = [];
    let pos = n;
    while (pos < bytes.length) {
      got.push(Buffer.from(ring.readSpan()));
      ring.consume(ring.readSpanLength);
      pos += s.feed(bytes, pos);
    }
    got.push(Buffer.from(ring.readSpan()));
    expect(Buffer.concat(got)).toEqual(AUDIO[0]);
    expect(metas).toHaveLength(1);
    s.end();
  });

  it('a body that ends inside an event throws SSE_TRUNCATED at end(), after the earlier events', () => {
    const whole = good(0) + good(1);
    const r = scan(whole.slice(0, -1));
    expect(r.metas).toHaveLength(1);
    expect(r.audio).toEqual(AUDIO[0]);
    expect(r.error).toBeInstanceOf(SseError);
    expect(r.error).toMatchObject({ code: 'SSE_TRUNCATED', byteOffset: good(0).length, eventIndex: 1 });
  });

  it('a body that ends after a trailing comment is not truncated', () => {
    expect(scan(good(0) + ': done\n').error).toBeNull();
  });
});

describe('SpeechEventScanner bad input (fail mode): typed error, earlier events and audio delivered', () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['EVENT_INVALID_JSON', 'data: {"audio_base64": "QQ==",\n\n', { field: '(data)' }],
    ['EVENT_WRONG_TYPE', good(1, { content: 42 }), { field: 'content' }],
    ['EVENT_NEGATIVE_VALUE', good(1, { chunk_seq: -1 }), { field: 'chunk_seq' }],
    ['EVENT_MISSING_FIELD', event({ audio_base64: 'QQ==', chunk_seq: 0 }), { field: 'chunk_audio_offset_sec' }],
    ['AUDIO_BAD_BASE64', good(1, { audio_base64: 'QUJD!EVG' }), { field: 'audio_base64' }],
    [
      'ALIGNMENT_BAD_SHAPE',
      good(1, {
        alignment: {
          audio_duration: 1,
          segments: [
            { text: 'a', start: 0, end: 1 },
            { text: 'b', start: 2, end: 1 },
          ],
        },
      }),
      { field: 'alignment.segments[1]' },
    ],
  ];
  for (const [code, bad, ctx] of cases) {
    it(`${code}: names event 1 and the field, keeps event 0 and its audio`, () => {
      const r = scan(good(0) + bad + good(2));
      expect(r.metas.map((m) => m.index)).toEqual([0]);
      expect(r.audio).toEqual(AUDIO[0]);
      expect(r.error).toBeInstanceOf(SpeechEventError);
      expect(r.error).toMatchObject({ code, eventIndex: 1, ...ctx });
      expect(r.scanner.committedAudio).toBe(AUDIO[0]!.length);
      expect(() => r.scanner.feed(Buffer.from(good(2)))).toThrow(r.error as Error);
    });
  }
  it('a non-finite offset (1e999) is EVENT_WRONG_TYPE', () => {
    const r = scan(good(0) + `data: {"audio_base64":"","chunk_seq":0,"chunk_audio_offset_sec":1e999}\n\n`);
    expect(r.error).toMatchObject({ code: 'EVENT_WRONG_TYPE', field: 'chunk_audio_offset_sec', eventIndex: 1 });
  });
  it('SSE_LINE_TOO_LONG: names the byte offset, keeps event 0 and its audio', () => {
    const r = scan(good(0) + `: ${'x'.repeat(300)}\n` + good(1), { max: 256 });
    expect(r.audio).toEqual(AUDIO[0]);
    expect(r.error).toMatchObject({ code: 'SSE_LINE_TOO_LONG', byteOffset: good(0).length });
  });
  it('SSE_EVENT_TOO_LARGE: names the byte offset, keeps event 0 and its audio', () => {
    const r = scan(good(0) + `data: ${'x'.repeat(100)}\n`.repeat(5) + '\n', { max: 256 });
    expect(r.metas).toHaveLength(1);
    expect(r.audio).toEqual(AUDIO[0]);
    expect(r.error).toMatchObject({ code: 'SSE_EVENT_TOO_LARGE', byteOffset: good(0).length });
  });
});

describe('SpeechEventScanner skip mode', () => {
  it('a bad alignment is dropped with a warning and the event keeps its audio', () => {
    const bad = { audio_duration: 1, segments: [{ text: 'x', start: Number.NaN, end: 1 }] };
    const r = scan(good(0, { alignment: SNAP }) + good(1, { alignment: bad }) + good(2), { mode: 'skip' });
    expect(r.error).toBeNull();
    expect(r.audio).toEqual(Buffer.concat(AUDIO));
    expect(r.metas.map((m) => m.alignment === null)).toEqual([false, true, true]);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatchObject({ code: 'ALIGNMENT_BAD_SHAPE', eventIndex: 1, field: 'alignment.segments[0].start' });
  });
  it('an event with bad base64 is skipped whole: no audio, a warning, the next event goes on', () => {
    const r = scan(good(0) + good(1, { audio_base64: 'QQ' }) + good(2), { mode: 'skip' });
    expect(r.audio).toEqual(Buffer.concat([AUDIO[0]!, AUDIO[2]!]));
    expect(r.metas.map((m) => m.index)).toEqual([0, 2]);
    expect(r.warnings.map((w) => w.code)).toEqual(['AUDIO_BAD_BASE64']);
  });
  it('malformed JSON is skipped with a warning', () => {
    const r = scan(good(0) + 'data: {nope\n\n' + good(1), { mode: 'skip' });
    expect(r.metas.map((m) => m.index)).toEqual([0, 2]);
    expect(r.warnings.map((w) => w.code)).toEqual(['EVENT_INVALID_JSON']);
  });
  it('a negative chunk_seq keeps the audio, drops the alignment and stands in the previous chunk_seq', () => {
    const r = scan(good(0, { chunk_seq: 4, chunk_audio_offset_sec: 3 }) + good(1, { chunk_seq: -2, alignment: SNAP }), { mode: 'skip' });
    expect(r.audio).toEqual(Buffer.concat([AUDIO[0]!, AUDIO[1]!]));
    expect(r.metas[1]).toMatchObject({ chunkSeq: 4, chunkAudioOffsetSec: 0, alignment: null });
    expect(r.warnings.map((w) => [w.code, w.field])).toEqual([['EVENT_NEGATIVE_VALUE', 'chunk_seq']]);
  });
  it('framing faults still end the stream in skip mode', () => {
    const r = scan(good(0) + good(1).slice(0, 10), { mode: 'skip' });
    expect(r.error).toMatchObject({ code: 'SSE_TRUNCATED' });
  });
});
