import { describe, expect, it } from 'vitest';
import { SpeechEventError } from '../../src/errors.js';
import { inspectSpeechEvent, parseSpeechEventData, validateSpeechEvent } from '../../src/events/SpeechEvent.js';

const base = { audio_base64: 'QUJD', content: 'hi', alignment: null, chunk_seq: 0, chunk_audio_offset_sec: 0 };
function fault(json: unknown): SpeechEventError {
  try {
    validateSpeechEvent(json, 7);
  } catch (e) {
    expect(e).toBeInstanceOf(SpeechEventError);
    return e as SpeechEventError;
  }
  throw new Error('expected a SpeechEventError');
}

describe('validateSpeechEvent', () => {
  it('accepts a valid event and keeps only the known alignment fields', () => {
    const ev = validateSpeechEvent(
      { ...base, extra: 1, alignment: { audio_duration: 1, segments: [{ text: 'a', start: 0, end: 1, x: 2 }], y: 3 } },
      0,
    );
    expect(ev.alignment).toEqual({ audio_duration: 1, segments: [{ text: 'a', start: 0, end: 1 }] });
  });
  it('content absent means empty, alignment absent means null', () => {
    expect(validateSpeechEvent({ audio_base64: '', chunk_seq: 1, chunk_audio_offset_sec: 0.5 }, 0)).toEqual({
      audio_base64: '',
      content: '',
      alignment: null,
      chunk_seq: 1,
      chunk_audio_offset_sec: 0.5,
    });
  });
  it('malformed JSON is EVENT_INVALID_JSON naming the event', () => {
    expect(() => parseSpeechEventData('{"audio_base64":', 3)).toThrow(
      expect.objectContaining({ code: 'EVENT_INVALID_JSON', eventIndex: 3 }),
    );
  });
  it('a non-object event is EVENT_WRONG_TYPE', () => {
    expect(fault([1, 2])).toMatchObject({ code: 'EVENT_WRONG_TYPE', eventIndex: 7, field: '(event)' });
  });
  it('a wrong type names the field', () => {
    expect(fault({ ...base, audio_base64: 5 })).toMatchObject({ code: 'EVENT_WRONG_TYPE', field: 'audio_base64' });
    expect(fault({ ...base, chunk_seq: 1.5 })).toMatchObject({ code: 'EVENT_WRONG_TYPE', field: 'chunk_seq' });
    expect(fault({ ...base, chunk_audio_offset_sec: '1' })).toMatchObject({ code: 'EVENT_WRONG_TYPE', field: 'chunk_audio_offset_sec' });
  });
  it('a negative chunk_seq or offset is EVENT_NEGATIVE_VALUE', () => {
    expect(fault({ ...base, chunk_seq: -1 })).toMatchObject({ code: 'EVENT_NEGATIVE_VALUE', field: 'chunk_seq' });
    expect(fault({ ...base, chunk_audio_offset_sec: -0.5 })).toMatchObject({
      code: 'EVENT_NEGATIVE_VALUE',
      field: 'chunk_audio_offset_sec',
    });
  });
  it('a missing required field is EVENT_MISSING_FIELD', () => {
    const { audio_base64: _a, ...noAudio } = base;
    const { chunk_seq: _s, ...noSeq } = base;
    expect(fault(noAudio)).toMatchObject({ code: 'EVENT_MISSING_FIELD', field: 'audio_base64' });
    expect(fault(noSeq)).toMatchObject({ code: 'EVENT_MISSING_FIELD', field: 'chunk_seq' });
  });
  it('base64 that Buffer.from would accept is AUDIO_BAD_BASE64', () => {
    for (const bad of ['QUJ', 'QU JD', 'QUJD-_==', 'QQ==QQ==', 'QUJD\n']) {
      expect(Buffer.from(bad, 'base64').length).toBeGreaterThan(0);
      expect(fault({ ...base, audio_base64: bad })).toMatchObject({ code: 'AUDIO_BAD_BASE64', field: 'audio_base64' });
    }
  });
  it('an alignment of bad shape is ALIGNMENT_BAD_SHAPE naming the exact field', () => {
    const seg = (start: unknown, end: unknown, text: unknown = 'w') => ({
      ...base,
      alignment: {
        audio_duration: 1,
        segments: [
          { text: 'ok', start: 0, end: 0 },
          { text, start, end },
        ],
      },
    });
    expect(fault(seg(2, 1))).toMatchObject({ code: 'ALIGNMENT_BAD_SHAPE', field: 'alignment.segments[1]' });
    expect(fault(seg(Infinity, 1))).toMatchObject({ field: 'alignment.segments[1].start' });
    expect(fault(seg(0, '1'))).toMatchObject({ field: 'alignment.segments[1].end' });
    expect(fault(seg(0, 1, 3))).toMatchObject({ field: 'alignment.segments[1].text' });
    expect(fault({ ...base, alignment: { audio_duration: 1, segments: {} } })).toMatchObject({ field: 'alignment.segments' });
    expect(fault({ ...base, alignment: { segments: [] } })).toMatchObject({ field: 'alignment.audio_duration' });
    expect(fault({ ...base, alignment: 'x' })).toMatchObject({ code: 'ALIGNMENT_BAD_SHAPE', field: 'alignment' });
  });
  it('inspectSpeechEvent reports every fault and says whether the audio is usable', () => {
    const r = inspectSpeechEvent({ ...base, content: 1, chunk_seq: -1, alignment: { audio_duration: 1, segments: [] } }, 2, 9, 4);
    expect(r.errors.map((e) => e.field)).toEqual(['content', 'chunk_seq']);
    expect(r.audioValid).toBe(true);
    expect(r.event).toMatchObject({ content: '', chunk_seq: 9, alignment: null, audio_base64: 'QUJD' });
  });
});
