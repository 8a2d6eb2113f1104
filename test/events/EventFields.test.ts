import { describe, expect, it } from 'vitest';
import { EventFields } from '../../src/events/EventFields.js';

const SNAP = {
  audio_duration: 1.2,
  segments: [
    { text: 'hello', start: 0, end: 0.4 },
    { text: 'world', start: 0.5, end: 1.1 },
  ],
};

/** An event's data as the service sends it (audio first), with the audio's span in it. */
function data(audio: string, fields: Record<string, unknown> = {}): { d: Buffer; audioAt: number } {
  const json = JSON.stringify({
    audio_base64: audio,
    content: 'hello world',
    alignment: SNAP,
    chunk_seq: 0,
    chunk_audio_offset_sec: 0.5,
    ...fields,
  });
  return { d: Buffer.from(json), audioAt: json.indexOf(audio) };
}

function read(f: EventFields, audio: string, fields: Record<string, unknown> = {}, index = 0): Buffer | null {
  const { d, audioAt } = data(audio, fields);
  if (!f.read(d, 0, d.length, index)) return null;
  expect([f.audioStart, f.audioEnd]).toEqual([audioAt, audioAt + audio.length]);
  return d;
}

describe('EventFields', () => {
  it('reads every field of an event, and the audio span of the next one whose rest is the same bytes', () => {
    const f = new EventFields();
    const d = read(f, 'AAAA')!;
    expect([f.chunkSeq, f.offset, f.content, f.alignment, f.repeat]).toEqual([0, 0.5, 'hello world', SNAP, false]);
    f.keep(d, d.length);
    const first = f.alignment;
    read(f, 'QUJDREVG'); // another audio length, the same rest
    expect([f.chunkSeq, f.offset, f.content, f.repeat]).toEqual([0, 0.5, 'hello world', true]);
    expect(f.alignment).toBe(first);
  });

  it('remembers a snapshot only once its event is kept', () => {
    const f = new EventFields();
    read(f, 'AAAA'); // not kept: e.g. its audio turned out to be bad
    const notKept = f.alignment;
    const d = read(f, 'AAAA', { content: 'another rest' })!;
    expect(f.repeat).toBe(false);
    expect(f.alignment).not.toBe(notKept);
    f.keep(d, d.length);
    const kept = f.alignment;
    read(f, 'AAAA', { content: 'a third rest' });
    expect(f.repeat).toBe(true);
    expect(f.alignment).toBe(kept);
  });

  it('the same snapshot bytes under another chunk_seq are parsed anew', () => {
    const f = new EventFields();
    const d = read(f, 'AAAA')!;
    f.keep(d, d.length);
    read(f, 'AAAA', { chunk_seq: 1 });
    expect(f.repeat).toBe(false);
    expect(f.chunkSeq).toBe(1);
    expect(f.alignment).toEqual(SNAP);
  });

  it('after a snapshot from the general path, no bytes compare equal to the latest snapshot', () => {
    const f = new EventFields();
    const d = read(f, 'AAAA')!;
    f.keep(d, d.length);
    const parsed = { audio_duration: 9, segments: [] };
    f.forgetRest();
    f.keepParsedSnapshot(parsed, 0);
    read(f, 'AAAA');
    expect(f.repeat).toBe(false);
    expect(f.alignment).toEqual(SNAP);
    expect(f.alignment).not.toBe(parsed);
  });

  it('leaves to the general path an offset that is not a finite number, and a snapshot that is not valid', () => {
    const f = new EventFields();
    const big = Buffer.from('{"audio_base64":"AAAA","content":"x","alignment":null,"chunk_seq":0,"chunk_audio_offset_sec":1e999}');
    expect(f.read(big, 0, big.length, 0)).toBe(false);
    expect(read(f, 'AAAA', { alignment: { audio_duration: 1, segments: [{ text: 'x', start: 2, end: 1 }] } })).toBeNull();
  });
});
