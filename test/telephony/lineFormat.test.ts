import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/codec/types.js';
import { SAMPLE_ENCODINGS } from '../../src/codec/types.js';
import { alawDecode } from '../../src/dsp/alaw.js';
import { mulawDecode } from '../../src/dsp/mulaw.js';
import { InboundAudio } from '../../src/telephony/InboundAudio.js';
import {
  bytesPerSample,
  decodeLineAudio,
  frameLineBytes,
  MULAW_8K,
  samplesPerMs,
  silenceByte,
  type LineFormat,
} from '../../src/telephony/lineFormat.js';
import { TELEPHONY_OUTPUT, telephonyOutputFor, telephonyRequestDefaults } from '../../src/telephony/speechSource.js';
import { greeting } from './helpers/fixtureSource.js';

const L16_LE: LineFormat = { encoding: 'l16', sampleRate: 16000, byteOrder: 'le' };
const L16_BE: LineFormat = { encoding: 'l16', sampleRate: 8000, byteOrder: 'be' };
const ALAW: LineFormat = { encoding: 'alaw', sampleRate: 8000 };

function s16Frame(samples: Int16Array, rate: number): AudioFrame {
  return { samples, encoding: 's16le', sampleRate: rate, channels: 1, startSample: 0, sampleCount: samples.length };
}

describe('line format', () => {
  it('counts bytes and samples per ms from the encoding and the rate', () => {
    expect([bytesPerSample(MULAW_8K), samplesPerMs(MULAW_8K)]).toEqual([1, 8]);
    expect([bytesPerSample(L16_LE), samplesPerMs(L16_LE)]).toEqual([2, 16]);
    expect([silenceByte(MULAW_8K), silenceByte(ALAW), silenceByte(L16_LE)]).toEqual([0xff, 0xd5, 0]);
    expect(mulawDecode(new Uint8Array([silenceByte(MULAW_8K)]))[0]).toBe(0);
  });

  it('L16 frames become line bytes in the line’s byte order, and decode back to the same samples', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 400 }), (values) => {
        const samples = Int16Array.from(values);
        for (const format of [L16_LE, L16_BE]) {
          const bytes = frameLineBytes(s16Frame(samples, format.sampleRate), format);
          const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          values.forEach((v, i) => expect(format.byteOrder === 'be' ? view.readInt16BE(2 * i) : view.readInt16LE(2 * i)).toBe(v));
          const back = new Int16Array(values.length);
          expect(decodeLineAudio(bytes, format, back)).toBe(values.length);
          expect(Array.from(back)).toEqual(values);
        }
      }),
    );
  });

  it('μ-law line bytes decode as the G.711 table does', () => {
    const out = new Int16Array(greeting.mulaw.length);
    decodeLineAudio(greeting.mulaw, MULAW_8K, out);
    expect(Array.from(out)).toEqual(Array.from(mulawDecode(greeting.mulaw)));
  });

  it('caller audio on an A-law line comes out as the G.711 A-law table decodes it', () => {
    const inbound = new InboundAudio();
    inbound.format = ALAW;
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    inbound.pushLineAudio(codes);
    const out = inbound.read() as Buffer;
    expect(Array.from(new Int16Array(out.buffer, out.byteOffset, out.length / 2))).toEqual(Array.from(alawDecode(codes)));
    expect(inbound.pushedBytes).toBe(512);
  });

  it('caller L16 at 16 kHz comes out as s16le, an odd trailing byte dropped', () => {
    const inbound = new InboundAudio();
    inbound.format = { encoding: 'l16', sampleRate: 16000, byteOrder: 'be' };
    expect(inbound.pushLineAudio(new Uint8Array([0x12, 0x34, 0xff, 0xfe, 0x01]))).toBe(true);
    const pcm = inbound.read() as Buffer;
    expect([pcm.readInt16LE(0), pcm.readInt16LE(2)]).toEqual([0x1234, -2]);
    expect(pcm.length).toBe(4);
  });

  it('the engine is asked for the line’s format; an encoding it cannot output yet is a typed error', () => {
    expect(telephonyOutputFor(MULAW_8K)).toEqual(TELEPHONY_OUTPUT);
    expect(telephonyOutputFor(L16_LE)).toEqual({ sampleRate: 16000, encoding: 's16le', channels: 1, frameMs: 20 });
    expect(telephonyRequestDefaults(L16_LE)).toEqual({ format: 'pcm', sample_rate: 16000 });
    if ((SAMPLE_ENCODINGS as readonly string[]).includes('alaw')) {
      expect(telephonyOutputFor(ALAW).encoding).toBe('alaw');
    } else {
      expect(() => telephonyOutputFor(ALAW)).toThrow(expect.objectContaining({ code: 'TELEPHONY_FORMAT_UNSUPPORTED' }));
    }
  });
});
