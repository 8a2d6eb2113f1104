import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkPlivoMediaFormat,
  parsePlivoCommand,
  parsePlivoExtraHeaders,
  parsePlivoMessage,
  plivoCheckpointMessage,
  plivoClearAudioMessage,
  plivoPlayAudioMessage,
} from '../../../src/telephony/providers/plivoMessages.js';
import { assertOnlyProtocolErrors, audioBytes, awkwardText, fault } from './fuzz.js';

const start = {
  event: 'start',
  sequenceNumber: 1,
  start: {
    callId: 'c0ffee00-0000-0000-0000-000000000001',
    streamId: 'ab000000-0000-0000-0000-000000000002',
    accountId: 'MA0000000000000000',
    tracks: ['inbound'],
    mediaFormat: { encoding: 'audio/x-l16', sampleRate: 16000 },
  },
  extra_headers: 'token=abc;lang=en',
};

describe('Plivo messages in', () => {
  it('start gives stream id, call id, media format and the extra headers split into pairs', () => {
    expect(parsePlivoMessage(JSON.stringify(start))).toEqual({
      event: 'start',
      sequenceNumber: 1,
      start: {
        streamId: start.start.streamId,
        callId: start.start.callId,
        accountId: 'MA0000000000000000',
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-l16', sampleRate: 16000 },
        extraHeaders: 'token=abc;lang=en',
        headers: { token: 'abc', lang: 'en' },
      },
    });
    expect(parsePlivoExtraHeaders('test1=12,test2=123')).toEqual({ test1: '12', test2: '123' });
    expect(parsePlivoExtraHeaders('junk;=x;a=b=c')).toEqual({ a: 'b=c' });
  });

  it('media, dtmf and clearedAudio keep their fields', () => {
    expect(
      parsePlivoMessage(
        '{"event":"media","sequenceNumber":42,"streamId":"S",' +
          '"media":{"track":"inbound","timestamp":"1705312200000","chunk":41,"payload":"AAE="}}',
      ),
    ).toEqual({
      event: 'media',
      sequenceNumber: 42,
      streamId: 'S',
      track: 'inbound',
      chunk: 41,
      timestamp: 1705312200000,
      payload: 'AAE=',
    });
    expect(parsePlivoMessage('{"event":"dtmf","sequenceNumber":3,"streamId":"S","dtmf":{"track":"inbound","digit":"5"}}')).toEqual({
      event: 'dtmf',
      sequenceNumber: 3,
      streamId: 'S',
      digit: '5',
    });
    expect(parsePlivoMessage('{"event":"dtmf","streamId":"S","digit":"*"}')).toMatchObject({ event: 'dtmf', digit: '*' });
    expect(parsePlivoMessage('{"event":"clearedAudio","sequenceNumber":9,"streamId":"S"}')).toEqual({
      event: 'clearedAudio',
      sequenceNumber: 9,
      streamId: 'S',
    });
  });

  it('a checkpoint answer parses the same whether Plivo calls it playedStream or played', () => {
    const a = parsePlivoMessage('{"event":"playedStream","streamId":"S","name":"vw:1"}');
    const b = parsePlivoMessage('{"event":"played","streamId":"S","name":"vw:1"}');
    expect(a).toEqual({ event: 'playedStream', sequenceNumber: -1, streamId: 'S', name: 'vw:1' });
    expect(b).toEqual(a);
  });

  it('bad JSON, a start without a call id, a missing payload or a nameless checkpoint answer name the field', () => {
    expect(fault(() => parsePlivoMessage('nope')).field).toBe('message');
    const noCall = { ...start, start: { ...start.start, callId: 7 } };
    expect(fault(() => parsePlivoMessage(JSON.stringify(noCall))).field).toBe('start.callId');
    expect(fault(() => parsePlivoMessage('{"event":"media","sequenceNumber":4,"media":{"track":"inbound"}}')).field).toBe('media.payload');
    expect(fault(() => parsePlivoMessage('{"event":"played","streamId":"S"}')).field).toBe('message.name');
    expect(fault(() => parsePlivoMessage('{"event":"dtmf","dtmf":{}}')).field).toBe('dtmf.digit');
  });

  it('any text either parses or is a TelephonyError, never anything else', () => {
    assertOnlyProtocolErrors(
      parsePlivoMessage,
      'event',
      ['start', 'media', 'dtmf', 'playedStream', 'played', 'clearedAudio', 'other'],
      ['start', 'media', 'dtmf', 'name', 'streamId', 'sequenceNumber', 'extra_headers', 'digit'],
    );
  });
});

describe('Plivo media format', () => {
  it('μ-law at 8 kHz and L16 at 8 or 16 kHz pass; others are refused by field', () => {
    expect(checkPlivoMediaFormat({ encoding: 'audio/x-mulaw', sampleRate: 8000 })).toBe('audio/x-mulaw');
    expect(checkPlivoMediaFormat({ encoding: 'audio/x-l16', sampleRate: 8000 })).toBe('audio/x-l16');
    expect(fault(() => checkPlivoMediaFormat({ encoding: 'audio/x-mulaw', sampleRate: 16000 })).field).toBe('start.mediaFormat.sampleRate');
    expect(fault(() => checkPlivoMediaFormat({ encoding: 'audio/x-alaw', sampleRate: 8000 })).field).toBe('start.mediaFormat.encoding');
  });
});

describe('Plivo messages out', () => {
  it('playAudio carries content type, rate and the raw bytes (a view) as base64', () => {
    const bytes = new Uint8Array([9, 1, 2, 3, 9]);
    expect(JSON.parse(plivoPlayAudioMessage('audio/x-l16', 16000, bytes.subarray(1, 4)))).toEqual({
      event: 'playAudio',
      media: { contentType: 'audio/x-l16', sampleRate: 16000, payload: Buffer.from([1, 2, 3]).toString('base64') },
    });
  });

  it('what we build reads back as what was meant, for any bytes, stream id and checkpoint name', () => {
    const format = fc.constantFrom(['audio/x-mulaw', 8000] as const, ['audio/x-l16', 8000] as const, ['audio/x-l16', 16000] as const);
    fc.assert(
      fc.property(audioBytes, awkwardText, awkwardText, format, (bytes, streamId, name, [contentType, sampleRate]) => {
        const sid = JSON.stringify(streamId);
        expect(parsePlivoCommand(plivoPlayAudioMessage(contentType, sampleRate, bytes))).toEqual({
          event: 'playAudio',
          contentType,
          sampleRate,
          payload: Buffer.from(bytes).toString('base64'),
        });
        expect(parsePlivoCommand(plivoCheckpointMessage(sid, name))).toEqual({ event: 'checkpoint', streamId, name });
        expect(parsePlivoCommand(plivoClearAudioMessage(sid))).toEqual({ event: 'clearAudio', streamId });
      }),
    );
  });

  it('reading back refuses a playAudio in a format Plivo does not take', () => {
    expect(
      fault(() => parsePlivoCommand('{"event":"playAudio","media":{"contentType":"audio/x-mulaw","sampleRate":16000,"payload":""}}')).field,
    ).toBe('media.sampleRate');
    assertOnlyProtocolErrors(parsePlivoCommand, 'event', ['playAudio', 'checkpoint', 'clearAudio'], ['media', 'name', 'streamId']);
  });
});
