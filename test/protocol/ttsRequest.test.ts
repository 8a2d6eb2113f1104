import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/errors.js';
import { createDecoder } from '../../src/codec/createDecoder.js';
import { mpegRateFields } from '../../src/codec/mp3/mpegHeader.js';
import { OPUS_NATIVE_RATES } from '../../src/codec/opus/OpusHead.js';
import { AUDIO_FORMATS as DECODABLE_FORMATS } from '../../src/codec/types.js';
import {
  AUDIO_FORMATS,
  DEFAULT_MODEL,
  MAX_TEXT_LENGTH,
  MP3_SAMPLE_RATES,
  OPUS_SAMPLE_RATES,
  TTS_DEFAULTS,
  defaultSampleRate,
  isLegalSampleRate,
  resolveModel,
  validateTtsRequest,
} from '../../src/protocol/ttsRequest.js';

function ruleOf(body: unknown): { field: string | undefined; rule: string } {
  try {
    validateTtsRequest(body);
  } catch (err) {
    expect(err).toBeInstanceOf(RequestValidationError);
    const e = err as RequestValidationError;
    expect(e.code).toBe('REQUEST_INVALID');
    expect(e.message).toContain(e.field!);
    return { field: e.field, rule: e.rule };
  }
  throw new Error('expected a RequestValidationError');
}

describe('validateTtsRequest', () => {
  it('fills every default of the reference request shape', () => {
    const r = validateTtsRequest({ text: 'Hi.' });
    expect(r).toMatchObject({
      temperature: 0.7,
      top_p: 0.7,
      chunk_length: 300,
      normalize: true,
      format: 'mp3',
      sample_rate: 44100,
      mp3_bitrate: 128,
      opus_bitrate: -1000,
      latency: 'normal',
      max_new_tokens: 1024,
      repetition_penalty: 1.2,
      min_chunk_length: 50,
      condition_on_previous_chunks: true,
      early_stop_threshold: 1,
      features: [],
      pronunciation_dictionary: [],
      references: [],
      reference_id: null,
      prosody: { speed: 1, volume: 0, normalize_loudness: true },
    });
    expect(TTS_DEFAULTS.format).toBe('mp3');
  });

  it('sample_rate null means the format default: 44100, and 48000 for opus', () => {
    expect(validateTtsRequest({ text: 'x', format: 'wav', sample_rate: null }).sample_rate).toBe(44100);
    expect(validateTtsRequest({ text: 'x', format: 'opus', sample_rate: null }).sample_rate).toBe(48000);
    expect(defaultSampleRate('pcm')).toBe(44100);
  });

  it('legal rates per format', () => {
    expect(isLegalSampleRate('pcm', 8000) && isLegalSampleRate('pcm', 48000) && isLegalSampleRate('wav', 11111)).toBe(true);
    expect(isLegalSampleRate('pcm', 7999) || isLegalSampleRate('pcm', 48001)).toBe(false);
    expect(isLegalSampleRate('mp3', 22050) && !isLegalSampleRate('mp3', 44000)).toBe(true);
    expect(isLegalSampleRate('opus', 24000) && !isLegalSampleRate('opus', 44100)).toBe(true);
  });

  it('the opus rates a request may ask for are the rates the decoder outputs natively: one list, not a copy', () => {
    expect(OPUS_SAMPLE_RATES).toBe(OPUS_NATIVE_RATES);
    for (const rate of OPUS_NATIVE_RATES) expect(isLegalSampleRate('opus', rate)).toBe(true);
  });

  it('the mp3 rates a request may ask for are exactly the rates an MPEG frame header can carry', () => {
    const carried: number[] = [];
    for (let rate = 1; rate <= 96_000; rate++) if (mpegRateFields(rate) !== undefined) carried.push(rate);
    expect(carried).toEqual([...MP3_SAMPLE_RATES]);
  });

  it("the request formats are the decoder factory's formats (one list), and each has its own decoder", () => {
    expect(AUDIO_FORMATS).toBe(DECODABLE_FORMATS);
    for (const format of AUDIO_FORMATS) expect(createDecoder(format, { sampleRate: 16000 }).kind).toBe(format);
    expect(() => createDecoder('flac' as never)).toThrow(`expected one of ${AUDIO_FORMATS.join(', ')}`);
  });

  it('unknown fields pass through in extra', () => {
    const r = validateTtsRequest({ text: 'x', my_flag: 3 });
    expect(r.extra).toEqual({ my_flag: 3 });
  });

  it('mp3_bitrate and opus_bitrate are checked against their enums whatever the format', () => {
    expect(ruleOf({ text: 'x', format: 'pcm', mp3_bitrate: 100 })).toEqual({ field: 'mp3_bitrate', rule: 'enum' });
    expect(ruleOf({ text: 'x', format: 'mp3', opus_bitrate: 1 })).toEqual({ field: 'opus_bitrate', rule: 'enum' });
  });

  it('text over MAX_TEXT_LENGTH breaks max_length', () => {
    expect(ruleOf({ text: 'a'.repeat(MAX_TEXT_LENGTH + 1) })).toEqual({ field: 'text', rule: 'max_length' });
    expect(validateTtsRequest({ text: 'a'.repeat(MAX_TEXT_LENGTH) }).text.length).toBe(MAX_TEXT_LENGTH);
  });

  it('inline dictionary entries take exactly one of alias or phonemes', () => {
    expect(ruleOf({ text: 'x', pronunciation_dictionary: [{ entries: [{ text: 'a', alias: 'b', phonemes: 'c' }] }] })).toEqual({
      field: 'pronunciation_dictionary[0].entries[0]',
      rule: 'shape',
    });
    expect(
      validateTtsRequest({ text: 'x', pronunciation_dictionary: [{ id: 'd', version: '1' }, { entries: [{ text: 'a', alias: 'b' }] }] })
        .pronunciation_dictionary,
    ).toHaveLength(2);
  });

  it('the model header falls back to s2.1-pro when absent or unknown', () => {
    expect(resolveModel(undefined)).toBe(DEFAULT_MODEL);
    expect(resolveModel('nope')).toBe('s2.1-pro');
    expect(resolveModel('drama-3-preview')).toBe('drama-3-preview');
  });
});
