import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EXOTEL_MAX_ALIGNED_CHUNK,
  checkExotelChunk,
  checkExotelMediaFormat,
  exotelChunkProblem,
  exotelClearMessage,
  exotelMarkMessage,
  exotelMediaMessage,
  parseExotelCommand,
  parseExotelMessage,
} from '../../../src/telephony/providers/exotelMessages.js';
import { assertOnlyProtocolErrors, audioBytes, awkwardText, fault } from './fuzz.js';

const start = {
  event: 'start',
  sequence_number: '1',
  stream_sid: 'MZ1',
  start: {
    stream_sid: 'MZ1',
    call_sid: 'CA1',
    account_sid: 'AC1',
    from: '+919800000000',
    to: '+918000000000',
    custom_parameters: { token: 'abc' },
    media_format: { encoding: 'audio/x-raw', sample_rate: '8000', bit_rate: '16' },
  },
};

describe('Exotel messages in', () => {
  it('connected, then start with the call sid, custom parameters and the raw-PCM format (numbers as strings)', () => {
    expect(parseExotelMessage('{"event":"connected"}')).toEqual({ event: 'connected' });
    expect(parseExotelMessage(JSON.stringify(start))).toEqual({
      event: 'start',
      sequenceNumber: 1,
      start: {
        streamSid: 'MZ1',
        callSid: 'CA1',
        accountSid: 'AC1',
        from: '+919800000000',
        to: '+918000000000',
        customParameters: { token: 'abc' },
        mediaFormat: { encoding: 'audio/x-raw', sampleRate: 8000, bitRate: 16 },
      },
    });
  });

  it('media, dtmf, mark and stop keep their fields', () => {
    expect(
      parseExotelMessage(
        '{"event":"media","sequence_number":"3","stream_sid":"MZ1","media":{"chunk":"2","timestamp":"200","payload":"AAA="}}',
      ),
    ).toEqual({
      event: 'media',
      sequenceNumber: 3,
      streamSid: 'MZ1',
      chunk: 2,
      timestamp: 200,
      payload: 'AAA=',
    });
    expect(parseExotelMessage('{"event":"dtmf","sequence_number":"7","stream_sid":"MZ1","dtmf":{"digit":"5","duration":"100"}}')).toEqual({
      event: 'dtmf',
      sequenceNumber: 7,
      streamSid: 'MZ1',
      digit: '5',
      duration: 100,
    });
    expect(parseExotelMessage('{"event":"mark","sequence_number":"15","stream_sid":"MZ1","mark":{"name":"vw:3"}}')).toEqual({
      event: 'mark',
      sequenceNumber: 15,
      streamSid: 'MZ1',
      name: 'vw:3',
    });
    expect(
      parseExotelMessage('{"event":"stop","sequence_number":"20","stream_sid":"MZ1","stop":{"call_sid":"CA1","reason":"callended"}}'),
    ).toEqual({
      event: 'stop',
      sequenceNumber: 20,
      streamSid: 'MZ1',
      reason: 'callended',
    });
  });

  it('bad JSON, a start without a call sid or rate, and a missing payload name the field', () => {
    expect(fault(() => parseExotelMessage('')).field).toBe('message');
    expect(fault(() => parseExotelMessage(JSON.stringify({ ...start, start: { ...start.start, call_sid: null } }))).field).toBe(
      'start.call_sid',
    );
    const noRate = { ...start, start: { ...start.start, media_format: { encoding: 'audio/x-raw' } } };
    expect(fault(() => parseExotelMessage(JSON.stringify(noRate))).field).toBe('start.media_format.sample_rate');
    expect(fault(() => parseExotelMessage('{"event":"media","media":{"chunk":"1"}}')).field).toBe('media.payload');
  });

  it('any text either parses or is a TelephonyError, never anything else', () => {
    assertOnlyProtocolErrors(
      parseExotelMessage,
      'event',
      ['connected', 'start', 'media', 'dtmf', 'mark', 'stop', 'other'],
      ['start', 'media', 'dtmf', 'mark', 'stop', 'stream_sid', 'sequence_number'],
    );
  });
});

describe('Exotel media format and chunk sizes', () => {
  it('raw 16-bit PCM at 8, 16 or 24 kHz passes; others are refused by field', () => {
    expect(() => checkExotelMediaFormat({ encoding: 'audio/x-raw', sampleRate: 8000, bitRate: 16 })).not.toThrow();
    expect(fault(() => checkExotelMediaFormat({ encoding: 'audio/x-mulaw', sampleRate: 8000, bitRate: 16 })).field).toBe(
      'start.media_format.encoding',
    );
    expect(fault(() => checkExotelMediaFormat({ encoding: 'audio/x-raw', sampleRate: 44100, bitRate: 16 })).field).toBe(
      'start.media_format.sample_rate',
    );
    expect(fault(() => checkExotelMediaFormat({ encoding: 'audio/x-raw', sampleRate: 8000, bitRate: 8 })).field).toBe(
      'start.media_format.bit_rate',
    );
  });

  it('a chunk is accepted exactly when it is a multiple of 320 bytes from 3200 up to the maximum', () => {
    expect(exotelChunkProblem(3200)).toBeNull();
    expect(exotelChunkProblem(EXOTEL_MAX_ALIGNED_CHUNK)).toBeNull();
    expect(exotelChunkProblem(2880)).toContain('minimum');
    expect(exotelChunkProblem(4096)).toContain('multiple');
    expect(exotelChunkProblem(EXOTEL_MAX_ALIGNED_CHUNK + 320)).toContain('maximum');
    expect(fault(() => checkExotelChunk(321)).field).toBe('media.payload');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200_000 }), (n) => {
        const ok = n % 320 === 0 && n >= 3200 && n <= 100_000;
        expect(exotelChunkProblem(n) === null).toBe(ok);
      }),
    );
  });
});

describe('Exotel messages out', () => {
  it('media, mark and clear carry the stream sid; what we build reads back as what was meant', () => {
    fc.assert(
      fc.property(audioBytes, awkwardText, awkwardText, (bytes, sid, name) => {
        const sidJson = JSON.stringify(sid);
        expect(parseExotelCommand(exotelMediaMessage(sidJson, bytes))).toEqual({
          event: 'media',
          streamSid: sid,
          payload: Buffer.from(bytes).toString('base64'),
        });
        expect(parseExotelCommand(exotelMarkMessage(sidJson, name))).toEqual({ event: 'mark', streamSid: sid, name });
        expect(parseExotelCommand(exotelClearMessage(sidJson))).toEqual({ event: 'clear', streamSid: sid });
      }),
    );
    expect(JSON.parse(exotelClearMessage('"MZ1"'))).toEqual({ event: 'clear', stream_sid: 'MZ1' });
  });

  it('reading back any text gives a command or a TelephonyError', () => {
    assertOnlyProtocolErrors(parseExotelCommand, 'event', ['media', 'mark', 'clear'], ['media', 'mark', 'stream_sid']);
  });
});
