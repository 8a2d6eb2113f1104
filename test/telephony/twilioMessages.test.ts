import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TelephonyError } from '../../src/errors.js';
import { checkMediaFormat, clearMessage, markMessage, mediaMessage, parseInboundMessage } from '../../src/telephony/twilioMessages.js';

const start = {
  event: 'start',
  sequenceNumber: '1',
  start: {
    accountSid: 'AC1',
    streamSid: 'MZ1',
    callSid: 'CA1',
    tracks: ['inbound'],
    customParameters: { greeting: 'Hi', n: 3 },
    mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
  },
  streamSid: 'MZ1',
};

function fault(fn: () => unknown): TelephonyError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TelephonyError);
    return err as TelephonyError;
  }
  throw new Error('expected a TelephonyError');
}

describe('Twilio messages in', () => {
  it('connected gives protocol and version', () => {
    expect(parseInboundMessage('{"event":"connected","protocol":"Call","version":"1.0.0"}')).toEqual({
      event: 'connected',
      protocol: 'Call',
      version: '1.0.0',
    });
  });

  it('start gives stream sid, call sid, custom parameters (as strings) and media format; numbers may be strings', () => {
    const m = parseInboundMessage(JSON.stringify(start));
    expect(m).toEqual({
      event: 'start',
      sequenceNumber: 1,
      start: {
        streamSid: 'MZ1',
        callSid: 'CA1',
        accountSid: 'AC1',
        tracks: ['inbound'],
        customParameters: { greeting: 'Hi', n: '3' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
  });

  it('media, mark, dtmf and stop keep their fields', () => {
    expect(
      parseInboundMessage(
        '{"event":"media","sequenceNumber":"3","media":{"track":"inbound","chunk":"2",' +
          '"timestamp":"40","payload":"//8="},"streamSid":"MZ1"}',
      ),
    ).toEqual({ event: 'media', sequenceNumber: 3, track: 'inbound', chunk: 2, timestamp: 40, payload: '//8=' });
    expect(parseInboundMessage('{"event":"mark","sequenceNumber":"4","streamSid":"MZ1","mark":{"name":"vw:1:0"}}')).toEqual({
      event: 'mark',
      sequenceNumber: 4,
      name: 'vw:1:0',
    });
    expect(
      parseInboundMessage('{"event":"dtmf","sequenceNumber":"5","streamSid":"MZ1","dtmf":{"track":"inbound_track","digit":"7"}}'),
    ).toEqual({ event: 'dtmf', sequenceNumber: 5, track: 'inbound_track', digit: '7' });
    expect(
      parseInboundMessage('{"event":"stop","sequenceNumber":"6","streamSid":"MZ1","stop":{"accountSid":"AC1","callSid":"CA1"}}'),
    ).toEqual({ event: 'stop', sequenceNumber: 6, callSid: 'CA1' });
  });

  it('an unknown event is passed over, not an error', () => {
    expect(parseInboundMessage('{"event":"something-new","x":1}')).toEqual({ event: 'unknown', name: 'something-new' });
  });

  it('bad JSON, a missing payload and a start without a call sid name the field', () => {
    expect(fault(() => parseInboundMessage('{"event":')).field).toBe('message');
    const media = fault(() => parseInboundMessage('{"event":"media","sequenceNumber":"9","media":{}}'));
    expect(media.field).toBe('media.payload');
    expect(media.message).toContain('#9');
    const noCall = { ...start, start: { ...start.start, callSid: undefined } };
    expect(fault(() => parseInboundMessage(JSON.stringify(noCall))).field).toBe('start.callSid');
    expect(fault(() => parseInboundMessage('[1,2]')).field).toBe('message');
    expect(fault(() => parseInboundMessage('{"event":"mark","mark":{"name":5}}')).field).toBe('mark.name');
  });

  it('any text either parses or is a TelephonyError, never anything else', () => {
    const known = fc.constantFrom('connected', 'start', 'media', 'mark', 'dtmf', 'stop', 'other');
    const messageLike = fc.record(
      {
        event: fc.oneof(known, fc.anything()),
        sequenceNumber: fc.oneof(fc.string(), fc.integer(), fc.constant(undefined)),
        start: fc.anything(),
        media: fc.anything(),
        mark: fc.anything(),
        dtmf: fc.anything(),
        stop: fc.anything(),
      },
      { requiredKeys: ['event'] },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          messageLike.map((m) => JSON.stringify(m) ?? ''),
        ),
        (text) => {
          try {
            const m = parseInboundMessage(text);
            expect(typeof m.event).toBe('string');
          } catch (err) {
            expect(err).toBeInstanceOf(TelephonyError);
            expect((err as TelephonyError).code).toBe('TELEPHONY_PROTOCOL');
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('media format', () => {
  it('μ-law 8 kHz mono passes; a wrong rate, encoding or channel count is refused by name', () => {
    expect(() => checkMediaFormat({ encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 })).not.toThrow();
    expect(fault(() => checkMediaFormat({ encoding: 'audio/x-mulaw', sampleRate: 44100, channels: 1 })).field).toBe(
      'start.mediaFormat.sampleRate',
    );
    expect(fault(() => checkMediaFormat({ encoding: 'audio/x-l16', sampleRate: 8000, channels: 1 })).field).toBe(
      'start.mediaFormat.encoding',
    );
    expect(fault(() => checkMediaFormat({ encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 2 })).field).toBe(
      'start.mediaFormat.channels',
    );
  });
});

describe('Twilio messages out', () => {
  const sid = JSON.stringify('MZ"1');

  it('media carries raw μ-law in base64 and nothing else', () => {
    const bytes = new Uint8Array([0xff, 0x7f, 0x00, 0x80, 1]);
    const m = JSON.parse(mediaMessage(sid, bytes.subarray(1, 4))) as { event: string; streamSid: string; media: { payload: string } };
    expect(m).toEqual({ event: 'media', streamSid: 'MZ"1', media: { payload: Buffer.from([0x7f, 0x00, 0x80]).toString('base64') } });
  });

  it('mark and clear are valid JSON with the stream sid', () => {
    expect(JSON.parse(markMessage(sid, 'a"b'))).toEqual({ event: 'mark', streamSid: 'MZ"1', mark: { name: 'a"b' } });
    expect(JSON.parse(clearMessage(sid))).toEqual({ event: 'clear', streamSid: 'MZ"1' });
  });
});
