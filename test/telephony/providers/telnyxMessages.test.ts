import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkTelnyxMediaFormat,
  parseTelnyxCommand,
  parseTelnyxMessage,
  telnyxClearMessage,
  telnyxMarkMessage,
  telnyxMediaMessage,
} from '../../../src/telephony/providers/telnyxMessages.js';
import { assertOnlyProtocolErrors, audioBytes, awkwardText, fault } from './fuzz.js';

const start = {
  event: 'start',
  sequence_number: '1',
  stream_id: 'S-1',
  start: {
    user_id: 'U-1',
    call_control_id: 'v2:CC1',
    call_session_id: 'SESS-1',
    from: '+13125550100',
    to: '+13125550199',
    client_state: 'aGk=',
    custom_parameters: { token: 't1', n: 3 },
    media_format: { encoding: 'PCMA', sample_rate: 8000, channels: 1 },
  },
};

describe('Telnyx messages in', () => {
  it('connected, then start with the stream id at the top and the call control id inside', () => {
    expect(parseTelnyxMessage('{"event":"connected","version":"1.0.0"}')).toEqual({ event: 'connected', version: '1.0.0' });
    expect(parseTelnyxMessage(JSON.stringify(start))).toEqual({
      event: 'start',
      sequenceNumber: 1,
      start: {
        streamId: 'S-1',
        callControlId: 'v2:CC1',
        callSessionId: 'SESS-1',
        from: '+13125550100',
        to: '+13125550199',
        clientState: 'aGk=',
        customParameters: { token: 't1', n: '3' },
        mediaFormat: { encoding: 'PCMA', sampleRate: 8000, channels: 1 },
      },
    });
  });

  it('media, dtmf, mark, stop and error keep their fields (numbers may be strings)', () => {
    expect(
      parseTelnyxMessage(
        '{"event":"media","sequence_number":"4","stream_id":"S-1",' +
          '"media":{"track":"inbound","chunk":"2","timestamp":"40","payload":"1dU="}}',
      ),
    ).toEqual({ event: 'media', sequenceNumber: 4, streamId: 'S-1', track: 'inbound', chunk: 2, timestamp: 40, payload: '1dU=' });
    expect(parseTelnyxMessage('{"event":"dtmf","sequence_number":"5","stream_id":"S-1","dtmf":{"digit":"#"}}')).toEqual({
      event: 'dtmf',
      sequenceNumber: 5,
      streamId: 'S-1',
      digit: '#',
    });
    expect(parseTelnyxMessage('{"event":"mark","sequence_number":"6","stream_id":"S-1","mark":{"name":"vw:1"}}')).toEqual({
      event: 'mark',
      sequenceNumber: 6,
      streamId: 'S-1',
      name: 'vw:1',
    });
    expect(parseTelnyxMessage('{"event":"stop","sequence_number":"7","stream_id":"S-1","stop":{"call_control_id":"v2:CC1"}}')).toEqual({
      event: 'stop',
      sequenceNumber: 7,
      streamId: 'S-1',
    });
    expect(
      parseTelnyxMessage(
        '{"event":"error","sequence_number":"8","stream_id":"S-1","payload":{"code":100003,"title":"malformed","detail":"x"}}',
      ),
    ).toEqual({ event: 'error', sequenceNumber: 8, streamId: 'S-1', error: { code: 100003, title: 'malformed', detail: 'x' } });
  });

  it('an unknown event is passed over, not an error', () => {
    expect(parseTelnyxMessage('{"event":"streaming.new","x":1}')).toEqual({ event: 'unknown', name: 'streaming.new' });
  });

  it('bad JSON, a missing call control id, a missing payload or a payload that is not base64 name the field', () => {
    expect(fault(() => parseTelnyxMessage('{"event":')).field).toBe('message');
    const noCall = { ...start, start: { ...start.start, call_control_id: undefined } };
    expect(fault(() => parseTelnyxMessage(JSON.stringify(noCall))).field).toBe('start.call_control_id');
    const noFormat = { ...start, start: { ...start.start, media_format: 'PCMU' } };
    expect(fault(() => parseTelnyxMessage(JSON.stringify(noFormat))).field).toBe('start.media_format');
    const media = fault(() => parseTelnyxMessage('{"event":"media","sequence_number":"9","media":{}}'));
    expect(media.field).toBe('media.payload');
    expect(media.message).toContain('#9');
    expect(fault(() => parseTelnyxMessage('{"event":"media","media":{"payload":"not base64!"}}')).field).toBe('media.payload');
    expect(fault(() => parseTelnyxMessage('{"event":"mark","mark":{"name":5}}')).field).toBe('mark.name');
  });

  it('any text either parses or is a TelephonyError, never anything else', () => {
    assertOnlyProtocolErrors(
      parseTelnyxMessage,
      'event',
      ['connected', 'start', 'media', 'dtmf', 'mark', 'stop', 'error', 'other'],
      ['start', 'media', 'dtmf', 'mark', 'stop', 'payload', 'sequence_number', 'stream_id'],
    );
  });
});

describe('Telnyx media format', () => {
  it('PCMU and PCMA at 8 kHz and L16 at 8 or 16 kHz pass; others are refused by field', () => {
    expect(checkTelnyxMediaFormat({ encoding: 'PCMU', sampleRate: 8000, channels: 1 })).toBe('PCMU');
    expect(checkTelnyxMediaFormat({ encoding: 'PCMA', sampleRate: 8000, channels: 1 })).toBe('PCMA');
    expect(checkTelnyxMediaFormat({ encoding: 'L16', sampleRate: 16000, channels: 1 })).toBe('L16');
    expect(fault(() => checkTelnyxMediaFormat({ encoding: 'OPUS', sampleRate: 8000, channels: 1 })).field).toBe(
      'start.media_format.encoding',
    );
    expect(fault(() => checkTelnyxMediaFormat({ encoding: 'PCMU', sampleRate: 16000, channels: 1 })).field).toBe(
      'start.media_format.sample_rate',
    );
    expect(fault(() => checkTelnyxMediaFormat({ encoding: 'L16', sampleRate: 16000, channels: 2 })).field).toBe(
      'start.media_format.channels',
    );
  });
});

describe('Telnyx messages out', () => {
  it('media carries the bytes given (a view into a larger buffer) as base64, and nothing else', () => {
    const bytes = new Uint8Array([0xd5, 0x55, 0x2a, 0xaa, 1]);
    expect(JSON.parse(telnyxMediaMessage(bytes.subarray(1, 4)))).toEqual({
      event: 'media',
      media: { payload: Buffer.from([0x55, 0x2a, 0xaa]).toString('base64') },
    });
    expect(JSON.parse(telnyxClearMessage())).toEqual({ event: 'clear' });
  });

  it('what we build reads back as what was meant, for any bytes and any mark name', () => {
    fc.assert(
      fc.property(audioBytes, awkwardText, (bytes, name) => {
        expect(parseTelnyxCommand(telnyxMediaMessage(bytes))).toEqual({ event: 'media', payload: Buffer.from(bytes).toString('base64') });
        expect(Buffer.from((parseTelnyxCommand(telnyxMediaMessage(bytes)) as { payload: string }).payload, 'base64')).toEqual(
          Buffer.from(bytes),
        );
        expect(parseTelnyxCommand(telnyxMarkMessage(name))).toEqual({ event: 'mark', name });
        expect(parseTelnyxCommand(telnyxClearMessage())).toEqual({ event: 'clear' });
      }),
    );
  });

  it('reading back any text gives a command or a TelephonyError', () => {
    assertOnlyProtocolErrors(parseTelnyxCommand, 'event', ['media', 'mark', 'clear'], ['media', 'mark']);
  });
});
